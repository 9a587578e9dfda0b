// tests/broker/plugin_manifest_test.cpp: broker/plugins/plugin_manifest:
// every field of plugin.toml, its defaults, argv[0] resolution, every way a
// manifest is rejected (bad TOML, names, empty lists, timeout range,
// duplicate commands, name against directory, unknown keys, wrong types,
// bounds), and which events a hook's globs select.
#include "broker/plugins/plugin_manifest.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace signaltty::broker::plugins {
namespace {
namespace SIGNALTTY_UNITY_ID {

using ::testing::HasSubstr;
using Argv = std::vector<std::string>;

const std::filesystem::path kDir = "/srv/plugins/event-log";
const std::string kHeader = "[plugin]\nname = \"event-log\"\n";
const std::string kHook = "[[hook]]\nevents = [\"*\"]\ncommand = [\"true\"]\n";

Plugin parse_ok(const std::string& text, const std::filesystem::path& dir = kDir) {
  auto plugin = parse_plugin_manifest(text, dir);
  EXPECT_TRUE(plugin.ok()) << (plugin.ok() ? "" : plugin.error().message);
  return plugin.ok() ? *plugin : Plugin{};
}

// The message rejecting `text` (or "" when it loads).
std::string rejection(const std::string& text, const std::filesystem::path& dir = kDir) {
  auto plugin = parse_plugin_manifest(text, dir);
  return plugin.ok() ? std::string() : plugin.error().message;
}

// A TOML array of `count` strings `item`.
std::string toml_strings(std::size_t count, const std::string& item) {
  std::string out = "[";
  for (std::size_t i = 0; i < count; ++i) out += (i ? ", \"" : "\"") + item + "\"";
  return out + "]";
}

// ---- fields -------------------------------------------------------------------

TEST(PluginManifest, ReadsEveryField) {
  const Plugin p = parse_ok(R"toml(
[plugin]
name = "event-log"
version = "0.1.0"
description = "Logs every event"

[[hook]]
events = ["agent.done", "attention.*"]
command = ["./log.sh", "--flag"]
timeout_secs = 30
[hook.env]
EVENT_LOG = "events.log"
DEPTH = "2"

[[hook]]
events = ["*"]
command = ["/usr/bin/logger"]

[[command]]
name = "spawn"
description = "Spawns the fan-out"
run = ["./fanout.sh", "3"]

[[command]]
name = "tail_2"
run = ["tail"]
)toml");
  EXPECT_EQ(p.name, "event-log");
  EXPECT_EQ(p.version, "0.1.0");
  EXPECT_EQ(p.description, "Logs every event");
  EXPECT_EQ(p.dir, kDir.string());
  ASSERT_EQ(p.hooks.size(), 2u);
  EXPECT_EQ(p.hooks[0].events, (Argv{"agent.done", "attention.*"}));
  EXPECT_EQ(p.hooks[0].command, (Argv{"/srv/plugins/event-log/log.sh", "--flag"}));
  EXPECT_EQ(p.hooks[0].timeout_secs, 30u);
  EXPECT_EQ(p.hooks[0].env,
            (std::map<std::string, std::string>{{"DEPTH", "2"}, {"EVENT_LOG", "events.log"}}));
  EXPECT_EQ(p.hooks[1].events, Argv{"*"});
  EXPECT_EQ(p.hooks[1].command, Argv{"/usr/bin/logger"});
  EXPECT_EQ(p.hooks[1].timeout_secs, kPluginHookTimeoutDefaultSecs);
  EXPECT_TRUE(p.hooks[1].env.empty());
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[0].name, "spawn");
  EXPECT_EQ(p.commands[0].description, "Spawns the fan-out");
  EXPECT_EQ(p.commands[0].run, (Argv{"/srv/plugins/event-log/fanout.sh", "3"}));
  EXPECT_EQ(p.commands[1].name, "tail_2");
  EXPECT_EQ(p.commands[1].description, std::nullopt);
  EXPECT_EQ(p.commands[1].run, Argv{"tail"});
}

TEST(PluginManifest, OnlyTheNameIsRequired) {
  const Plugin p = parse_ok(kHeader);
  EXPECT_EQ(p.name, "event-log");
  EXPECT_EQ(p.version, "");
  EXPECT_EQ(p.description, std::nullopt);
  EXPECT_TRUE(p.hooks.empty());
  EXPECT_TRUE(p.commands.empty());
  EXPECT_EQ(kPluginHookTimeoutDefaultSecs, 10u);
}

TEST(PluginManifest, TimeoutBoundsAreInclusive) {
  for (int secs : {1, 300}) {
    const Plugin p = parse_ok(kHeader + kHook + "timeout_secs = " + std::to_string(secs) + "\n");
    ASSERT_EQ(p.hooks.size(), 1u);
    EXPECT_EQ(p.hooks[0].timeout_secs, static_cast<std::uint32_t>(secs));
  }
}

TEST(PluginManifest, DirWithATrailingSeparatorStillNamesThePlugin) {
  const Plugin p = parse_ok(kHeader, "/srv/plugins/event-log/");
  EXPECT_EQ(p.dir, "/srv/plugins/event-log");
}

// ---- argv[0] ------------------------------------------------------------------

TEST(PluginManifest, ResolvesArgv0AgainstThePluginDir) {
  EXPECT_EQ(resolve_argv0("/usr/bin/jq", kDir), "/usr/bin/jq");
  EXPECT_EQ(resolve_argv0("jq", kDir), "jq");
  EXPECT_EQ(resolve_argv0("./log.sh", kDir), "/srv/plugins/event-log/log.sh");
  EXPECT_EQ(resolve_argv0("bin/run", kDir), "/srv/plugins/event-log/bin/run");
  EXPECT_EQ(resolve_argv0("../shared/run", kDir), "/srv/plugins/event-log/../shared/run");
}

TEST(PluginManifest, ResolvesOnlyArgv0OfHooksAndCommands) {
  const Plugin p = parse_ok(kHeader +
                            "[[hook]]\nevents = [\"*\"]\ncommand = [\"bin/h\", \"./arg\"]\n"
                            "[[hook]]\nevents = [\"*\"]\ncommand = [\"python3\", \"./h.py\"]\n"
                            "[[command]]\nname = \"c\"\nrun = [\"./c.sh\", \"x/y\"]\n"
                            "[[command]]\nname = \"d\"\nrun = [\"/opt/d\"]\n");
  ASSERT_EQ(p.hooks.size(), 2u);
  EXPECT_EQ(p.hooks[0].command, (Argv{"/srv/plugins/event-log/bin/h", "./arg"}));
  EXPECT_EQ(p.hooks[1].command, (Argv{"python3", "./h.py"}));
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[0].run, (Argv{"/srv/plugins/event-log/c.sh", "x/y"}));
  EXPECT_EQ(p.commands[1].run, Argv{"/opt/d"});
}

