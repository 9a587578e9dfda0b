// tests/integration/close_race_test.cpp: workspace.close and tab.close
// racing pane launches on the same workspace from another connection
// (docs/rules.md (Client protocol): launch and publication complete before a concurrent
// close can remove the tab or workspace; docs/rules.md, decision 17: a pane is
// removed only once its child is reaped). Whatever the interleaving, no
// ptyhost or program the test started outlives the close without a pane
// record, and every launch either published a pane the close then closed
// or was refused.
// Runs in: the integration test binary.
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>
#include <set>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using CloseRace = PaneTest;

constexpr int kRounds = 3;
constexpr int kLaunchesPerRound = 3;

// A pane that takes a moment to go after TERM, so launches in flight can
// publish while the close waits for it.
const std::vector<std::string> kSlowToClose = {
    "/bin/sh", "-c", "trap 'sleep 1; exit 0' TERM; echo ready; sleep 1000 & wait"};

const std::vector<std::string> kSleeper = {"sleep", "1000"};

// Refusals a launch may meet when the close was ordered first.
bool refused_by_close(const Json& response) {
  static const std::set<std::string> kCodes{"NO_SUCH_WORKSPACE", "NO_SUCH_TAB", "NO_SUCH_PANE"};
  return kCodes.contains(error_code(response));
}

class CloseRaceTest : public CloseRace {
 protected:
  // Sends the launches and, right behind them on another connection, the
  // close; checks the close's answer and every launch's.
  void race(Client& launcher, Client& closer, std::string_view launch_method,
            const std::vector<Json>& launches, std::string_view close_method,
            const Json& close_params) {
    std::vector<Json> ids;
    for (const Json& params : launches) ids.push_back(launcher.send_request(launch_method, params));
    const Json closed = closer.request(close_method, close_params, deadline_after(kStepTimeout * 2));
    ASSERT_TRUE(is_ok(closed)) << closed.dump();
    EXPECT_EQ(closed["result"], Json({{"closed", true}}));
    for (const Json& id : ids) {
      const Json response = launcher.await_response(id, deadline_after(kStepTimeout * 2));
      if (is_ok(response)) {
        published_.push_back(response["result"]["pane"]);
      } else {
        EXPECT_TRUE(refused_by_close(response)) << response.dump();
      }
    }
  }

  // No process of ours outlives the closes: every one belonged to a pane
  // of a closed workspace or tab.
  void expect_nothing_left() {
    const bool gone = wait_until([this] { return leftovers().empty(); }, deadline_after());
    EXPECT_TRUE(gone) << leftovers().size() << " process(es) left without a pane record; "
                      << published_.size() << " launch(es) published";
    for (const Json& pane : published_) {
      EXPECT_FALSE(pid_alive(pane["pid"].get<pid_t>())) << pane.dump();
      EXPECT_FALSE(pid_alive(pane["ptyhost_pid"].get<pid_t>())) << pane.dump();
    }
  }

  Json slow_pane(Client& client, const std::string& ws) {
    Json pane = spawn(client, ws, kSlowToClose);
    wait_output(client, pane["id"], "ready");
    return pane;
  }

  std::vector<Json> published_;
};

TEST_F(CloseRaceTest, WorkspaceCloseRacingSpawnsLeavesNoProcessWithoutAPaneRecord) {
  start();
  Client launcher = connect();
  Client closer = connect();
  for (int round = 0; round < kRounds; ++round) {
    const std::string ws = make_workspace(launcher, "race" + std::to_string(round))["id"];
    slow_pane(launcher, ws);
    std::vector<Json> spawns;
    for (int i = 0; i < kLaunchesPerRound; ++i) {
      const std::string tab = launcher.call("tab.create", {{"workspace_id", ws}})["tab"]["id"];
      spawns.push_back({{"workspace_id", ws}, {"tab_id", tab}, {"argv", kSleeper}});
    }
    race(launcher, closer, "pane.spawn", spawns, "workspace.close", {{"workspace_id", ws}});
    EXPECT_EQ(error_code(closer.request("workspace.get", {{"workspace_id", ws}})),
              "NO_SUCH_WORKSPACE");
    const Json listed = closer.call("workspace.list");
    for (const Json& w : listed["workspaces"]) EXPECT_NE(w["id"], ws);
  }
  expect_nothing_left();
}

TEST_F(CloseRaceTest, TabCloseRacingSplitsLeavesNoProcessWithoutAPaneRecord) {
  start();
  Client launcher = connect();
  Client closer = connect();
  const std::string ws = make_workspace(launcher)["id"];
  for (int round = 0; round < kRounds; ++round) {
    const Json anchor = slow_pane(launcher, ws);
    std::vector<Json> splits(kLaunchesPerRound,
                             Json{{"pane_id", anchor["id"]}, {"argv", kSleeper}});
    race(launcher, closer, "pane.split", splits, "tab.close", {{"tab_id", anchor["tab_id"]}});
    const Json left = closer.call("workspace.get", {{"workspace_id", ws}});
    EXPECT_TRUE(left["panes"].empty()) << left.dump();
    for (const Json& tab : left["tabs"]) EXPECT_NE(tab["id"], anchor["tab_id"]);
  }
  expect_nothing_left();
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
