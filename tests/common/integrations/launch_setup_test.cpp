// tests/common/integrations/launch_setup_test.cpp: the setup before a direct
// agent launch: only the four agent executables get one; Claude without
// user settings and OpenCode --pure are disabled with nothing written;
// Codex is configured with a trust notice when newly written; overrides in
// the launch's env win and relative roots follow the launch directory; a
// failure is an `error` result that keeps the launch going.
#include "common/integrations/launch_setup.hpp"

#include <gtest/gtest.h>

#include "tests/common/integrations/temp_home.hpp"

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::AgentKind;
using protocol::IntegrationStatus;
using testing::fixture;
using testing::slurp;
using testing::spit;
using testing::TempHome;

class LaunchSetup : public ::testing::Test {
 protected:
  TempHome home;
  std::string relay = home.fake_relay();
  std::map<std::string, std::string> broker_vars{{"HOME", home.path()}};

  std::optional<protocol::Integration> launch(std::vector<std::string> argv,
                                              std::map<std::string, std::string> spawn_env = {},
                                              std::optional<std::string> explicit_home = std::nullopt) {
    LaunchSetupRequest request{std::move(argv), std::move(spawn_env), home / "project",
                               std::move(explicit_home), env(), relay};
    return prepare_launch_integration(request);
  }
  EnvLookup env() const {
    return [vars = broker_vars](std::string_view name) -> std::optional<std::string> {
      auto it = vars.find(std::string(name));
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  }
};

TEST_F(LaunchSetup, OnlyTheFourAgentExecutablesGetAnIntegration) {
  for (const char* program : {"bash", "/bin/sh", "agent", "/usr/bin/env", "node", "claude-wrapper", "pi"})
    EXPECT_FALSE(launch({program, "claude"}).has_value()) << program;
  EXPECT_EQ(launch_provider({"/opt/bin/cursor-agent"}), Provider::Cursor);
  EXPECT_EQ(launch_provider({"./codex"}), Provider::Codex);
  EXPECT_EQ(launch_provider({"opencode"}), Provider::Opencode);
  EXPECT_EQ(launch_provider({"claude"}), Provider::Claude);
  EXPECT_EQ(launch_provider({}), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(home / ".claude"));
}

TEST_F(LaunchSetup, ClaudeIsConfiguredInItsUserSettings) {
  auto result = launch({"/usr/local/bin/claude", "--model", "opus"});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->agent, AgentKind::Claude);
  EXPECT_EQ(result->status, IntegrationStatus::Configured);
  EXPECT_TRUE(result->changed);
  EXPECT_EQ(result->file, home / ".claude/settings.json");
  EXPECT_FALSE(result->notice.has_value());
  auto again = launch({"claude"});
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(again->changed);
}

TEST_F(LaunchSetup, ClaudeWithoutUserSettingsIsDisabledAndWritesNothing) {
  for (std::vector<std::string> argv :
       {std::vector<std::string>{"claude", "--bare"}, {"claude", "--setting-sources", "project,local"},
        {"claude", "--setting-sources=project"}, {"claude", "--setting-sources"}}) {
    auto result = launch(argv);
    ASSERT_TRUE(result.has_value());
    EXPECT_EQ(result->status, IntegrationStatus::Disabled) << argv.back();
    EXPECT_FALSE(result->changed);
    EXPECT_TRUE(result->notice.has_value());
  }
  EXPECT_FALSE(std::filesystem::exists(home / ".claude"));
  auto with_user = launch({"claude", "--setting-sources", "user,project"});
  ASSERT_TRUE(with_user.has_value());
  EXPECT_EQ(with_user->status, IntegrationStatus::Configured);
}

TEST_F(LaunchSetup, ArgumentsAfterTheEndOfOptionsDoNotDisable) {
  auto result = launch({"claude", "--", "--bare"});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->status, IntegrationStatus::Configured);
}

