// tests/common/integrations/codex_runtime_test.cpp: reading a Codex command
// line: which launches get the --no-daemon probe (an interactive local
// session: a prompt, resume, fork), which keep their command (--remote,
// utility subcommands, --help/--version, one that already has the flag),
// and that an option's value is never read as a subcommand.
#include "common/integrations/codex_runtime.hpp"

#include <gtest/gtest.h>

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Argv = std::vector<std::string>;

TEST(CodexRuntime, InteractiveSessionsAreTheOnesThatGetTheProbe) {
  for (const Argv& argv : {Argv{"codex"}, Argv{"/usr/local/bin/codex", "fix the bug"},
                           Argv{"codex", "resume", "--last"}, Argv{"codex", "fork", "abc"},
                           Argv{"codex", "-m", "exec"}, Argv{"codex", "-c", "model=o3", "login it"},
                           Argv{"codex", "--", "exec"}, Argv{"codex", "--full-auto", "go"}})
    EXPECT_EQ(classify_codex_launch(argv), CodexLaunch::Interactive) << argv.back();
}

TEST(CodexRuntime, UtilityCommandsRemoteEndpointsAndTheFlagItselfAreLeftAlone) {
  EXPECT_EQ(classify_codex_launch({"codex", "exec", "do it"}), CodexLaunch::Utility);
  EXPECT_EQ(classify_codex_launch({"codex", "-m", "o3", "exec", "x"}), CodexLaunch::Utility);
  EXPECT_EQ(classify_codex_launch({"codex", "mcp", "list"}), CodexLaunch::Utility);
  EXPECT_EQ(classify_codex_launch({"codex", "login"}), CodexLaunch::Utility);
  EXPECT_EQ(classify_codex_launch({"codex", "--version"}), CodexLaunch::Utility);
  EXPECT_EQ(classify_codex_launch({"codex", "-h"}), CodexLaunch::Utility);
  EXPECT_EQ(classify_codex_launch({"codex", "--remote", "ws://127.0.0.1:1455"}),
            CodexLaunch::Remote);
  EXPECT_EQ(classify_codex_launch({"codex", "--remote=unix://", "resume"}), CodexLaunch::Remote);
  EXPECT_EQ(classify_codex_launch({"codex", "--no-daemon", "resume", "--last"}),
            CodexLaunch::HasNoDaemon);
  EXPECT_EQ(classify_codex_launch({"claude"}), CodexLaunch::NotCodex);
  EXPECT_EQ(classify_codex_launch({"codex-wrapper"}), CodexLaunch::NotCodex);
  EXPECT_EQ(classify_codex_launch({}), CodexLaunch::NotCodex);
}

TEST(CodexRuntime, ThePlanProbesTheSameProgramAndAddsTheFlagFirst) {
  auto plan = no_daemon_plan({"/opt/codex/bin/codex", "resume", "--last"});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->probe, (Argv{"/opt/codex/bin/codex", "--no-daemon", "--version"}));
  EXPECT_EQ(plan->argv, (Argv{"/opt/codex/bin/codex", "--no-daemon", "resume", "--last"}));
  EXPECT_FALSE(no_daemon_plan({"codex", "exec", "x"}).has_value());
  EXPECT_FALSE(no_daemon_plan({"codex", "--remote", "ws://h:1"}).has_value());
  EXPECT_FALSE(no_daemon_plan({"codex", "--no-daemon"}).has_value());
  EXPECT_FALSE(no_daemon_plan({"bash"}).has_value());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
