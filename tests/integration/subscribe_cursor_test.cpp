// tests/integration/subscribe_cursor_test.cpp: every cursor the broker
// hands out can be resumed from (docs/rules.md (Client protocol), subscribe; docs/rules.md (Persistence),
// Replay), including server.status.seq after pty.data lines consumed
// numbers that no state event carries.
// Runs in: the integration test binary, against the real broker and a pane.
#include <string>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

class SubscribeCursor : public PaneTest {};

TEST_F(SubscribeCursor, ServerStatusSeqAfterAttachedOutputReplaysCompleteThenLive) {
  start();
  Client control = connect();
  const std::string workspace_id = make_workspace(control)["id"];
  const std::string pane_id = spawn(control, workspace_id, {"/bin/cat"})["id"];
  Client viewer = connect();
  viewer.call("pane.attach", {{"pane_id", pane_id}, {"mark_seen", false}});
  input(control, pane_id, "hello\n");
  std::uint64_t last_pty_seq = 0;
  while (last_pty_seq == 0) {
    auto ev = viewer.next_event(deadline_after());
    ASSERT_TRUE(ev.has_value()) << "no pty.data after input";
    if ((*ev)["event"] == "pty.data") last_pty_seq = (*ev)["seq"];
  }
  const std::uint64_t cursor = control.call("server.status")["seq"];
  ASSERT_GE(cursor, last_pty_seq);

  Client subscriber = connect();
  Json result = subscriber.call("subscribe", {{"from_seq", cursor}});
  EXPECT_EQ(result["subscribed"], true) << result.dump();
  EXPECT_EQ(result["replay"]["status"], "complete") << result.dump();
  EXPECT_EQ(result["replay"]["requested_after"], cursor);
  EXPECT_EQ(result["replay"]["returned"], 0);
  EXPECT_FALSE(result["replay"].contains("recovery"));

  control.call("workspace.rename", {{"workspace_id", workspace_id}, {"name", "after-cursor"}});
  auto ev = subscriber.next_event(deadline_after());
  ASSERT_TRUE(ev.has_value()) << "no live event after a complete replay";
  EXPECT_EQ((*ev)["event"], "workspace.updated");
  EXPECT_GT((*ev)["seq"].get<std::uint64_t>(), cursor);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
