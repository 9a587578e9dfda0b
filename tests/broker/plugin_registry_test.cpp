// tests/broker/plugin_registry_test.cpp: broker/plugins/plugin_registry:
// scanning a plugin dir (name order, missing and unreadable dirs, packages
// that fail alone, never blocked by a fifo or slowed by a huge file, a
// symlinked plugin.toml refused, the directory cap), which hooks an event
// fires, each hook's statistics and their reset on reload, and the
// plugin.list shape.
#include "broker/plugins/plugin_registry.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker::plugins {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using signaltty::broker::testing::TempDir;
using signaltty::broker::testing::write_file;
using ::testing::HasSubstr;

// A package `name` in `root` whose plugin.toml is its [plugin] table then `body`.
void write_plugin(const std::string& root, const std::string& name, const std::string& body = "") {
  std::filesystem::create_directories(root + "/" + name);
  write_file(root + "/" + name + "/plugin.toml", "[plugin]\nname = \"" + name + "\"\n" + body);
}

std::string hook_toml(const std::string& events, const std::string& command = "[\"true\"]") {
  return "[[hook]]\nevents = " + events + "\ncommand = " + command + "\n";
}

std::vector<std::string> names_of(const PluginSet& set) {
  std::vector<std::string> names;
  for (const Plugin& plugin : set.plugins()) names.push_back(plugin.name);
  return names;
}

// (plugin name, hook index) of each match.
std::vector<std::pair<std::string, std::size_t>> matches_of(const std::vector<HookRef>& refs) {
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const HookRef& ref : refs) out.emplace_back(ref.plugin().name, ref.hook_index);
  return out;
}

std::set<std::string> keys_of(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

// A clock that says "t1", "t2", … in turn.
PluginRegistry::Clock counting_clock() {
  return [n = 0]() mutable { return "t" + std::to_string(++n); };
}

// ---- scanning -----------------------------------------------------------------

TEST(PluginScan, LoadsPackagesInNameOrder) {
  TempDir tmp("signaltty-plugins");
  for (std::string name : {"zeta", "alpha", "mid-1", "mid_0"}) write_plugin(tmp.path(), name);
  auto set = PluginSet::scan(tmp.path());
  EXPECT_EQ(names_of(*set), (std::vector<std::string>{"alpha", "mid-1", "mid_0", "zeta"}));
  EXPECT_TRUE(set->failures().empty());
  EXPECT_EQ(set->dir(), tmp.path());
  EXPECT_EQ(set->plugins()[0].dir, tmp.path() + "/alpha");
}

TEST(PluginScan, MissingDirHoldsNoPlugins) {
  TempDir tmp("signaltty-plugins");
  auto set = PluginSet::scan(tmp.file("absent"));
  EXPECT_TRUE(set->plugins().empty());
  EXPECT_TRUE(set->failures().empty());
  EXPECT_EQ(set->dir(), tmp.file("absent"));
}

TEST(PluginScan, SkipsEntriesThatAreNotPackages) {
  TempDir tmp("signaltty-plugins");
  std::filesystem::create_directory(tmp.file("no-manifest"));
  write_file(tmp.file("no-manifest/README"), "not a plugin");
  write_file(tmp.file("plugin.toml"), "[plugin]\nname = \"top\"\n");  // a file, not a dir
  write_plugin(tmp.path(), ".hidden");
  write_plugin(tmp.path(), "real");
  auto set = PluginSet::scan(tmp.path());
  EXPECT_EQ(names_of(*set), std::vector<std::string>{"real"});
  EXPECT_TRUE(set->failures().empty());
}

TEST(PluginScan, FollowsASymlinkedPackageDir) {
  TempDir tmp("signaltty-plugins");
  TempDir elsewhere("signaltty-plugin-src");
  write_plugin(elsewhere.path(), "linked");
  std::filesystem::create_directory(tmp.file("plugins"));
  std::filesystem::create_directory_symlink(elsewhere.file("linked"), tmp.file("plugins/linked"));
  auto set = PluginSet::scan(tmp.file("plugins"));
  ASSERT_EQ(names_of(*set), std::vector<std::string>{"linked"});
  EXPECT_EQ(set->plugins()[0].dir, tmp.file("plugins/linked"));
}

TEST(PluginScan, BadPackageFailsAlone) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "a-good", hook_toml("[\"*\"]"));
  write_plugin(tmp.path(), "b-bad", "[[hook\n");
  write_plugin(tmp.path(), "c-empty-events", hook_toml("[]"));
  write_plugin(tmp.path(), "d-good");
  auto set = PluginSet::scan(tmp.path());
  EXPECT_EQ(names_of(*set), (std::vector<std::string>{"a-good", "d-good"}));
  ASSERT_EQ(set->failures().size(), 2u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("b-bad"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("plugin.toml: line 3"));
  EXPECT_EQ(set->failures()[1].dir, tmp.file("c-empty-events"));
  EXPECT_THAT(set->failures()[1].error, HasSubstr("plugin.toml: [[hook]] #1 events: empty"));
}

