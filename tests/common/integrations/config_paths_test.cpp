// tests/common/integrations/config_paths_test.cpp: where each provider's
// hook file is: the root overrides, the explicit home (which ignores this
// process's overrides but not XDG_CONFIG_HOME for OpenCode), a launch's
// own overrides, and relative roots.
#include "common/integrations/config_paths.hpp"

#include <gtest/gtest.h>

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string path_of(Provider provider, const PathContext& context) {
  auto path = config_file_path(provider, context);
  EXPECT_TRUE(path.ok()) << path.error().message;
  return path.ok() ? *path : "";
}

TEST(ConfigPaths, DefaultsLiveUnderHome) {
  PathContext c{env_of({{"HOME", "/home/u"}}), {}, std::nullopt, "/work"};
  EXPECT_EQ(path_of(Provider::Claude, c), "/home/u/.claude/settings.json");
  EXPECT_EQ(path_of(Provider::Codex, c), "/home/u/.codex/hooks.json");
  EXPECT_EQ(path_of(Provider::Cursor, c), "/home/u/.cursor/hooks.json");
  EXPECT_EQ(path_of(Provider::Opencode, c), "/home/u/.config/opencode/plugins/signaltty.js");
}

TEST(ConfigPaths, ProviderOverridesMoveTheirRoots) {
  PathContext c{env_of({{"HOME", "/home/u"},
                        {"CLAUDE_CONFIG_DIR", "/c"},
                        {"CODEX_HOME", "/x"},
                        {"OPENCODE_CONFIG_DIR", "/o"},
                        {"XDG_CONFIG_HOME", "/xdg"}}),
                {}, std::nullopt, "/work"};
  EXPECT_EQ(path_of(Provider::Claude, c), "/c/settings.json");
  EXPECT_EQ(path_of(Provider::Codex, c), "/x/hooks.json");
  EXPECT_EQ(path_of(Provider::Opencode, c), "/o/plugins/signaltty.js");
  EXPECT_EQ(path_of(Provider::Cursor, c), "/home/u/.cursor/hooks.json");
}

TEST(ConfigPaths, OpencodeFollowsXdgConfigHome) {
  PathContext c{env_of({{"HOME", "/home/u"}, {"XDG_CONFIG_HOME", "/xdg"}}), {}, std::nullopt, "/"};
  EXPECT_EQ(path_of(Provider::Opencode, c), "/xdg/opencode/plugins/signaltty.js");
}

TEST(ConfigPaths, ExplicitHomeReplacesHomeAndIgnoresProviderOverrides) {
  PathContext c{env_of({{"HOME", "/home/u"},
                        {"CLAUDE_CONFIG_DIR", "/c"},
                        {"CODEX_HOME", "/x"},
                        {"OPENCODE_CONFIG_DIR", "/o"}}),
                {}, "/iso", "/work"};
  EXPECT_EQ(path_of(Provider::Claude, c), "/iso/.claude/settings.json");
  EXPECT_EQ(path_of(Provider::Codex, c), "/iso/.codex/hooks.json");
  EXPECT_EQ(path_of(Provider::Cursor, c), "/iso/.cursor/hooks.json");
  EXPECT_EQ(path_of(Provider::Opencode, c), "/iso/.config/opencode/plugins/signaltty.js");
}

TEST(ConfigPaths, ExplicitHomeStillLetsOpencodeFollowXdgConfigHome) {
  PathContext c{env_of({{"HOME", "/home/u"}, {"OPENCODE_CONFIG_DIR", "/o"}, {"XDG_CONFIG_HOME", "/xdg"}}),
                {}, "/iso", "/"};
  EXPECT_EQ(path_of(Provider::Opencode, c), "/xdg/opencode/plugins/signaltty.js");
}

TEST(ConfigPaths, ALaunchsOwnOverridesWinEvenOverAnExplicitHome) {
  PathContext c{env_of({{"HOME", "/home/u"}, {"CODEX_HOME", "/broker-codex"}}),
                {{"CODEX_HOME", "/launch-codex"}, {"CLAUDE_CONFIG_DIR", "/launch-claude"}}, "/iso", "/"};
  EXPECT_EQ(path_of(Provider::Codex, c), "/launch-codex/hooks.json");
  EXPECT_EQ(path_of(Provider::Claude, c), "/launch-claude/settings.json");
}

TEST(ConfigPaths, RelativeRootsResolveAgainstTheBaseDirectory) {
  PathContext c{env_of({{"HOME", "/home/u"}}), {{"CLAUDE_CONFIG_DIR", "cfg/claude"}}, std::nullopt,
                "/work/project"};
  EXPECT_EQ(path_of(Provider::Claude, c), "/work/project/cfg/claude/settings.json");
  PathContext home{env_of({}), {}, "rel-home", "/base"};
  EXPECT_EQ(path_of(Provider::Cursor, home), "/base/rel-home/.cursor/hooks.json");
}

TEST(ConfigPaths, EmptyOverridesCountAsUnset) {
  PathContext c{env_of({{"HOME", "/home/u"}, {"CLAUDE_CONFIG_DIR", ""}}), {}, std::nullopt, "/"};
  EXPECT_EQ(path_of(Provider::Claude, c), "/home/u/.claude/settings.json");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
