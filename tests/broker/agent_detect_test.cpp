// tests/broker/agent_detect_test.cpp: broker/agents/detect: the agent kind
// from spawn argv and agent_hint, and each adapter's resume argv
// (docs/rules.md "Agent detection and resume").
#include "broker/agents/detect.hpp"

#include <gtest/gtest.h>

namespace signaltty::broker::agents {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Argv = std::vector<std::string>;

TEST(AgentDetect, KnownProgramsByBasename) {
  EXPECT_EQ(detect_agent_kind({"codex"}, std::nullopt), AgentKind::Codex);
  EXPECT_EQ(detect_agent_kind({"/usr/local/bin/claude", "--resume"}, std::nullopt),
            AgentKind::Claude);
  EXPECT_EQ(detect_agent_kind({"opencode"}, std::nullopt), AgentKind::Opencode);
  EXPECT_EQ(detect_agent_kind({"/opt/cursor/cursor-agent"}, std::nullopt), AgentKind::Cursor);
  EXPECT_EQ(detect_agent_kind({"pi"}, std::nullopt), AgentKind::Pi);
}

TEST(AgentDetect, EverythingElseIsGeneric) {
  EXPECT_EQ(detect_agent_kind({"bash"}, std::nullopt), AgentKind::Generic);
  EXPECT_EQ(detect_agent_kind({"agent"}, std::nullopt), AgentKind::Generic);  // ambiguous
  EXPECT_EQ(detect_agent_kind({"codex-wrap"}, std::nullopt), AgentKind::Generic);
  EXPECT_EQ(detect_agent_kind({"/usr/bin/codexx"}, std::nullopt), AgentKind::Generic);
  EXPECT_EQ(detect_agent_kind({}, std::nullopt), AgentKind::Generic);
  EXPECT_EQ(detect_agent_kind({""}, std::nullopt), AgentKind::Generic);
}

TEST(AgentDetect, RuntimesAreNamedAfterTheirScript) {
  EXPECT_EQ(program_name({"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}), "codex");
  EXPECT_EQ(program_name({"/usr/bin/nodejs", "--no-warnings", "/x/claude"}), "claude");
  EXPECT_EQ(program_name({"deno", "run", "opencode.ts"}), "opencode");
  EXPECT_EQ(program_name({"python3", "tool.py"}), "tool");
  EXPECT_EQ(program_name({"node"}), "node");
  EXPECT_EQ(detect_agent_kind({"bun", "/x/cursor-agent.mjs"}, std::nullopt), AgentKind::Cursor);
}

TEST(AgentDetect, AHintWinsAndAnUnknownHintIsNone) {
  EXPECT_EQ(detect_agent_kind({"bash"}, "claude"), AgentKind::Claude);
  EXPECT_EQ(detect_agent_kind({"codex"}, "opencode"), AgentKind::Opencode);
  EXPECT_EQ(detect_agent_kind({"codex"}, "gemini"), AgentKind::None);
  EXPECT_EQ(detect_agent_kind({"codex"}, ""), AgentKind::None);
}

TEST(AgentResume, OfficialArgvPerAgent) {
  EXPECT_EQ(resume_argv(AgentKind::Codex, "0199-ab"), (Argv{"codex", "resume", "0199-ab"}));
  EXPECT_EQ(resume_argv(AgentKind::Claude, "f24b"), (Argv{"claude", "--resume", "f24b"}));
  EXPECT_EQ(resume_argv(AgentKind::Opencode, "ses_1"), (Argv{"opencode", "--session", "ses_1"}));
  EXPECT_EQ(resume_argv(AgentKind::Cursor, "chat"), (Argv{"cursor-agent", "--resume", "chat"}));
  EXPECT_EQ(resume_argv(AgentKind::Pi, "abc"), (Argv{"pi", "--session", "abc"}));
}

TEST(AgentResume, NoneForGenericOrUnusableIds) {
  EXPECT_FALSE(resume_argv(AgentKind::Generic, "x"));
  EXPECT_FALSE(resume_argv(AgentKind::None, "x"));
  EXPECT_FALSE(resume_argv(AgentKind::Codex, ""));
  EXPECT_FALSE(resume_argv(AgentKind::Codex, "--last"));
  EXPECT_FALSE(resume_argv(AgentKind::Claude, "a\tb"));
  EXPECT_FALSE(resume_argv(AgentKind::Claude, std::string(257, 'a')));
}

TEST(AgentResume, APathQualifiedLaunchOfTheSameProgramIsKept) {
  EXPECT_EQ(resume_argv(AgentKind::Claude, "s", "/opt/claude/bin/claude"),
            (Argv{"/opt/claude/bin/claude", "--resume", "s"}));
  EXPECT_EQ(resume_argv(AgentKind::Claude, "s", "claude"), (Argv{"claude", "--resume", "s"}));
  EXPECT_EQ(resume_argv(AgentKind::Claude, "s", "/usr/bin/node"), (Argv{"claude", "--resume", "s"}));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::agents
