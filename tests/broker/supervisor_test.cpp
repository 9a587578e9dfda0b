// tests/broker/supervisor_test.cpp: the environment the supervisor gives a
// pane's child (docs/rules.md: "Environment of the child", decision 16).
#include <gtest/gtest.h>

#include <algorithm>

#include "broker/supervisor.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::optional<std::string> value_of(const std::vector<std::string>& env, const std::string& key) {
  for (const std::string& e : env)
    if (e.rfind(key + "=", 0) == 0) return e.substr(key.size() + 1);
  return std::nullopt;
}

ChildEnvRequest base() {
  ChildEnvRequest r;
  r.broker_env = {"PATH=/usr/bin:/bin", "HOME=/home/u", "LD_PRELOAD=/evil.so",
                  "LD_LIBRARY_PATH=/x", "LD_AUDIT=/y", "SIGNALTTY_SOCKET=/old.sock", "LANG=C"};
  r.pane_id = "pane_0123456789abcdef0123456789abcdef";
  r.socket_path = "/run/user/1/signaltty/signaltty.sock";
  return r;
}

TEST(PaneEnv, EveryLdVariableAndTheOldSocketAreDropped) {
  auto env = child_environment(base());
  for (const std::string& e : env) EXPECT_NE(e.rfind("LD_", 0), 0u) << e;
  EXPECT_EQ(value_of(env, "SIGNALTTY_SOCKET"), "/run/user/1/signaltty/signaltty.sock");
  EXPECT_EQ(value_of(env, "PATH"), "/usr/bin:/bin");
  EXPECT_EQ(value_of(env, "HOME"), "/home/u");
}

TEST(PaneEnv, PaneIdAndSocketAreForcedAndTermDefaults) {
  ChildEnvRequest r = base();
  r.requested = {{"SIGNALTTY_PANE", "pane_forged"}, {"SIGNALTTY_SOCKET", "/forged"}};
  auto env = child_environment(r);
  EXPECT_EQ(value_of(env, "SIGNALTTY_PANE"), r.pane_id);
  EXPECT_EQ(value_of(env, "SIGNALTTY_SOCKET"), r.socket_path);
  EXPECT_EQ(value_of(env, "TERM"), "xterm-256color");
  EXPECT_EQ(std::count_if(env.begin(), env.end(),
                          [](const std::string& e) { return e.rfind("SIGNALTTY_PANE=", 0) == 0; }),
            1);
}

TEST(PaneEnv, APaneGetsItsOwnTokenOrNoneNeverAnInheritedOrRequestedOne) {
  ChildEnvRequest r = base();
  r.broker_env.push_back("SIGNALTTY_TOKEN=stp1.inherited");
  r.requested = {{"SIGNALTTY_TOKEN", "stp1.requested"}};
  EXPECT_FALSE(value_of(child_environment(r), "SIGNALTTY_TOKEN").has_value());
  r.token = "stp1.own";
  auto env = child_environment(r);
  EXPECT_EQ(value_of(env, "SIGNALTTY_TOKEN"), "stp1.own");
  EXPECT_EQ(std::count_if(env.begin(), env.end(),
                          [](const std::string& e) { return e.rfind("SIGNALTTY_TOKEN=", 0) == 0; }),
            1);
}

TEST(PaneEnv, OnlyAllowlistedRequestKeysApply) {
  ChildEnvRequest r = base();
  r.requested = {{"TERM", "screen"},       {"LANG", "de_DE.UTF-8"}, {"CLAUDE_CONFIG_DIR", "/c"},
                 {"LD_PRELOAD", "/bad.so"}, {"PATH", "/tmp/evil"},  {"HOME", "/tmp"},
                 {"CODEX_HOME", "/x"},      {"RANDOM_THING", "1"}};
  auto env = child_environment(r);
  EXPECT_EQ(value_of(env, "TERM"), "screen");
  EXPECT_EQ(value_of(env, "LANG"), "de_DE.UTF-8");
  EXPECT_EQ(value_of(env, "CLAUDE_CONFIG_DIR"), "/c");
  EXPECT_EQ(value_of(env, "CODEX_HOME"), "/x");
  EXPECT_FALSE(value_of(env, "LD_PRELOAD").has_value());
  EXPECT_EQ(value_of(env, "PATH"), "/usr/bin:/bin");
  EXPECT_EQ(value_of(env, "HOME"), "/home/u");
  EXPECT_FALSE(value_of(env, "RANDOM_THING").has_value());
}

TEST(PaneEnv, ParentAndTaskAreAddedWhenGiven) {
  ChildEnvRequest r = base();
  EXPECT_FALSE(value_of(child_environment(r), "SIGNALTTY_PARENT_PANE").has_value());
  r.parent_pane_id = "pane_ffffffffffffffffffffffffffffffff";
  r.task_id = "task_1";
  auto env = child_environment(r);
  EXPECT_EQ(value_of(env, "SIGNALTTY_PARENT_PANE"), "pane_ffffffffffffffffffffffffffffffff");
  EXPECT_EQ(value_of(env, "SIGNALTTY_TASK"), "task_1");
}

TEST(PaneEnv, AllowlistMatchesTheSpec) {
  for (const char* key : {"TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "EDITOR", "VISUAL",
                          "PAGER", "SHELL", "SIGNALTTY_PANE", "SIGNALTTY_X", "CLAUDE_X",
                          "CODEX_X", "OPENCODE_X", "CURSOR_X"})
    EXPECT_TRUE(env_key_allowed(key)) << key;
  for (const char* key : {"PATH", "HOME", "LD_PRELOAD", "SIGNALTTY_", "CLAUDE", "LC_NUMERIC"})
    EXPECT_FALSE(env_key_allowed(key)) << key;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