// ---- load errors --------------------------------------------------------------

TEST(PluginManifest, RejectsBadToml) {
  EXPECT_THAT(rejection("[plugin\nname = \"event-log\"\n"), HasSubstr("line 1"));
  EXPECT_THAT(rejection(kHeader + "version = \n"), HasSubstr("line 3"));
  EXPECT_THAT(rejection(kHeader + "name = \"again\"\n"), HasSubstr("line 3"));
}

TEST(PluginManifest, RejectsMissingPluginTableOrName) {
  EXPECT_THAT(rejection(""), HasSubstr("[plugin]: missing"));
  EXPECT_THAT(rejection(kHook), HasSubstr("[plugin]: missing"));
  EXPECT_THAT(rejection("[plugin]\nversion = \"1\"\n"), HasSubstr("[plugin] name: missing"));
}

TEST(PluginManifest, RejectsInvalidPluginNames) {
  for (std::string name : {"Event-Log", "event log", "", "event.log", "évent", "a/b"}) {
    const std::string text = "[plugin]\nname = \"" + name + "\"\n";
    EXPECT_THAT(rejection(text, "/srv/plugins/" + (name.empty() ? "x" : name)),
                HasSubstr("[plugin] name: '" + name + "' is not 1 to 64 of [a-z0-9_-]"))
        << name;
  }
  const std::string long_name(kPluginNameMaxBytes + 1, 'a');
  EXPECT_THAT(rejection("[plugin]\nname = \"" + long_name + "\"\n", "/srv/" + long_name),
              HasSubstr("is not 1 to 64"));
}

TEST(PluginManifest, AcceptsEveryAllowedNameCharacter) {
  const std::string name = "abcdefghijklmnopqrstuvwxyz-0123456789_abcdefghijklmnopqrstuvwxyz";
  ASSERT_EQ(name.size(), kPluginNameMaxBytes);
  EXPECT_EQ(parse_ok("[plugin]\nname = \"" + name + "\"\n", "/srv/" + name).name, name);
  EXPECT_TRUE(is_plugin_name("a"));
  EXPECT_FALSE(is_plugin_name("A"));
}

