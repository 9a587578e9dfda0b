// tests/integration/skill_test.cpp: `signaltty skill` (docs/skill.md) is a
// walkthrough that works: every ```sh block it prints runs, in order, as one
// `set -eu` script inside a real pane's environment, against a real broker
// with a fake agent to drive, and does what it says.
// Runs in: the integration test binary.
#include "tests/integration/fake_agent.hpp"
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Skill = PaneTest;

// The ```sh blocks of a Markdown text, joined in order.
std::string shell_blocks(const std::string& markdown) {
  std::string out;
  bool inside = false;
  std::size_t blocks = 0;
  std::size_t start = 0;
  while (start < markdown.size()) {
    std::size_t end = markdown.find('\n', start);
    if (end == std::string::npos) end = markdown.size();
    const std::string line = markdown.substr(start, end - start);
    start = end + 1;
    if (!inside && line == "```sh") {
      inside = true;
      ++blocks;
    } else if (inside && line == "```") {
      inside = false;
    } else if (inside) {
      out += line + "\n";
    }
  }
  if (blocks == 0) throw HarnessError("the skill has no sh blocks");
  return out;
}

TEST_F(Skill, EveryCommandLineOfTheSkillRunsAgainstTheRealCli) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string self = spawn(client, ws, {"cat"})["id"];
  const std::string agent =
      client.call("pane.split", {{"pane_id", self},
                                 {"argv", Json::array({"/bin/sh", "-c",
                                                       fake_agent_script(program_path(
                                                           "signaltty-hookrelay"))})}})["pane"]["id"];
  const RunResult printed = run_program(dirs_, {program_path("signaltty"), "skill"}, base_env(dirs_));
  ASSERT_EQ(printed.status.code, 0) << printed.err;
  ASSERT_EQ(printed.out.substr(0, 11), "# signaltty");
  const std::string script = "set -eu\n" + shell_blocks(printed.out);

  std::vector<std::string> env = base_env(dirs_);
  for (std::string& e : env)
    if (e.starts_with("PATH=")) e = "PATH=" + std::string(SIGNALTTY_BIN_DIR) + ":" + e.substr(5);
  env.push_back("SIGNALTTY_PANE=" + self);
  env.push_back("AGENT=" + agent);
  const RunResult ran = run_program(dirs_, {"/bin/sh", "-c", script}, env, {},
                                    deadline_after(std::chrono::seconds(60)));
  EXPECT_EQ(ran.status.code, 0) << "stdout:\n" << ran.out << "\nstderr:\n" << ran.err;

  // It did what it says: the agent took the prompt, its permission was
  // answered, it finished; the person was notified; the opened pane closed.
  const Json now = get_pane(client, agent);
  EXPECT_EQ(now["lifecycle"], "done");
  EXPECT_FALSE(now.contains("pending_decision"));
  wait_output(client, agent, "\"behavior\":\"allow\"");
  const Json pending = client.call("attention.pending");
  bool notified = false;
  for (const Json& p : pending["panes"])
    notified = notified || (p["pane_id"] == self && p["attention"] == "unread");
  EXPECT_TRUE(notified) << pending.dump() << "\n" << ran.out;
  EXPECT_EQ(client.call("workspace.get", {{"workspace_id", ws}})["panes"].size(), 2u);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
