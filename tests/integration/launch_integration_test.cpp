// tests/integration/launch_integration_test.cpp: a supported agent started
// directly by pane.spawn gets its hooks prepared before it runs (docs/rules.md
// "Agent integrations"): the reply's `integration`, the agent's config file
// under the broker's HOME or the spawn env's config dir (recorded as the
// pane's config_env), `disabled` for Claude --bare, nothing for a shell.
// Runs in: the integration test binary.
#include <sys/stat.h>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {

class LaunchIntegration : public PaneTest {
 protected:
  std::string fake_agent(const std::string& name) {
    const std::string dir = dirs_.scratch("agent-bin");
    ::mkdir(dir.c_str(), 0700);
    const std::string path = dir + "/" + name;
    write_text_file(path, "#!/bin/sh\nexec cat\n");
    ::chmod(path.c_str(), 0700);
    return path;
  }
  Json launch(Client& client, const std::string& ws, const std::vector<std::string>& argv,
              Json extra = Json::object()) {
    extra["workspace_id"] = ws;
    extra["argv"] = argv;
    return client.call("pane.spawn", extra);
  }
};

TEST_F(LaunchIntegration, ADirectlyLaunchedClaudeGetsItsHooksBeforeItRuns) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string claude = fake_agent("claude");
  const Json first = launch(client, ws, {claude});
  ASSERT_TRUE(first.contains("integration")) << first;
  EXPECT_EQ(first["integration"]["agent"], "claude");
  EXPECT_EQ(first["integration"]["status"], "configured");
  EXPECT_EQ(first["integration"]["changed"], true);
  const std::string settings = dirs_.home() + "/.claude/settings.json";
  EXPECT_EQ(first["integration"]["file"], settings);
  const Json written = Json::parse(read_text_file(settings));
  const std::string command = written["hooks"]["PermissionRequest"][0]["hooks"][0]["command"];
  EXPECT_NE(command.find("signaltty-hookrelay' --agent claude --event PermissionRequest "
                         "--wait-for-answer"),
            std::string::npos)
      << command;
  EXPECT_EQ(first["pane"]["agent"]["kind"], "claude");

  const Json again = client.call("pane.split", {{"pane_id", first["pane"]["id"]},
                                                {"argv", Json::array({claude})}});
  EXPECT_EQ(again["integration"]["changed"], false);
}

TEST_F(LaunchIntegration, TheSpawnEnvsConfigDirWinsAndIsRecorded) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const Json launched = launch(client, ws, {fake_agent("claude")},
                               {{"env", {{"CLAUDE_CONFIG_DIR", "claude-cfg"}}}});
  const std::string dir = dirs_.home() + "/claude-cfg";
  EXPECT_EQ(launched["integration"]["file"], dir + "/settings.json");
  EXPECT_TRUE(path_exists(dir + "/settings.json"));
  EXPECT_EQ(launched["pane"]["agent"]["config_env"]["CLAUDE_CONFIG_DIR"], dir);
}

TEST_F(LaunchIntegration, BareClaudeIsDisabledAndAShellHasNoIntegration) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const Json bare = launch(client, ws, {fake_agent("claude"), "--bare"});
  EXPECT_EQ(bare["integration"]["status"], "disabled");
  EXPECT_FALSE(path_exists(dirs_.home() + "/.claude/settings.json"));
  const Json shell = client.call("pane.split", {{"pane_id", bare["pane"]["id"]},
                                                {"argv", Json::array({"cat"})}});
  EXPECT_FALSE(shell.contains("integration"));
}

}  // namespace
}  // namespace signaltty::itest