TEST(PluginManifest, RejectsANameOtherThanItsDirectory) {
  EXPECT_THAT(rejection(kHeader, "/srv/plugins/other"),
              HasSubstr("[plugin] name: 'event-log' is not its directory's name 'other'"));
  EXPECT_THAT(rejection(kHeader, "/srv/plugins/event-log2"), HasSubstr("directory's name"));
}

TEST(PluginManifest, RejectsInvalidCommandNames) {
  EXPECT_THAT(rejection(kHeader + "[[command]]\nname = \"Spawn\"\nrun = [\"x\"]\n"),
              HasSubstr("[[command]] #1 name: 'Spawn' is not 1 to 64 of [a-z0-9_-]"));
  EXPECT_THAT(rejection(kHeader + "[[command]]\nrun = [\"x\"]\n"),
              HasSubstr("[[command]] #1 name: missing"));
}

TEST(PluginManifest, RejectsEmptyOrMissingEventsCommandAndRun) {
  EXPECT_THAT(rejection(kHeader + "[[hook]]\nevents = []\ncommand = [\"x\"]\n"),
              HasSubstr("[[hook]] #1 events: empty"));
  EXPECT_THAT(rejection(kHeader + "[[hook]]\ncommand = [\"x\"]\n"),
              HasSubstr("[[hook]] #1 events: missing"));
  EXPECT_THAT(rejection(kHeader + kHook + "[[hook]]\nevents = [\"*\"]\ncommand = []\n"),
              HasSubstr("[[hook]] #2 command: empty"));
  EXPECT_THAT(rejection(kHeader + "[[hook]]\nevents = [\"*\"]\ncommand = [\"\", \"x\"]\n"),
              HasSubstr("[[hook]] #1 command[0]: empty"));
  EXPECT_THAT(rejection(kHeader + "[[hook]]\nevents = [\"*\"]\n"),
              HasSubstr("[[hook]] #1 command: missing"));
  EXPECT_THAT(rejection(kHeader + "[[command]]\nname = \"c\"\nrun = []\n"),
              HasSubstr("[[command]] 'c' run: empty"));
  EXPECT_THAT(rejection(kHeader + "[[command]]\nname = \"c\"\n"),
              HasSubstr("[[command]] 'c' run: missing"));
}

TEST(PluginManifest, RejectsATimeoutOutOfRange) {
  EXPECT_THAT(rejection(kHeader + kHook + "timeout_secs = 0\n"),
              HasSubstr("[[hook]] #1 timeout_secs: 0 is outside 1..=300"));
  EXPECT_THAT(rejection(kHeader + kHook + "timeout_secs = 301\n"),
              HasSubstr("timeout_secs: 301 is outside 1..=300"));
  EXPECT_THAT(rejection(kHeader + kHook + "timeout_secs = -5\n"),
              HasSubstr("timeout_secs: -5 is outside"));
  EXPECT_THAT(rejection(kHeader + kHook + "timeout_secs = 9223372036854775807\n"),
              HasSubstr("is outside 1..=300"));
}

TEST(PluginManifest, RejectsADuplicateCommandName) {
  EXPECT_THAT(rejection(kHeader + "[[command]]\nname = \"spawn\"\nrun = [\"a\"]\n" +
                        "[[command]]\nname = \"other\"\nrun = [\"b\"]\n" +
                        "[[command]]\nname = \"spawn\"\nrun = [\"c\"]\n"),
              HasSubstr("[[command]] 'spawn': a duplicate command name"));
}

TEST(PluginManifest, RejectsUnknownKeys) {
  EXPECT_THAT(rejection(kHeader + "[extra]\n"), HasSubstr("top level: unknown key 'extra'"));
  EXPECT_THAT(rejection(kHeader + "author = \"me\"\n"),
              HasSubstr("[plugin]: unknown key 'author'"));
  EXPECT_THAT(rejection(kHeader + kHook + "timeout = 5\n"),
              HasSubstr("[[hook]] #1: unknown key 'timeout'"));
  EXPECT_THAT(rejection(kHeader + "[[command]]\nname = \"c\"\nrun = [\"x\"]\nargs = []\n"),
              HasSubstr("[[command]] 'c': unknown key 'args'"));
}

