// tests/integration/attach_resize_test.cpp: pane.attach with a size whose
// snapshot then fails (docs/rules.md (Panes and PTYs), "Attach / detach"; "Resize and signals"):
// the PTY keeps the new size, so the store keeps it and pane.resized is
// published; the event and the state agree. A stand-in ptyhost served by
// this test answers every request but refuses the snapshot.
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"
#include "tests/integration/stand_in_ptyhost.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using AttachResize = PaneTest;

const std::string kPaneId = "pane_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

// Answers every request but `stream`, which it refuses.
std::optional<Json> refuse_snapshots(const Json& request) {
  if (request.value("op", "") != "stream") return std::nullopt;
  Json reply = StandInPtyhost::ok_reply(request);
  reply["ok"] = false;
  reply["error"] = {{"code", "IO_ERROR"}, {"message", "the test refuses snapshots"}};
  return reply;
}

TEST_F(AttachResize, AFailedSnapshotKeepsTheNewSizeAndItsEvent) {
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  StandInPtyhost fake(dirs_.socket_dir() + "/panes/" + kPaneId + ".sock", kPaneId, refuse_snapshots);
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"pane.resized"}}});
  ASSERT_TRUE(wait_until([&] { return is_ok(client.request("pane.get", {{"pane_id", kPaneId}})); }));
  Json attach = client.request("pane.attach", {{"pane_id", kPaneId}, {"cols", 100}, {"rows", 30}});
  ASSERT_FALSE(is_ok(attach)) << attach.dump();
  Json pane = get_pane(client, kPaneId);
  EXPECT_EQ(pane["pty_size"], Json({{"cols", 100}, {"rows", 30}}));
  auto ev = watcher.next_event(deadline_after());
  ASSERT_TRUE(ev.has_value()) << "the size changed without pane.resized";
  EXPECT_EQ((*ev)["event"], "pane.resized");
  EXPECT_EQ((*ev)["payload"]["pane"]["pty_size"], pane["pty_size"]);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