TEST(PluginScan, NameOtherThanItsDirectoryIsAFailure) {
  TempDir tmp("signaltty-plugins");
  std::filesystem::create_directory(tmp.file("renamed"));
  write_file(tmp.file("renamed/plugin.toml"), "[plugin]\nname = \"original\"\n");
  auto set = PluginSet::scan(tmp.path());
  EXPECT_TRUE(set->plugins().empty());
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("renamed"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("is not its directory's name 'renamed'"));
}

TEST(PluginScan, ResolvesArgv0AgainstThePackageDir) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "log", hook_toml("[\"*\"]", "[\"./log.sh\", \"-v\"]"));
  auto set = PluginSet::scan(tmp.path());
  ASSERT_EQ(set->plugins().size(), 1u);
  EXPECT_EQ(set->plugins()[0].hooks.at(0).command,
            (std::vector<std::string>{tmp.file("log/log.sh"), "-v"}));
}

TEST(PluginScan, RelativeDirIsMadeAbsolute) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "rel", hook_toml("[\"*\"]", "[\"bin/run\"]"));
  const std::filesystem::path relative =
      std::filesystem::relative(tmp.path(), std::filesystem::current_path());
  ASSERT_TRUE(relative.is_relative());
  auto set = PluginSet::scan(relative.string() + "/");
  ASSERT_EQ(set->plugins().size(), 1u);
  const Plugin& plugin = set->plugins()[0];
  EXPECT_TRUE(std::filesystem::path(set->dir()).is_absolute()) << set->dir();
  EXPECT_TRUE(std::filesystem::equivalent(set->dir(), tmp.path()));
  EXPECT_TRUE(std::filesystem::path(plugin.hooks.at(0).command.at(0)).is_absolute());
  EXPECT_TRUE(std::filesystem::equivalent(plugin.dir, tmp.file("rel")));
}

