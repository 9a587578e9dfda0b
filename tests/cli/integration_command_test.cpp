// tests/cli/integration_command_test.cpp: build/bin/signaltty integration
// install|uninstall|status run as a process against temporary homes: what
// it writes (hooks that run the signaltty-hookrelay beside it), its human
// and --json reports, its exit statuses, --home against the provider
// overrides, and that it needs no broker.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Json = nlohmann::ordered_json;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string make_temp_dir() {
  char templ[] = "/tmp/signaltty-integration-cli-XXXXXX";
  const char* made = ::mkdtemp(templ);
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  return made;
}

struct Ran {
  int status = -1;
  std::string out, err;
};

class IntegrationCommandCli : public ::testing::Test {
 protected:
  IntegrationCommandCli() { std::filesystem::create_directories(home); }
  ~IntegrationCommandCli() override { std::filesystem::remove_all(dir); }

  // build/bin/signaltty <args> with only `env` (HOME=home unless given).
  Ran run(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    EXPECT_TRUE(home.starts_with("/tmp/")) << home;
    env.try_emplace("HOME", home);
    env.try_emplace("PATH", "/usr/bin:/bin");
    env.try_emplace("SIGNALTTY_SOCKET", dir + "/no-broker.sock");
    const std::string out = dir + "/out", err = dir + "/err";
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), STDOUT_FILENO);
      ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), STDERR_FILENO);
      if (::chdir(dir.c_str()) != 0) ::_exit(126);
      std::vector<std::string> env_text;
      for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
      std::vector<char*> envp, argv;
      for (auto& e : env_text) envp.push_back(e.data());
      envp.push_back(nullptr);
      std::string program = SIGNALTTY_CLI;
      argv.push_back(program.data());
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execve(program.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return Ran{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
  }

  std::string relay() const {
    return std::filesystem::path(SIGNALTTY_CLI).parent_path() / "signaltty-hookrelay";
  }

  std::string dir = make_temp_dir();  // before home, which is inside it
  std::string home = dir + "/home";
};

