// tests/integration/pane_layout_test.cpp: pane.rename, pane.swap,
// pane.move, tab.set_layout with real panes, and closing: pane.close,
// tab.close and workspace.close with a signal, SIGKILL after 5 s, removal
// once reaped (docs/rules.md, decisions 7 and 17).
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using PaneLayout = PaneTest;

Json leaf(const Json& pane) { return {{"type", "pane"}, {"pane_id", pane["id"]}}; }

TEST_F(PaneLayout, RenameGivesAUniqueNameUsableAsAnId) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json a = spawn(client, ws, {"cat"});
  Json b = client.call("pane.split", {{"pane_id", a["id"]}, {"argv", {"cat"}}})["pane"];
  EXPECT_EQ(client.call("pane.rename", {{"pane_id", a["id"]}, {"name", "builder"}})["pane"]["name"],
            "builder");
  EXPECT_EQ(client.call_error("pane.rename", {{"pane_id", b["id"]}, {"name", "builder"}})["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.rename", {{"pane_id", b["id"]}, {"name", "Bad Name"}})["code"],
            "BAD_PARAMS");
  input(client, "builder", "by-name\n");
  wait_output(client, "builder", "by-name");
  EXPECT_EQ(get_pane(client, "builder")["id"], a["id"]);
  Json cleared = client.call("pane.rename", {{"pane_id", "builder"}})["pane"];
  EXPECT_FALSE(cleared.contains("name"));
}

TEST_F(PaneLayout, SwapAndMoveRearrangeWithoutTouchingProcesses) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json a = spawn(client, ws, {"cat"});
  Json b = client.call("pane.split", {{"pane_id", a["id"]}, {"argv", {"cat"}}})["pane"];
  Json tab2 = client.call("tab.create", {{"workspace_id", ws}})["tab"];
  Json c = spawn(client, ws, {"cat"}, {{"tab_id", tab2["id"]}});
  Json swapped = client.call("pane.swap", {{"pane_id", a["id"]}, {"target_pane_id", c["id"]}});
  ASSERT_EQ(swapped["tabs"].size(), 2u);
  EXPECT_EQ(swapped["tabs"][0]["layout"]["first"], leaf(c));
  EXPECT_EQ(swapped["tabs"][1]["layout"], leaf(a));
  EXPECT_EQ(get_pane(client, a["id"])["tab_id"], tab2["id"]);
  EXPECT_EQ(get_pane(client, a["id"])["pid"], a["pid"]);
  EXPECT_EQ(client.call_error("pane.swap", {{"pane_id", a["id"]}, {"target_pane_id", a["id"]}})["code"],
            "BAD_PARAMS");
  Json moved = client.call("pane.move", {{"pane_id", a["id"]}, {"target_pane_id", b["id"]},
                                         {"direction", "down"}});
  ASSERT_EQ(moved["tabs"].size(), 2u);
  EXPECT_TRUE(moved["tabs"][0]["layout"].is_null()) << "the tab left without panes stays, empty";
  EXPECT_EQ(moved["tabs"][1]["layout"]["second"]["dir"], "down");
  EXPECT_EQ(get_pane(client, a["id"])["tab_id"], a["tab_id"]);
  Json other_ws = make_workspace(client, "other");
  Json d = spawn(client, other_ws["id"], {"cat"});
  EXPECT_EQ(client.call_error("pane.move", {{"pane_id", d["id"]}, {"target_pane_id", b["id"]}})["code"],
            "BAD_PARAMS");
}

TEST_F(PaneLayout, SetLayoutAcceptsExactlyTheTabsPanes) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json a = spawn(client, ws, {"cat"});
  Json b = client.call("pane.split", {{"pane_id", a["id"]}, {"argv", {"cat"}}})["pane"];
  client.call("pane.rename", {{"pane_id", b["id"]}, {"name", "bee"}});
  Json layout = {{"type", "split"}, {"dir", "down"}, {"ratio", 0.99},
                 {"first", {{"type", "pane"}, {"pane_id", "bee"}}}, {"second", leaf(a)}};
  Json tab = client.call("tab.set_layout", {{"tab_id", a["tab_id"]}, {"layout", layout}})["tab"];
  EXPECT_EQ(tab["layout"]["first"], leaf(b));
  EXPECT_DOUBLE_EQ(tab["layout"]["ratio"].get<double>(), 0.95);
  EXPECT_EQ(client.call_error("tab.set_layout", {{"tab_id", a["tab_id"]}, {"layout", leaf(a)}})["code"],
            "BAD_PARAMS");
}

TEST_F(PaneLayout, CloseSignalsTheGroupAndRemovesThePaneOnceReaped) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json a = spawn(client, ws, {"cat"});
  Json b = client.call("pane.split", {{"pane_id", a["id"]}, {"argv", {"cat"}}})["pane"];
  EXPECT_TRUE(client.call("pane.close", {{"pane_id", b["id"]}, {"signal", "HUP"}})["closed"]);
  EXPECT_FALSE(pid_alive(b["pid"].get<pid_t>()));
  EXPECT_EQ(client.call_error("pane.get", {{"pane_id", b["id"]}})["code"], "NO_SUCH_PANE");
  Json tab = client.call("workspace.get", {{"workspace_id", ws}})["tabs"][0];
  EXPECT_EQ(tab["layout"], leaf(a));
  EXPECT_TRUE(wait_gone(b["ptyhost_pid"].get<pid_t>()));
  EXPECT_EQ(client.call_error("pane.close", {{"pane_id", a["id"]}, {"signal", "BOGUS"}})["code"],
            "BAD_PARAMS");
}

TEST_F(PaneLayout, ProgramIgnoringTermIsKilledAfterFiveSeconds) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "trap '' TERM; echo armed; while :; do sleep 0.05; done"});
  wait_output(client, pane["id"], "armed");
  const auto t0 = Clock::now();
  Json closed = call_within(client, "pane.close", {{"pane_id", pane["id"]}},
                            deadline_after(std::chrono::seconds(20)));
  EXPECT_TRUE(closed["closed"]);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(4500));
  EXPECT_FALSE(pid_alive(pane["pid"].get<pid_t>()));
}

TEST_F(PaneLayout, TabAndWorkspaceCloseWaitForEveryPane) {
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"pane.closed", "tab.closed", "workspace.closed"}}});
  const std::string ws = make_workspace(client)["id"];
  Json a = spawn(client, ws, {"cat"});
  Json b = client.call("pane.split", {{"pane_id", a["id"]}, {"argv", {"sleep", "1000"}}})["pane"];
  EXPECT_TRUE(client.call("tab.close", {{"tab_id", a["tab_id"]}, {"signal", "KILL"}})["closed"]);
  EXPECT_FALSE(pid_alive(a["pid"].get<pid_t>()));
  EXPECT_FALSE(pid_alive(b["pid"].get<pid_t>()));
  std::vector<std::string> names;
  while (names.size() < 3) {
    auto ev = watcher.next_event(deadline_after());
    ASSERT_TRUE(ev.has_value());
    names.push_back((*ev)["event"]);
  }
  EXPECT_EQ(names.back(), "tab.closed") << "panes first, the tab after";
  Json c = spawn(client, ws, {"cat"});
  EXPECT_TRUE(client.call("workspace.close", {{"workspace_id", ws}})["closed"]);
  EXPECT_FALSE(pid_alive(c["pid"].get<pid_t>()));
  EXPECT_EQ(client.call("server.status")["panes"], 0);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