TEST(PluginScan, HugeManifestIsAFailureAndFast) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "huge", "# " + std::string(10u << 20, 'x') + "\n");
  write_plugin(tmp.path(), "small");
  const auto started = std::chrono::steady_clock::now();
  auto set = PluginSet::scan(tmp.path());
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(names_of(*set), std::vector<std::string>{"small"});
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("huge"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("plugin.toml: larger than 65536 bytes"));
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(PluginScan, FifoManifestIsAFailureAndNeverBlocks) {
  TempDir tmp("signaltty-plugins");
  std::filesystem::create_directory(tmp.file("pipe"));
  const std::string fifo = tmp.file("pipe/plugin.toml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  write_plugin(tmp.path(), "z-after");
  auto scanning = std::async(std::launch::async, [&] { return PluginSet::scan(tmp.path()); });
  if (scanning.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    // Let a reader blocked in open() go so the test can end, then fail.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    FAIL() << "scanning a package with a fifo blocked";
  }
  auto set = scanning.get();
  EXPECT_EQ(names_of(*set), std::vector<std::string>{"z-after"});
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("pipe"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("plugin.toml: not a regular file"));
}

TEST(PluginScan, SymlinkedManifestIsRefused) {
  TempDir tmp("signaltty-plugins");
  std::filesystem::create_directory(tmp.file("linked"));
  write_file(tmp.file("real.toml"), "[plugin]\nname = \"linked\"\n");
  std::filesystem::create_symlink(tmp.file("real.toml"), tmp.file("linked/plugin.toml"));
  std::filesystem::create_directory(tmp.file("dangling"));
  std::filesystem::create_symlink(tmp.file("nowhere"), tmp.file("dangling/plugin.toml"));
  auto set = PluginSet::scan(tmp.path());
  EXPECT_TRUE(set->plugins().empty());
  ASSERT_EQ(set->failures().size(), 2u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("dangling"));
  EXPECT_EQ(set->failures()[1].dir, tmp.file("linked"));
  for (const auto& failure : set->failures())
    EXPECT_THAT(failure.error, HasSubstr("plugin.toml: a symbolic link, not a regular file"));
}

TEST(PluginScan, DirectoryNamedPluginTomlIsAFailure) {
  TempDir tmp("signaltty-plugins");
  std::filesystem::create_directories(tmp.file("odd/plugin.toml"));
  auto set = PluginSet::scan(tmp.path());
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_THAT(set->failures()[0].error, HasSubstr("plugin.toml: not a regular file"));
}

TEST(PluginScan, UnreadableDirIsOneFailure) {
  if (::geteuid() == 0) GTEST_SKIP() << "root lists any dir";
  TempDir tmp("signaltty-plugins");
  const std::string dir = tmp.file("locked");
  write_plugin(dir, "inside");
  ASSERT_EQ(::chmod(dir.c_str(), 0), 0);
  auto set = PluginSet::scan(dir);
  ::chmod(dir.c_str(), 0700);  // so the temp dir can be removed
  EXPECT_TRUE(set->plugins().empty());
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, dir);
  EXPECT_THAT(set->failures()[0].error, HasSubstr("Permission denied"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr(dir));
}

TEST(PluginScan, UnreadablePackageFailsAlone) {
  if (::geteuid() == 0) GTEST_SKIP() << "root opens any dir";
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "locked");
  write_plugin(tmp.path(), "open");
  const std::string locked = tmp.file("locked");
  ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  auto set = PluginSet::scan(tmp.path());
  ::chmod(locked.c_str(), 0700);
  EXPECT_EQ(names_of(*set), std::vector<std::string>{"open"});
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, locked);
  EXPECT_THAT(set->failures()[0].error, HasSubstr("Permission denied"));
}

TEST(PluginScan, FileInPlaceOfTheDirIsOneFailure) {
  TempDir tmp("signaltty-plugins");
  write_file(tmp.file("plugins"), "");
  auto set = PluginSet::scan(tmp.file("plugins"));
  EXPECT_TRUE(set->plugins().empty());
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("plugins"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("Not a directory"));
}

TEST(PluginScan, ReadsAtMost256DirsAndReportsTheRestOnce) {
  TempDir tmp("signaltty-plugins");
  for (int i = 0; i < 300; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "p%03d", 299 - i);  // written in reverse
    write_plugin(tmp.path(), name);
  }
  auto set = PluginSet::scan(tmp.path());
  ASSERT_EQ(set->plugins().size(), kPluginDirMaxPackages);
  EXPECT_EQ(set->plugins().front().name, "p000");
  EXPECT_EQ(set->plugins().back().name, "p255");
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].dir, tmp.file("p256"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("the 43 entries after it"));
  EXPECT_THAT(set->failures()[0].error, HasSubstr("at most 256"));
}