TEST_F(IntegrationCommandCli, InstallWritesHooksThatRunTheRelayBesideTheCli) {
  const std::string file = home + "/.claude/settings.json";
  spit(file, slurp(std::string(SIGNALTTY_FIXTURES_DIR) + "/integrations/claude-settings.json"));
  Ran r = run({"integration", "install", "claude"});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(r.out, "claude: hooks installed in " + file + "\n");
  const Json doc = Json::parse(slurp(file));
  EXPECT_EQ(doc["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            "'" + relay() + "' --agent claude --event SessionStart # signaltty hook-event (managed)");
  EXPECT_EQ(doc["model"], "sonnet");
}

TEST_F(IntegrationCommandCli, InstallStatusUninstallRoundTripKeepsTheUsersFile) {
  const std::string file = home + "/.codex/hooks.json";
  const std::string original = slurp(std::string(SIGNALTTY_FIXTURES_DIR) + "/integrations/codex-hooks.json");
  spit(file, original);
  Ran before = run({"integration", "status", "codex", "--json"});
  ASSERT_EQ(before.status, kExitOk) << before.err;
  EXPECT_EQ(Json::parse(before.out)["installed"], false);
  ASSERT_EQ(run({"integration", "install", "codex"}).status, kExitOk);
  Ran after = run({"integration", "status", "codex", "--json"});
  ASSERT_EQ(after.status, kExitOk) << after.err;
  const Json st = Json::parse(after.out);
  EXPECT_EQ(st["agent"], "codex");
  EXPECT_EQ(st["file"], file);
  EXPECT_EQ(st["installed"], true);
  EXPECT_EQ(st["stale"], false);
  EXPECT_EQ(st["missing_events"], Json::array());
  Ran removed = run({"integration", "uninstall", "codex"});
  ASSERT_EQ(removed.status, kExitOk) << removed.err;
  EXPECT_EQ(removed.out, "codex: hooks removed from " + file + "\n");
  EXPECT_EQ(Json::parse(slurp(file)), Json::parse(original));
  EXPECT_FALSE(std::filesystem::exists(home + "/.codex/config.toml"));
}

TEST_F(IntegrationCommandCli, ASecondInstallSaysUnchangedInJson) {
  ASSERT_EQ(run({"integration", "install", "cursor"}).status, kExitOk);
  struct stat first {}, second {};
  ASSERT_EQ(::stat((home + "/.cursor/hooks.json").c_str(), &first), 0);
  Ran again = run({"integration", "install", "cursor", "--json"});
  ASSERT_EQ(again.status, kExitOk) << again.err;
  const Json result = Json::parse(again.out);
  EXPECT_EQ(result["changed"], false);
  EXPECT_EQ(result["agent"], "cursor");
  EXPECT_FALSE(result.contains("notice"));
  ASSERT_EQ(::stat((home + "/.cursor/hooks.json").c_str(), &second), 0);
  EXPECT_EQ(first.st_ino, second.st_ino);
  EXPECT_EQ(first.st_mtim.tv_nsec, second.st_mtim.tv_nsec);
}

TEST_F(IntegrationCommandCli, CodexInstallAsksToTrustTheHooks) {
  Ran r = run({"integration", "install", "codex"});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_NE(r.err.find("notice: "), std::string::npos);
  EXPECT_NE(r.err.find("/hooks"), std::string::npos);
  Ran json = run({"integration", "install", "codex", "--json"});
  EXPECT_FALSE(Json::parse(json.out).contains("notice"));
}

TEST_F(IntegrationCommandCli, AMalformedFileIsAnErrorAndStaysAsItWas) {
  const std::string file = home + "/.claude/settings.json";
  spit(file, "{\"hooks\": [}");
  Ran r = run({"integration", "install", "claude"});
  EXPECT_EQ(r.status, kExitError);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("error: IO_ERROR: " + file + ": not valid JSON"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(file), "{\"hooks\": [}");
}

TEST_F(IntegrationCommandCli, AnUnknownProviderIsAUsageError) {
  Ran r = run({"integration", "install", "grok"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(run({"integration", "install"}).status, kExitUsage);
  EXPECT_EQ(run({"integration"}).status, kExitUsage);
}

TEST_F(IntegrationCommandCli, ProviderOverridesMoveTheFileAndHomeIgnoresThem) {
  const std::string claude_dir = dir + "/claude-config";
  Ran moved = run({"integration", "install", "claude"}, {{"CLAUDE_CONFIG_DIR", claude_dir}});
  ASSERT_EQ(moved.status, kExitOk) << moved.err;
  EXPECT_TRUE(std::filesystem::exists(claude_dir + "/settings.json"));
  const std::string iso = dir + "/iso";
  Ran isolated = run({"integration", "install", "claude", "--home", iso},
                     {{"CLAUDE_CONFIG_DIR", dir + "/elsewhere"}});
  ASSERT_EQ(isolated.status, kExitOk) << isolated.err;
  EXPECT_TRUE(std::filesystem::exists(iso + "/.claude/settings.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/elsewhere"));
}

TEST_F(IntegrationCommandCli, OpencodeFollowsXdgConfigHomeEvenWithHome) {
  Ran r = run({"integration", "install", "opencode", "--home", "iso"},
              {{"XDG_CONFIG_HOME", dir + "/xdg"}, {"OPENCODE_CONFIG_DIR", dir + "/ignored"}});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/xdg/opencode/plugins/signaltty.js"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/ignored"));
  Ran st = run({"integration", "status", "opencode", "--home", "iso"}, {{"XDG_CONFIG_HOME", dir + "/xdg"}});
  EXPECT_EQ(st.out, "opencode: installed\n  file: " + dir + "/xdg/opencode/plugins/signaltty.js\n");
}

TEST_F(IntegrationCommandCli, StatusNamesMissingEventsAndStaleHooks) {
  const std::string file = home + "/.claude/settings.json";
  spit(file, R"({"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command",
      "command": "signaltty hook-event --agent claude --event Stop --payload-stdin"}]}]}})");
  Ran partial = run({"integration", "status", "claude"});
  ASSERT_EQ(partial.status, kExitOk) << partial.err;
  EXPECT_EQ(partial.out,
            "claude: not installed (missing: SessionStart, UserPromptSubmit, Notification, "
            "PermissionRequest, SessionEnd)\n  file: " + file + "\n");
  const Json st = Json::parse(run({"integration", "status", "claude", "--json"}).out);
  EXPECT_EQ(st["stale"], true);
  ASSERT_EQ(run({"integration", "install", "claude"}).status, kExitOk);
  EXPECT_EQ(run({"integration", "status", "claude"}).out, "claude: installed\n  file: " + file + "\n");
}
}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
