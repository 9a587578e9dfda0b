// tests/integration/pane_activity_test.cpp: what a pane's own output does
// to its record (docs/rules.md (Model), Pane and Notification; docs/rules.md (Panes and PTYs), Output path and
// OSC scanner; docs/rules.md, decision 19): OSC notifications become records with
// notification.created and set last_message, progress reports do not,
// output moves last_activity_at without journaling anything, and a label
// is measured in characters.
// Runs in: the integration test binary.
#include <sys/stat.h>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using PaneActivity = PaneTest;

std::uint64_t file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

TEST_F(PaneActivity, OscNotificationIsARecordWithAnEventAndSetsLastMessage) {
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"notification.*"}}});
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c",
                     "printf '\\033]9;4;1;50\\007'; printf '\\033]777;notify;build;done\\007'; "
                     "exec cat"});
  auto ev = watcher.next_event(deadline_after());
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ((*ev)["event"], "notification.created");
  const Json& n = (*ev)["payload"]["notification"];
  EXPECT_EQ(n["title"], "build");  // the progress report before it made none
  EXPECT_EQ(n["body"], "done");
  EXPECT_EQ(n["source"], "osc777");
  EXPECT_EQ(n["severity"], "info");
  EXPECT_EQ(n["pane_id"], pane["id"]);
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["last_message"], "build: done");
  EXPECT_EQ(now["attention"], "unread");
}

TEST_F(PaneActivity, OutputMovesLastActivityAtWithoutJournalingIt) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], counter_argv());
  const std::string created = pane["last_activity_at"];
  wait_output(client, pane["id"], "line-2");
  const std::uint64_t journal = file_bytes(dirs_.state_file("audit.jsonl"));
  ASSERT_GT(journal, 0u);
  EXPECT_TRUE(wait_until(
      [&] { return get_pane(client, pane["id"])["last_activity_at"].get<std::string>() > created; },
      deadline_after()));
  wait_output(client, pane["id"], "line-200");
  EXPECT_EQ(file_bytes(dirs_.state_file("audit.jsonl")), journal);
}

TEST_F(PaneActivity, LabelIsMeasuredInCharactersNotBytes) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  std::string label;
  for (int i = 0; i < 128; ++i) label += "\u00e9";
  Json pane = spawn(client, ws, {"cat"}, {{"label", label}});
  EXPECT_EQ(pane["label"], label);
  const std::string tab = client.call("tab.create", {{"workspace_id", ws}})["tab"]["id"];
  Json error = client.call_error("pane.spawn", {{"workspace_id", ws},
                                                {"tab_id", tab},
                                                {"argv", {"cat"}},
                                                {"label", label + "e"}});
  EXPECT_EQ(error["code"], "BAD_PARAMS");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