TEST_F(LaunchSetup, OpencodePureIsDisabledAndWritesNothing) {
  auto result = launch({"opencode", "--pure"});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->agent, AgentKind::Opencode);
  EXPECT_EQ(result->status, IntegrationStatus::Disabled);
  EXPECT_FALSE(std::filesystem::exists(home / ".config/opencode"));
  auto plain = launch({"opencode"});
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->status, IntegrationStatus::Configured);
  EXPECT_EQ(plain->file, home / ".config/opencode/plugins/signaltty.js");
}

TEST_F(LaunchSetup, CodexIsConfiguredWithATrustNoticeOnlyWhenNewlyWritten) {
  auto first = launch({"codex"});
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, IntegrationStatus::Configured);
  EXPECT_TRUE(first->changed);
  ASSERT_TRUE(first->notice.has_value());
  EXPECT_NE(first->notice->find("/hooks"), std::string::npos);
  EXPECT_NE(first->notice->find("codex --no-daemon"), std::string::npos);
  auto second = launch({"codex", "resume", "abc"});
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status, IntegrationStatus::Configured);
  EXPECT_FALSE(second->changed);
  EXPECT_FALSE(second->notice.has_value());
  EXPECT_FALSE(std::filesystem::exists(home / ".codex/config.toml"));
}

// plugins.md: a Codex aimed at an explicit remote endpoint keeps its
// command; its hooks may be written, but it is `disabled` with a notice.
TEST_F(LaunchSetup, ARemoteCodexIsDisabledWithANoticeThoughItsHooksAreWritten) {
  auto remote = launch({"codex", "--remote", "ws://127.0.0.1:1455"});
  ASSERT_TRUE(remote.has_value());
  EXPECT_EQ(remote->status, IntegrationStatus::Disabled);
  EXPECT_TRUE(remote->changed);
  EXPECT_EQ(remote->file, home / ".codex/hooks.json");
  ASSERT_TRUE(remote->notice.has_value());
  EXPECT_NE(remote->notice->find("--remote"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(home / ".codex/hooks.json"));
  auto later = codex_disabled(*launch({"codex"}), "no flag");
  EXPECT_EQ(later.status, IntegrationStatus::Disabled);
  EXPECT_EQ(later.notice, "no flag");
  EXPECT_EQ(later.file, home / ".codex/hooks.json");
}

TEST_F(LaunchSetup, TheLaunchsOverrideWinsAndARelativeRootFollowsTheLaunchDirectory) {
  broker_vars["CODEX_HOME"] = home / "broker-codex";
  auto result = launch({"codex"}, {{"CODEX_HOME", "local-codex"}});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->file, home / "project/local-codex/hooks.json");
  EXPECT_TRUE(std::filesystem::exists(home / "project/local-codex/hooks.json"));
  EXPECT_FALSE(std::filesystem::exists(home / "broker-codex"));
}

TEST_F(LaunchSetup, AnExplicitHomeIgnoresTheBrokersOwnOverrides) {
  broker_vars["CLAUDE_CONFIG_DIR"] = home / "broker-claude";
  auto result = launch({"claude"}, {}, home / "iso");
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->file, home / "iso/.claude/settings.json");
  EXPECT_FALSE(std::filesystem::exists(home / "broker-claude"));
}

TEST_F(LaunchSetup, ASetupFailureIsAnErrorThatKeepsTheTerminalUsable) {
  spit(home / ".cursor/hooks.json", "{ not json");
  auto result = launch({"cursor-agent"});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->agent, AgentKind::Cursor);
  EXPECT_EQ(result->status, IntegrationStatus::Error);
  EXPECT_FALSE(result->changed);
  ASSERT_TRUE(result->notice.has_value());
  EXPECT_NE(result->notice->find("stays usable"), std::string::npos);
  EXPECT_EQ(slurp(home / ".cursor/hooks.json"), "{ not json");
}

TEST_F(LaunchSetup, AMissingRelayIsAnErrorNotAFailedLaunch) {
  LaunchSetupRequest request{{"claude"}, {}, home / "project", std::nullopt, env(), home / "bin/none"};
  auto result = prepare_launch_integration(request);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->status, IntegrationStatus::Error);
  EXPECT_FALSE(std::filesystem::exists(home / ".claude/settings.json"));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