TEST(PluginScan, ASetOutlivesItsSuccessor) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "p", hook_toml("[\"agent.done\"]"));
  PluginRegistry registry = PluginRegistry::scan(tmp.path());
  const std::vector<HookRef> held = registry.matching_hooks("agent.done");
  ASSERT_EQ(held.size(), 1u);
  write_plugin(tmp.path(), "p", hook_toml("[\"agent.failed\"]"));
  registry.reload();
  EXPECT_EQ(held[0].hook().events, std::vector<std::string>{"agent.done"});
  EXPECT_TRUE(registry.matching_hooks("agent.done").empty());
  EXPECT_EQ(registry.matching_hooks("agent.failed").size(), 1u);
}

// ---- which hooks an event fires -------------------------------------------------

TEST(PluginHooks, MatchingHooksFollowTheGlobsInPluginThenHookOrder) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "b-all", hook_toml("[\"*\"]"));
  write_plugin(tmp.path(), "a-some",
               hook_toml("[\"agent.*\"]") + hook_toml("[\"pane.created\", \"agent.done\"]"));
  PluginRegistry registry = PluginRegistry::scan(tmp.path());
  using Matches = std::vector<std::pair<std::string, std::size_t>>;
  EXPECT_EQ(matches_of(registry.matching_hooks("agent.done")),
            (Matches{{"a-some", 0}, {"a-some", 1}, {"b-all", 0}}));
  EXPECT_EQ(matches_of(registry.matching_hooks("agent.failed")),
            (Matches{{"a-some", 0}, {"b-all", 0}}));
  EXPECT_EQ(matches_of(registry.matching_hooks("pane.created")),
            (Matches{{"a-some", 1}, {"b-all", 0}}));
  EXPECT_EQ(matches_of(registry.matching_hooks("agentx")), (Matches{{"b-all", 0}}));
  EXPECT_EQ(matches_of(registry.matching_hooks("agent.")), (Matches{{"b-all", 0}}));
}

TEST(PluginHooks, PtyDataIsNeverOffered) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "greedy",
               hook_toml("[\"*\"]") + hook_toml("[\"pty.*\"]") + hook_toml("[\"pty.data\"]"));
  PluginRegistry registry = PluginRegistry::scan(tmp.path());
  EXPECT_TRUE(registry.matching_hooks("pty.data").empty());
  EXPECT_EQ(registry.matching_hooks("pty.snapshot").size(), 2u);
}

TEST(PluginHooks, EmptyRegistryMatchesNothing) {
  PluginRegistry registry;
  EXPECT_TRUE(registry.matching_hooks("agent.done").empty());
  registry.reload();  // no dir: still nothing, and no scan of the cwd
  EXPECT_TRUE(registry.set()->plugins().empty());
  EXPECT_TRUE(registry.set()->failures().empty());
  EXPECT_EQ(registry.describe().dir, "");
}

// ---- statistics -----------------------------------------------------------------

TEST(PluginStats, RecordsSuccessesAndFailures) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "p", hook_toml("[\"agent.done\"]") + hook_toml("[\"agent.*\"]"));
  PluginRegistry registry = PluginRegistry::scan(tmp.path(), counting_clock());
  const std::vector<HookRef> hooks = registry.matching_hooks("agent.done");
  ASSERT_EQ(hooks.size(), 2u);
  EXPECT_EQ(registry.stats(hooks[0])->runs, 0u);
  EXPECT_EQ(registry.stats(hooks[0])->last_run, std::nullopt);

  registry.record_run(hooks[0], {});
  HookStats first = *registry.stats(hooks[0]);
  EXPECT_EQ(first.runs, 1u);
  EXPECT_EQ(first.errors, 0u);
  EXPECT_EQ(first.last_error, std::nullopt);
  EXPECT_EQ(first.last_run, "t1");

  registry.record_run(hooks[0], Error{ErrorCode::IoError, "exit 3: boom"});
  registry.record_run(hooks[0], {});
  first = *registry.stats(hooks[0]);
  EXPECT_EQ(first.runs, 3u);
  EXPECT_EQ(first.errors, 1u);
  EXPECT_EQ(first.last_error, "exit 3: boom");  // kept past a later success
  EXPECT_EQ(first.last_run, "t3");

  const HookStats second = *registry.stats(hooks[1]);
  EXPECT_EQ(second.runs, 0u);
  EXPECT_EQ(second.last_run, std::nullopt);
}

