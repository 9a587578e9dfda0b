// tests/integration/launch_integration_test.cpp: a supported agent started
// directly by pane.spawn gets its hooks prepared before it runs (docs/rules.md
// "Agent integrations"): the reply's `integration`, the agent's config file
// under the broker's HOME or the spawn env's config dir (recorded as the
// pane's config_env), `disabled` for Claude --bare, nothing for a shell;
// an interactive Codex runs with --no-daemon when its probe passes (the
// stored argv unchanged), is `disabled` when it fails, and a remote or
// utility Codex is never probed.
// Runs in: the integration test binary.
#include <sys/stat.h>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

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
  // A `codex` that answers `--no-daemon --version` (exit 0) or refuses it
  // as clap does (exit 2), logging each probe; otherwise it prints its
  // arguments and becomes cat.
  std::string fake_codex(bool has_no_daemon) {
    const std::string dir = dirs_.scratch(has_no_daemon ? "codex-new" : "codex-old");
    ::mkdir(dir.c_str(), 0700);
    const std::string path = dir + "/codex";
    const std::string probe =
        has_no_daemon ? "echo 'codex-cli 0.171.0'; exit 0"
                      : "echo \"error: unexpected argument '--no-daemon' found\" >&2; exit 2";
    write_text_file(path, "#!/bin/sh\n"
                          "if [ \"$1\" = --no-daemon ] && [ \"$2\" = --version ]; then\n"
                          "  echo probe >> '" + probes() + "'; " + probe + "\n"
                          "fi\n"
                          "echo \"ARGV:$*:END\"\n"
                          "exec cat\n");
    ::chmod(path.c_str(), 0700);
    return path;
  }
  std::string probes() const { return dirs_.scratch("codex-probes"); }
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

TEST_F(LaunchIntegration, AnInteractiveCodexRunsWithNoDaemonWhenItsProbePasses) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string codex = fake_codex(true);
  const Json launched = launch(client, ws, {codex, "resume", "--last"});
  EXPECT_EQ(launched["integration"]["agent"], "codex");
  EXPECT_EQ(launched["integration"]["status"], "configured");
  const std::string id = launched["pane"]["id"];
  wait_output(client, id, "ARGV:--no-daemon resume --last:END");
  EXPECT_EQ(launched["pane"]["argv"], Json::array({codex, "resume", "--last"}));
  EXPECT_EQ(get_pane(client, id)["argv"], Json::array({codex, "resume", "--last"}));
  EXPECT_EQ(read_text_file(probes()), "probe\n");
}

TEST_F(LaunchIntegration, ACodexWithoutTheFlagKeepsItsCommandAndIsDisabled) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const Json launched = launch(client, ws, {fake_codex(false)});
  EXPECT_EQ(launched["integration"]["status"], "disabled");
  EXPECT_EQ(launched["integration"]["file"], dirs_.home() + "/.codex/hooks.json");
  const std::string notice = launched["integration"]["notice"];
  EXPECT_NE(notice.find("--no-daemon"), std::string::npos) << notice;
  wait_output(client, launched["pane"]["id"], "ARGV::END");
  EXPECT_EQ(read_text_file(probes()), "probe\n");
}

TEST_F(LaunchIntegration, RemoteAndUtilityCodexLaunchesAreNeverProbed) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string codex = fake_codex(true);
  const Json remote = launch(client, ws, {codex, "--remote", "ws://127.0.0.1:1"});
  EXPECT_EQ(remote["integration"]["status"], "disabled");
  const std::string notice = remote["integration"]["notice"];
  EXPECT_NE(notice.find("--remote"), std::string::npos) << notice;
  wait_output(client, remote["pane"]["id"], "ARGV:--remote ws://127.0.0.1:1:END");
  const Json utility = client.call("pane.split", {{"pane_id", remote["pane"]["id"]},
                                                  {"argv", Json::array({codex, "exec", "hi"})}});
  EXPECT_EQ(utility["integration"]["status"], "configured");
  wait_output(client, utility["pane"]["id"], "ARGV:exec hi:END");
  EXPECT_FALSE(path_exists(probes()));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