TEST(PluginManifest, RejectsWrongTypes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plugin = \"event-log\"\n", "[plugin]: expected a table"},
      {"[plugin]\nname = 1\n", "[plugin] name: expected a string"},
      {kHeader + "version = 1\n", "[plugin] version: expected a string"},
      {kHeader + "description = [\"x\"]\n", "[plugin] description: expected a string"},
      {"hook = \"x\"\n" + kHeader, "hook: expected [[hook]] tables"},
      {"hook = [1]\n" + kHeader, "[[hook]] #1: expected a table"},
      {"command = { name = \"c\" }\n" + kHeader, "command: expected [[command]] tables"},
      {"command = [\"c\"]\n" + kHeader, "[[command]] #1: expected a table"},
      {kHeader + "[[hook]]\nevents = \"*\"\ncommand = [\"x\"]\n",
       "[[hook]] #1 events: expected an array of strings"},
      {kHeader + "[[hook]]\nevents = [1]\ncommand = [\"x\"]\n",
       "[[hook]] #1 events[0]: expected a string"},
      {kHeader + "[[hook]]\nevents = [\"*\"]\ncommand = \"x\"\n",
       "[[hook]] #1 command: expected an array of strings"},
      {kHeader + kHook + "timeout_secs = \"10\"\n", "timeout_secs: expected an integer"},
      {kHeader + kHook + "timeout_secs = 1.5\n", "timeout_secs: expected an integer"},
      {kHeader + kHook + "env = \"A=B\"\n", "[[hook]] #1 env: expected a table"},
      {kHeader + kHook + "[hook.env]\nA = 1\n", "[[hook]] #1 env.A: expected a string"},
      {kHeader + "[[command]]\nname = \"c\"\nrun = [\"x\"]\ndescription = false\n",
       "[[command]] 'c' description: expected a string"},
      {kHeader + "[[command]]\nname = \"c\"\nrun = [[\"x\"]]\n",
       "[[command]] 'c' run[0]: expected a string"},
  };
  for (const auto& [text, message] : cases) EXPECT_THAT(rejection(text), HasSubstr(message));
}

TEST(PluginManifest, RejectsMalformedEventGlobs) {
  for (std::string glob : {"", "agent.", ".done", "agent..done", "agent*", "*.done", "a.*.b",
                           "Agent.done", "**", "agent.**", "agent done", "agent-done"}) {
    EXPECT_FALSE(is_event_glob(glob)) << glob;
    EXPECT_THAT(rejection(kHeader + "[[hook]]\nevents = [\"agent.done\", \"" + glob +
                          "\"]\ncommand = [\"x\"]\n"),
                HasSubstr("[[hook]] #1 events: '" + glob + "' is not `*`, `prefix.*`"))
        << glob;
  }
  for (std::string glob :
       {"*", "agent.*", "task.pr.*", "agent.done", "git.branch_changed", "future_event", "x1.y2"})
    EXPECT_TRUE(is_event_glob(glob)) << glob;
}

TEST(PluginManifest, RejectsEnvNamesThatCannotBeSetAndNulCharacters) {
  EXPECT_THAT(rejection(kHeader + kHook + "[hook.env]\n\"A=B\" = \"x\"\n"),
              HasSubstr("[[hook]] #1 env: 'A=B' is not a variable name"));
  EXPECT_THAT(rejection(kHeader + kHook + "[hook.env]\n\"\" = \"x\"\n"),
              HasSubstr("[[hook]] #1 env: '' is not a variable name"));
  EXPECT_THAT(rejection(kHeader + kHook + "[hook.env]\nA = \"x\\u0000y\"\n"),
              HasSubstr("[[hook]] #1 env.A: holds a NUL character"));
  EXPECT_THAT(rejection(kHeader + "[[hook]]\nevents = [\"*\"]\ncommand = [\"a\\u0000b\"]\n"),
              HasSubstr("[[hook]] #1 command[0]: holds a NUL character"));
}

// ---- bounds -------------------------------------------------------------------

TEST(PluginManifest, BoundsTheText) {
  std::string text = kHeader;
  text += "# " + std::string(kPluginManifestMaxBytes - text.size() - 3, 'x') + "\n";
  ASSERT_EQ(text.size(), kPluginManifestMaxBytes);
  EXPECT_EQ(parse_ok(text).name, "event-log");
  EXPECT_THAT(rejection(text + "\n"), HasSubstr("larger than 65536 bytes"));
}

TEST(PluginManifest, BoundsHooksAndCommands) {
  std::string hooks = kHeader;
  for (std::size_t i = 0; i < kPluginMaxHooks; ++i) hooks += kHook;
  EXPECT_EQ(parse_ok(hooks).hooks.size(), kPluginMaxHooks);
  EXPECT_THAT(rejection(hooks + kHook), HasSubstr("[[hook]]: 65 entries, more than 64"));

  std::string commands = kHeader;
  for (std::size_t i = 0; i <= kPluginMaxCommands; ++i)
    commands += "[[command]]\nname = \"c" + std::to_string(i) + "\"\nrun = [\"x\"]\n";
  EXPECT_THAT(rejection(commands), HasSubstr("[[command]]: 65 entries, more than 64"));
}

