// tests/common/integrations/hook_command_test.cpp: the managed hook command
// and what counts as ours (current, stale and legacy forms).
#include "common/integrations/hook_command.hpp"

#include <gtest/gtest.h>

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(HookCommand, QuotesTheRelayPathAndEndsWithTheManagedSuffix) {
  auto command = managed_command("/opt/st/bin/signaltty-hookrelay", Provider::Claude, "Stop");
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(*command,
            "'/opt/st/bin/signaltty-hookrelay' --agent claude --event Stop # signaltty hook-event (managed)");
}

TEST(HookCommand, OnlyClaudeAndCodexPermissionRequestsWaitForAnAnswer) {
  for (auto provider : {Provider::Claude, Provider::Codex}) {
    auto waiting = managed_command("/r", provider, "PermissionRequest");
    ASSERT_TRUE(waiting.ok());
    EXPECT_NE(waiting->find(" --event PermissionRequest --wait-for-answer # signaltty"), std::string::npos);
    EXPECT_EQ(hook_timeout_secs(provider, "PermissionRequest"), 125);
  }
  auto cursor = managed_command("/r", Provider::Cursor, "stop");
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(cursor->find("--wait-for-answer"), std::string::npos);
  EXPECT_EQ(hook_timeout_secs(Provider::Codex, "Stop"), 3);
  EXPECT_EQ(hook_timeout_secs(Provider::Claude, "Stop"), 10);
  EXPECT_EQ(hook_timeout_secs(Provider::Cursor, "stop"), 10);
}

TEST(HookCommand, NeverEmitsPayloadStdin) {
  auto command = managed_command("/r", Provider::Codex, "SessionStart");
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(command->find("--payload-stdin"), std::string::npos);
}

TEST(HookCommand, RefusesARelayPathItCannotQuoteOrThatIsRelative) {
  EXPECT_FALSE(managed_command("/opt/it's/signaltty-hookrelay", Provider::Claude, "Stop").ok());
  EXPECT_FALSE(managed_command("bin/signaltty-hookrelay", Provider::Claude, "Stop").ok());
}

TEST(HookCommand, RecognisesCurrentStaleAndLegacyCommandsAsOurs) {
  EXPECT_TRUE(is_managed_command("'/old/path/signaltty-hookrelay' --agent claude --event Stop "
                                 "# signaltty hook-event (managed)"));
  EXPECT_TRUE(is_managed_command("'/x/signaltty' hook-event --agent codex --event Stop --payload-stdin "
                                 "# signaltty hook-event (managed)"));
  EXPECT_TRUE(is_managed_command("signaltty hook-event --agent claude --event Stop --payload-stdin"));
  EXPECT_TRUE(is_managed_command(
      "/home/u/.local/bin/signaltty hook-event --agent cursor --event sessionStart --payload-stdin"));
}

TEST(HookCommand, DoesNotClaimCommandsThatOnlyLookLikeOurs) {
  EXPECT_FALSE(is_managed_command("signaltty hook-event --agent grok --event Stop --payload-stdin"));
  EXPECT_FALSE(is_managed_command("signaltty hook-event --agent claude --event Bogus --payload-stdin"));
  EXPECT_FALSE(is_managed_command("signaltty hook-event --agent claude --event Stop --payload-stdin --x"));
  EXPECT_FALSE(is_managed_command("bin/signaltty hook-event --agent claude --event Stop --payload-stdin"));
  EXPECT_FALSE(is_managed_command("/a b/signaltty hook-event --agent claude --event Stop --payload-stdin"));
  EXPECT_FALSE(is_managed_command("/usr/bin/not-signaltty hook-event --agent claude --event Stop --payload-stdin"));
  EXPECT_FALSE(is_managed_command("notify-send done # signaltty hook-event"));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