TEST(PluginStats, LastErrorIsCleanedAndCutAt500Chars) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "p", hook_toml("[\"*\"]"));
  PluginRegistry registry = PluginRegistry::scan(tmp.path());
  const HookRef hook = registry.matching_hooks("agent.done").at(0);

  registry.record_run(hook, Error{ErrorCode::IoError, std::string(600, 'x')});
  EXPECT_EQ(registry.stats(hook)->last_error, std::string(kHookErrorMaxChars, 'x'));

  std::string accented;
  for (int i = 0; i < 600; ++i) accented += "é";
  registry.record_run(hook, Error{ErrorCode::IoError, accented});
  const std::string kept = *registry.stats(hook)->last_error;
  EXPECT_EQ(kept.size(), 2 * kHookErrorMaxChars);  // 500 two-byte characters
  EXPECT_EQ(kept, accented.substr(0, 2 * kHookErrorMaxChars));

  registry.record_run(hook, Error{ErrorCode::IoError, "exit 1: \x1b[31mred\x1b[0m\xff\nnext"});
  EXPECT_EQ(registry.stats(hook)->last_error, "exit 1: [31mred[0m\nnext");
  EXPECT_EQ(hook_error_text(std::string(501, 'y')).size(), 500u);
}

TEST(PluginStats, ReloadResetsStatsAndIgnoresRunsOfTheOldSet) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "p", hook_toml("[\"*\"]"));
  PluginRegistry registry = PluginRegistry::scan(tmp.path(), counting_clock());
  const HookRef before = registry.matching_hooks("agent.done").at(0);
  registry.record_run(before, Error{ErrorCode::Timeout, "timed out after 10s"});
  ASSERT_EQ(registry.stats(before)->runs, 1u);

  registry.reload();
  EXPECT_EQ(registry.stats(before), std::nullopt);
  const HookRef after = registry.matching_hooks("agent.done").at(0);
  EXPECT_EQ(registry.stats(after)->runs, 0u);
  EXPECT_EQ(registry.stats(after)->errors, 0u);
  EXPECT_EQ(registry.stats(after)->last_error, std::nullopt);
  EXPECT_EQ(registry.stats(after)->last_run, std::nullopt);

  // A hook that was running across the reload finishes: not counted.
  registry.record_run(before, Error{ErrorCode::IoError, "exit 1: late"});
  EXPECT_EQ(registry.stats(after)->runs, 0u);
  EXPECT_EQ(registry.describe().plugins.at(0).hooks.at(0).runs, 0u);
  EXPECT_EQ(before.plugin().name, "p");  // still alive through the reference
}

TEST(PluginStats, ReloadPicksUpNewAndRemovedPackages) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "first");
  PluginRegistry registry = PluginRegistry::scan(tmp.path());
  ASSERT_EQ(names_of(*registry.set()), std::vector<std::string>{"first"});
  std::filesystem::remove_all(tmp.file("first"));
  write_plugin(tmp.path(), "second", hook_toml("[\"*\"]"));
  registry.reload();
  EXPECT_EQ(names_of(*registry.set()), std::vector<std::string>{"second"});
  EXPECT_EQ(registry.matching_hooks("task.created").size(), 1u);
}

// ---- plugin.list ----------------------------------------------------------------