TEST(PluginManifest, BoundsListEntries) {
  const auto hook_with = [](const std::string& events, const std::string& command) {
    return kHeader + "[[hook]]\nevents = " + events + "\ncommand = " + command + "\n";
  };
  EXPECT_EQ(parse_ok(hook_with(toml_strings(64, "*"), toml_strings(64, "a"))).hooks.size(), 1u);
  EXPECT_THAT(rejection(hook_with(toml_strings(65, "*"), "[\"a\"]")),
              HasSubstr("[[hook]] #1 events: more than 64 entries"));
  EXPECT_THAT(rejection(hook_with("[\"*\"]", toml_strings(65, "a"))),
              HasSubstr("[[hook]] #1 command: more than 64 entries"));
  EXPECT_THAT(rejection(kHeader + "[[command]]\nname = \"c\"\nrun = " + toml_strings(65, "a")),
              HasSubstr("[[command]] 'c' run: more than 64 entries"));

  std::string env = kHeader + kHook + "[hook.env]\n";
  for (std::size_t i = 0; i < kPluginMaxEnvEntries; ++i)
    env += "V" + std::to_string(i) + " = \"x\"\n";
  EXPECT_EQ(parse_ok(env).hooks.at(0).env.size(), kPluginMaxEnvEntries);
  EXPECT_THAT(rejection(env + "V64 = \"x\"\n"), HasSubstr("[[hook]] #1 env: more than 64 entries"));
}

TEST(PluginManifest, BoundsEachString) {
  const std::string fits(kPluginStringMaxBytes, 'd');
  const std::string over(kPluginStringMaxBytes + 1, 'd');
  EXPECT_EQ(parse_ok(kHeader + "description = \"" + fits + "\"\n").description, fits);
  EXPECT_THAT(rejection(kHeader + "description = \"" + over + "\"\n"),
              HasSubstr("[plugin] description: longer than 4096 bytes"));
  EXPECT_THAT(rejection(kHeader + "version = \"" + over + "\"\n"),
              HasSubstr("[plugin] version: longer than 4096 bytes"));
  EXPECT_THAT(
      rejection(kHeader + "[[hook]]\nevents = [\"*\"]\ncommand = [\"x\", \"" + over + "\"]\n"),
      HasSubstr("[[hook]] #1 command[1]: longer than 4096 bytes"));
  EXPECT_THAT(rejection(kHeader + kHook + "[hook.env]\nV = \"" + over + "\"\n"),
              HasSubstr("[[hook]] #1 env.V: longer than 4096 bytes"));
  EXPECT_THAT(rejection(kHeader + kHook + "[hook.env]\n" + over + " = \"x\"\n"),
              HasSubstr("[[hook]] #1 env: longer than 4096 bytes"));
}

// ---- event globs ----------------------------------------------------------------

TEST(PluginEventMatch, FollowsTheGlobTable) {
  struct Case {
    std::string_view glob;
    std::string_view event;
    bool matches;
  };
  const Case cases[] = {
      {"*", "agent.done", true},
      {"*", "pty.data", true},  // the glob selects it; the registry never offers it
      {"agent.*", "agent.done", true},
      {"agent.*", "agent.", false},
      {"agent.*", "agentx", false},
      {"agent.*", "agentx.done", false},
      {"agent.*", "agent", false},
      {"agent.*", "attention.created", false},
      {"task.*", "task.pr.opened", true},
      {"task.pr.*", "task.pr.opened", true},
      {"task.pr.*", "task.result", false},
      {"agent.done", "agent.done", true},
      {"agent.done", "agent.done2", false},
      {"agent.done", "agent.doneX", false},
      {"agent.done", "agent.", false},
      {"agent.done", "agent.failed", false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(event_matches(c.glob, c.event), c.matches) << c.glob << " vs " << c.event;
}

TEST(PluginEventMatch, HookMatchesWhenAnyGlobDoes) {
  PluginHook hook;
  hook.events = {"agent.done", "attention.*"};
  EXPECT_TRUE(hook_matches(hook, "agent.done"));
  EXPECT_TRUE(hook_matches(hook, "attention.cleared"));
  EXPECT_FALSE(hook_matches(hook, "agent.failed"));
  EXPECT_FALSE(hook_matches(PluginHook{}, "agent.done"));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::plugins
