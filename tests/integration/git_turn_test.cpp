// tests/integration/git_turn_test.cpp: turn baselines through the real
// broker and gitworker: an agent.working that does not come from blocked
// has the checkout captured and emits workspace.turn_started; turn-scoped
// diffs then show only what changed since, and a working that comes back
// from blocked keeps the baseline. A workspace outside any repository gets
// no turn.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// git in `dir` with a fixed identity and no user configuration.
void git(const std::string& dir, const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<std::string> all{"git", "-C", dir, "-c", "user.name=t", "-c",
                                 "user.email=t@example.invalid"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    ::execvp("git", argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "git " << args.front();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class GitTurns : public PaneTest {
 protected:
  std::string repo() {
    const std::string dir = dirs_.scratch("repo");
    std::filesystem::create_directories(dir);
    git(dir, {"init", "-q", "-b", "main"});
    write(dir + "/a.txt", "one\ntwo\n");
    git(dir, {"add", "-A"});
    git(dir, {"commit", "-q", "-m", "first"});
    return dir;
  }
  // The next workspace.turn_started on `events`.
  Json next_turn(Client& events) {
    const auto deadline = deadline_after(kStepTimeout);
    while (auto ev = events.next_event(deadline))
      if ((*ev)["event"] == "workspace.turn_started") return (*ev)["payload"];
    ADD_FAILURE() << "no workspace.turn_started";
    return Json();
  }
  void report(Client& client, const std::string& pane, const std::string& event) {
    client.call("hook-event", {{"agent", "claude"}, {"event", event}, {"pane_id", pane}});
  }
};

TEST_F(GitTurns, AWorkingTurnCapturesTheCheckoutAndTurnDiffsShowOnlyLaterChanges) {
  start();
  const std::string dir = repo();
  write(dir + "/a.txt", "one\ntwo\nbefore the turn\n");  // not part of the turn
  Client client = connect();
  Client events = connect();
  events.call("subscribe", {{"events", Json::array({"workspace.turn_started"})}});
  const Json ws = client.call("workspace.create", {{"name", "r"}, {"cwd", dir}})["workspace"];
  const std::string pane = spawn(client, ws["id"], {"cat"})["id"];
  report(client, pane, "UserPromptSubmit");
  const Json turn = next_turn(events);
  EXPECT_EQ(turn["workspace_id"], ws["id"]);
  EXPECT_EQ(turn["pane_id"], pane);
  ASSERT_TRUE(turn["started_at"].is_string());

  write(dir + "/a.txt", "one\ntwo\nbefore the turn\nduring the turn\n");
  write(dir + "/new.txt", "x\ny\n");
  const Json diff = client.call("workspace.diff", {{"workspace_id", ws["id"]}, {"scope", "turn"}});
  EXPECT_EQ(diff["turn"]["pane_id"], pane);
  EXPECT_EQ(diff["turn"]["started_at"], turn["started_at"]);
  ASSERT_EQ(diff["files"].size(), 2u) << diff.dump();
  EXPECT_EQ(diff["files"][0]["path"], "a.txt");
  EXPECT_EQ(diff["files"][0]["added"], 1);  // only the line written during the turn
  EXPECT_EQ(diff["files"][0]["removed"], 0);
  EXPECT_EQ(diff["files"][1]["path"], "new.txt");
  // Against HEAD both edits of a.txt count.
  const Json head = client.call("workspace.diff", {{"workspace_id", ws["id"]}});
  EXPECT_EQ(head["files"][0]["added"], 2);
  const Json file = client.call("workspace.file_diff",
                                {{"workspace_id", ws["id"]}, {"path", "a.txt"}, {"scope", "turn"}});
  EXPECT_EQ(file["content"]["kind"], "text");
  EXPECT_EQ(file["content"]["hunks"][0]["new_start"], 1);

  // Blocked, then working again: the same turn, no new baseline.
  client.call("hook-event", {{"agent", "codex"},
                             {"event", "PermissionRequest"},
                             {"pane_id", pane},
                             {"decision", {{"id", "d1"},
                                           {"prompt", "Run?"},
                                           {"options", Json::array({{{"id", "y"}, {"label", "Y"}}})}}}});
  client.call("decision.answer", {{"pane_id", pane}, {"decision_id", "d1"}, {"option_id", "y"}});
  const Json again = client.call("workspace.diff", {{"workspace_id", ws["id"]}, {"scope", "turn"}});
  EXPECT_EQ(again["turn"]["started_at"], turn["started_at"]);
  EXPECT_EQ(again["files"].size(), 2u);
}

TEST_F(GitTurns, AFailedCaptureStillStartsTheTurnAndTurnReadsReportIt) {
  start();
  const std::string dir = repo();
  write(dir + "/.git/index", "not an index at all");  // the capture cannot read it
  Client client = connect();
  Client events = connect();
  events.call("subscribe", {{"events", Json::array({"workspace.turn_started"})}});
  const Json ws = client.call("workspace.create", {{"name", "r"}, {"cwd", dir}})["workspace"];
  const std::string pane = spawn(client, ws["id"], {"cat"})["id"];
  report(client, pane, "UserPromptSubmit");
  const Json turn = next_turn(events);
  EXPECT_EQ(turn["pane_id"], pane);
  const Json diff =
      client.call_error("workspace.diff", {{"workspace_id", ws["id"]}, {"scope", "turn"}});
  EXPECT_EQ(diff["code"], "IO_ERROR");
  EXPECT_NE(diff["message"].get<std::string>().find("could not be captured"), std::string::npos)
      << diff.dump();
  const Json file = client.call_error(
      "workspace.file_diff", {{"workspace_id", ws["id"]}, {"path", "a.txt"}, {"scope", "turn"}});
  EXPECT_EQ(file["code"], "IO_ERROR");
}

TEST_F(GitTurns, AWorkspaceOutsideAnyRepositoryHasNoTurn) {
  start();
  Client client = connect();
  const Json ws = make_workspace(client);
  const std::string pane = spawn(client, ws["id"], {"cat"})["id"];
  report(client, pane, "UserPromptSubmit");
  EXPECT_EQ(get_pane(client, pane)["lifecycle"], "working");
  const Json error = client.call_error("workspace.diff", {{"workspace_id", ws["id"]}, {"scope", "turn"}});
  EXPECT_EQ(error["code"], "BAD_PARAMS");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