TEST(PluginDescribe, EncodesThePluginListShapeWithNulls) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "bare",
               hook_toml("[\"agent.done\"]", "[\"/bin/true\"]") +
                   "[[command]]\nname = \"go\"\nrun = [\"go.sh\"]\n");
  write_plugin(tmp.path(), "broken", "[[hook]]\nevents = []\ncommand = [\"x\"]\n");
  PluginRegistry registry = PluginRegistry::scan(tmp.path());
  const Json list = protocol::encode(registry.describe());

  EXPECT_EQ(keys_of(list), (std::set<std::string>{"dir", "plugins", "failures"}));
  EXPECT_EQ(list["dir"], tmp.path());
  ASSERT_EQ(list["plugins"].size(), 1u);
  const Json& plugin = list["plugins"][0];
  EXPECT_EQ(keys_of(plugin),
            (std::set<std::string>{"name", "version", "description", "dir", "hooks", "commands"}));
  EXPECT_EQ(plugin["name"], "bare");
  EXPECT_EQ(plugin["version"], "");
  EXPECT_TRUE(plugin["description"].is_null());
  EXPECT_EQ(plugin["dir"], tmp.file("bare"));

  ASSERT_EQ(plugin["hooks"].size(), 1u);
  const Json& hook = plugin["hooks"][0];
  EXPECT_EQ(keys_of(hook), (std::set<std::string>{"events", "command", "timeout_secs", "runs",
                                                  "errors", "last_error", "last_run"}));
  EXPECT_EQ(hook["events"], Json::array({"agent.done"}));
  EXPECT_EQ(hook["command"], Json::array({"/bin/true"}));
  EXPECT_EQ(hook["timeout_secs"], 10);
  EXPECT_EQ(hook["runs"], 0);
  EXPECT_EQ(hook["errors"], 0);
  EXPECT_TRUE(hook["last_error"].is_null());
  EXPECT_TRUE(hook["last_run"].is_null());

  ASSERT_EQ(plugin["commands"].size(), 1u);
  const Json& command = plugin["commands"][0];
  EXPECT_EQ(keys_of(command), (std::set<std::string>{"name", "description", "run"}));
  EXPECT_EQ(command["name"], "go");
  EXPECT_TRUE(command["description"].is_null());
  EXPECT_EQ(command["run"], Json::array({"go.sh"}));

  ASSERT_EQ(list["failures"].size(), 1u);
  const Json& failure = list["failures"][0];
  EXPECT_EQ(keys_of(failure), (std::set<std::string>{"dir", "error"}));
  EXPECT_EQ(failure["dir"], tmp.file("broken"));
  EXPECT_EQ(failure["error"], "plugin.toml: [[hook]] #1 events: empty");
}

TEST(PluginDescribe, CarriesDescriptionsAndStatistics) {
  TempDir tmp("signaltty-plugins");
  write_plugin(tmp.path(), "full",
               "version = \"1.2.0\"\ndescription = \"all of it\"\n" +
                   hook_toml("[\"agent.*\"]", "[\"./h.sh\", \"a\"]") + "timeout_secs = 42\n" +
                   "[[command]]\nname = \"go\"\ndescription = \"goes\"\nrun = [\"go\"]\n");
  PluginRegistry registry =
      PluginRegistry::scan(tmp.path(), [] { return std::string("2026-01-02T03:04:05.000Z"); });
  const HookRef hook = registry.matching_hooks("agent.idle").at(0);
  registry.record_run(hook, Error{ErrorCode::IoError, "exit 2: nope"});
  registry.record_run(hook, {});
  const Json plugin = protocol::encode(registry.describe())["plugins"][0];
  EXPECT_EQ(plugin["version"], "1.2.0");
  EXPECT_EQ(plugin["description"], "all of it");
  const Json& h = plugin["hooks"][0];
  EXPECT_EQ(h["command"], Json::array({tmp.file("full/h.sh"), "a"}));
  EXPECT_EQ(h["timeout_secs"], 42);
  EXPECT_EQ(h["runs"], 2);
  EXPECT_EQ(h["errors"], 1);
  EXPECT_EQ(h["last_error"], "exit 2: nope");
  EXPECT_EQ(h["last_run"], "2026-01-02T03:04:05.000Z");
  EXPECT_EQ(plugin["commands"][0]["description"], "goes");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::plugins
