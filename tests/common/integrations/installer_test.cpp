// tests/common/integrations/installer_test.cpp: install, uninstall and
// status against temporary homes holding real-shaped config files: foreign
// values survive, malformed or odd files are refused with nothing written,
// a second install writes nothing, ours are refreshed in place, mixed
// groups lose only our commands, symlinks and file modes are kept, and
// the OpenCode plugin file is ours or left alone.
#include "common/integrations/installer.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "common/integrations/hook_command.hpp"
#include "tests/common/integrations/temp_home.hpp"

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::entries;
using testing::fixture;
using testing::OrderedJson;
using testing::parse;
using testing::slurp;
using testing::spit;
using testing::stat_of;
using testing::TempHome;

struct Case {
  Provider provider;
  const char* fixture;
  const char* file;
};
const Case kClaude{Provider::Claude, "claude-settings.json", ".claude/settings.json"};
const Case kCodex{Provider::Codex, "codex-hooks.json", ".codex/hooks.json"};
const Case kCursor{Provider::Cursor, "cursor-hooks.json", ".cursor/hooks.json"};

// The commands of ours under hooks.<event>, in either file shape.
std::vector<OrderedJson> ours_in(const OrderedJson& doc, const std::string& event) {
  std::vector<OrderedJson> out;
  if (!doc.contains("hooks") || !doc["hooks"].contains(event)) return out;
  for (const auto& item : doc["hooks"][event]) {
    const auto& list = item.contains("hooks") ? item["hooks"] : OrderedJson::array({item});
    for (const auto& entry : list)
      if (entry.contains("command") && is_managed_command(entry["command"].get<std::string>()))
        out.push_back(entry);
  }
  return out;
}

class Installer : public ::testing::TestWithParam<Case> {
 protected:
  TempHome home;
  std::string relay = home.fake_relay();
  std::string file = home / GetParam().file;
};

TEST_P(Installer, InstallAddsOneManagedHookPerEventAndKeepsEveryForeignValue) {
  const std::string original = fixture(GetParam().fixture);
  spit(file, original);
  auto done = install(GetParam().provider, file, relay);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(done->changed);
  const OrderedJson before = parse(original), after = parse(slurp(file));
  for (const auto& [key, value] : before.items())
    if (key != "hooks") {
      EXPECT_EQ(after[key], value) << key;
    }
  for (const auto& [event, groups] : before["hooks"].items())
    for (const auto& group : groups)
      EXPECT_NE(std::find(after["hooks"][event].begin(), after["hooks"][event].end(), group),
                after["hooks"][event].end())
          << "foreign hook lost under " << event;
  for (auto event : managed_events(GetParam().provider)) {
    auto ours = ours_in(after, std::string(event));
    ASSERT_EQ(ours.size(), 1u) << event;
    EXPECT_EQ(ours[0]["command"], *managed_command(relay, GetParam().provider, event));
    EXPECT_EQ(ours[0]["timeout"], hook_timeout_secs(GetParam().provider, event));
  }
  EXPECT_TRUE(slurp(file).ends_with("}\n"));
}

TEST_P(Installer, UninstallAfterInstallGivesBackTheOriginalValue) {
  const std::string original = fixture(GetParam().fixture);
  spit(file, original);
  ASSERT_TRUE(install(GetParam().provider, file, relay).ok());
  auto removed = uninstall(GetParam().provider, file);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_TRUE(removed->changed);
  EXPECT_EQ(parse(slurp(file)), parse(original));
}

TEST_P(Installer, ASecondInstallReportsNoChangeAndDoesNotRewriteTheFile) {
  spit(file, fixture(GetParam().fixture));
  ASSERT_TRUE(install(GetParam().provider, file, relay).ok());
  const struct stat first = stat_of(file);
  auto again = install(GetParam().provider, file, relay);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->changed);
  const struct stat second = stat_of(file);
  EXPECT_EQ(first.st_ino, second.st_ino);
  EXPECT_EQ(first.st_mtim.tv_sec, second.st_mtim.tv_sec);
  EXPECT_EQ(first.st_mtim.tv_nsec, second.st_mtim.tv_nsec);
}

TEST_P(Installer, InstallCreatesAMissingFilePrivately) {
  auto done = install(GetParam().provider, file, relay);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(done->changed);
  EXPECT_EQ(stat_of(file).st_mode & 07777, 0600u);
  const OrderedJson doc = parse(slurp(file));
  if (GetParam().provider == Provider::Cursor) {
    EXPECT_EQ(doc["version"], 1);
  }
  EXPECT_EQ(doc["hooks"].size(), managed_events(GetParam().provider).size());
}

TEST_P(Installer, UninstallOfAMissingFileWritesNothing) {
  auto done = uninstall(GetParam().provider, file);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(done->changed);
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_P(Installer, RefusesMalformedFilesAndWritesNothing) {
  const std::vector<std::string> bad = {"{\"hooks\": {", "[1, 2]", "{\"hooks\": []}",
                                        "{\"hooks\": {\"" + std::string(managed_events(GetParam().provider)[0]) +
                                            "\": {}}}",
                                        ""};
  for (const auto& text : bad) {
    spit(file, text);
    auto done = install(GetParam().provider, file, relay);
    EXPECT_FALSE(done.ok()) << text;
    EXPECT_EQ(slurp(file), text);
    auto removed = uninstall(GetParam().provider, file);
    EXPECT_FALSE(removed.ok()) << text;
    EXPECT_EQ(slurp(file), text);
  }
  const std::string dir = std::filesystem::path(file).parent_path();
  const std::string name = std::filesystem::path(file).filename();
  EXPECT_EQ(entries(dir), (std::set<std::string>{name, "." + name + ".signaltty.lock"}));
}

TEST_P(Installer, RefusesAFileOverFourMebibytes) {
  std::string big = "{\"padding\": \"" + std::string(4u << 20, 'x') + "\"}\n";
  spit(file, big);
  auto done = install(GetParam().provider, file, relay);
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.error().message.find("larger than"), std::string::npos);
  EXPECT_EQ(slurp(file).size(), big.size());
}

TEST_P(Installer, RefusesANonRegularFile) {
  std::filesystem::create_directories(file);
  EXPECT_FALSE(install(GetParam().provider, file, relay).ok());
  EXPECT_TRUE(std::filesystem::is_directory(file));
  std::filesystem::remove(file);
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  auto done = install(GetParam().provider, file, relay);
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.error().message.find("not a regular file"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_fifo(file));
}

TEST_P(Installer, KeepsTheFilesMode) {
  spit(file, fixture(GetParam().fixture));
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  ASSERT_TRUE(install(GetParam().provider, file, relay).ok());
  EXPECT_EQ(stat_of(file).st_mode & 07777, 0644u);
}

TEST_P(Installer, WritesThroughASymlinkAndKeepsTheLink) {
  const std::string target = home / "dotfiles/agent.json";
  spit(target, fixture(GetParam().fixture));
  std::filesystem::create_directories(std::filesystem::path(file).parent_path());
  std::filesystem::create_symlink(target, file);
  auto done = install(GetParam().provider, file, relay);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->file, target);
  EXPECT_TRUE(std::filesystem::is_symlink(file));
  EXPECT_EQ(ours_in(parse(slurp(target)), std::string(managed_events(GetParam().provider)[0])).size(), 1u);
}

TEST_P(Installer, RefusesAReporterThatIsNotAnExecutableFile) {
  const std::string plain = home / "bin/not-executable";
  spit(plain, "#!/bin/sh\n");
  EXPECT_FALSE(install(GetParam().provider, file, plain).ok());
  EXPECT_FALSE(install(GetParam().provider, file, home / "bin/missing").ok());
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_P(Installer, RefusesAReporterPathWithASingleQuote) {
  const std::string quoted = home.fake_relay("it's/signaltty-hookrelay");
  auto done = install(GetParam().provider, file, quoted);
  ASSERT_FALSE(done.ok());
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_P(Installer, StatusSaysInstalledMissingAndStale) {
  auto none = status(GetParam().provider, file, relay);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->exists);
  EXPECT_FALSE(none->installed);
  ASSERT_TRUE(install(GetParam().provider, file, home.fake_relay("old/signaltty-hookrelay")).ok());
  auto stale = status(GetParam().provider, file, relay);
  ASSERT_TRUE(stale.ok());
  EXPECT_TRUE(stale->installed);
  EXPECT_TRUE(stale->stale);
  ASSERT_TRUE(install(GetParam().provider, file, relay).ok());
  auto fresh = status(GetParam().provider, file, relay);
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->installed);
  EXPECT_FALSE(fresh->stale);
  EXPECT_TRUE(fresh->missing_events.empty());
}

INSTANTIATE_TEST_SUITE_P(HookFiles, Installer, ::testing::Values(kClaude, kCodex, kCursor),
                         [](const auto& info) { return std::string(provider_name(info.param.provider)); });

class ClaudeHooks : public ::testing::Test {
 protected:
  TempHome home;
  std::string relay = home.fake_relay();
  std::string file = home / ".claude/settings.json";
  std::string managed(std::string_view event) { return *managed_command(relay, Provider::Claude, event); }
};

TEST_F(ClaudeHooks, ALegacyCommandIsRefreshedInPlace) {
  spit(file, R"({"hooks": {"Stop": [{"matcher": "", "hooks": [
      {"type": "command", "command": "notify-send done"},
      {"type": "command", "command": "/usr/local/bin/signaltty hook-event --agent claude --event Stop --payload-stdin"}
  ]}]}})");
  ASSERT_TRUE(install(Provider::Claude, file, relay).ok());
  const OrderedJson doc = parse(slurp(file));
  ASSERT_EQ(doc["hooks"]["Stop"].size(), 1u);
  const auto& inner = doc["hooks"]["Stop"][0]["hooks"];
  EXPECT_EQ(inner[0]["command"], "notify-send done");
  EXPECT_EQ(inner[1]["command"], managed("Stop"));
  EXPECT_EQ(inner[1]["timeout"], 10);
}

TEST_F(ClaudeHooks, AStalePathIsRewrittenWhereItSits) {
  spit(file, R"JSON({"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [
      {"type": "command", "command": "'/gone/signaltty-hookrelay' --agent claude --event PermissionRequest # signaltty hook-event (managed)", "timeout": 3}
  ]}]}})JSON");
  ASSERT_TRUE(install(Provider::Claude, file, relay).ok());
  const OrderedJson doc = parse(slurp(file));
  ASSERT_EQ(doc["hooks"]["PermissionRequest"].size(), 1u);
  EXPECT_EQ(doc["hooks"]["PermissionRequest"][0]["matcher"], "Bash");
  const auto& entry = doc["hooks"]["PermissionRequest"][0]["hooks"][0];
  EXPECT_EQ(entry["command"], managed("PermissionRequest"));
  EXPECT_EQ(entry["timeout"], 125);
}

TEST_F(ClaudeHooks, UninstallTakesOnlyOurCommandsOutOfMixedGroups) {
  const std::string mixed = "'/x/signaltty-hookrelay' --agent claude --event Stop # signaltty hook-event (managed)";
  OrderedJson doc = parse(R"({"hooks": {
      "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
      "SessionEnd": [{"matcher": "*", "hooks": []}],
      "PreCompact": []}})");
  doc["hooks"]["Stop"][0]["hooks"].push_back({{"type", "command"}, {"command", mixed}});
  doc["hooks"]["SessionEnd"][0]["hooks"].push_back({{"type", "command"}, {"command", mixed}});
  doc["hooks"]["SessionStart"] = OrderedJson::parse(R"([{"matcher": "", "hooks": []}])");
  doc["hooks"]["SessionStart"][0]["hooks"].push_back({{"type", "command"}, {"command", mixed}});
  spit(file, doc.dump(2));
  auto done = uninstall(Provider::Claude, file);
  ASSERT_TRUE(done.ok()) << done.error().message;
  const OrderedJson after = parse(slurp(file));
  EXPECT_EQ(after["hooks"]["Stop"], parse(R"([{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}])"));
  EXPECT_EQ(after["hooks"]["SessionEnd"], parse(R"([{"matcher": "*", "hooks": []}])"));
  EXPECT_EQ(after["hooks"]["PreCompact"], OrderedJson::array());
  EXPECT_FALSE(after["hooks"].contains("SessionStart"));
}

TEST_F(ClaudeHooks, UninstallDropsTheHooksObjectOnlyWhenItEmptiedIt) {
  ASSERT_TRUE(install(Provider::Claude, file, relay).ok());
  ASSERT_TRUE(uninstall(Provider::Claude, file).ok());
  EXPECT_EQ(parse(slurp(file)), OrderedJson::object());
  spit(file, R"({"hooks": {}})");
  auto untouched = uninstall(Provider::Claude, file);
  ASSERT_TRUE(untouched.ok());
  EXPECT_FALSE(untouched->changed);
  EXPECT_EQ(slurp(file), R"({"hooks": {}})");
}

TEST_F(ClaudeHooks, KeepsTheUsersKeyOrderAndDisabledHooksSetting) {
  spit(file, R"({"zeta": 1, "disableAllHooks": true, "alpha": {"b": 2, "a": 1}})");
  ASSERT_TRUE(install(Provider::Claude, file, relay).ok());
  const std::string text = slurp(file);
  EXPECT_LT(text.find("zeta"), text.find("disableAllHooks"));
  EXPECT_LT(text.find("disableAllHooks"), text.find("alpha"));
  EXPECT_LT(text.find("\"b\""), text.find("\"a\""));
  EXPECT_EQ(parse(text)["disableAllHooks"], true);
}

class OpencodePlugin : public ::testing::Test {
 protected:
  TempHome home;
  std::string relay = home.fake_relay();
  std::string file = home / ".config/opencode/plugins/signaltty.js";
};

TEST_F(OpencodePlugin, InstallWritesOurPluginOnceAndUninstallDeletesIt) {
  auto done = install(Provider::Opencode, file, relay);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(done->changed);
  EXPECT_TRUE(slurp(file).starts_with(
      "// signaltty hook-event shim for OpenCode (managed by `signaltty integration`).\n"));
  EXPECT_NE(slurp(file).find(relay), std::string::npos);
  auto again = install(Provider::Opencode, file, relay);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->changed);
  auto st = status(Provider::Opencode, file, relay);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->installed);
  EXPECT_FALSE(st->stale);
  auto removed = uninstall(Provider::Opencode, file);
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(removed->changed);
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(OpencodePlugin, AForeignPluginIsRefusedByInstallAndLeftByUninstall) {
  const std::string foreign = "export const Mine = async () => ({});\n";
  spit(file, foreign);
  auto done = install(Provider::Opencode, file, relay);
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.error().message.find("not ours"), std::string::npos);
  auto removed = uninstall(Provider::Opencode, file);
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(removed->changed);
  EXPECT_EQ(slurp(file), foreign);
  auto st = status(Provider::Opencode, file, relay);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->foreign_plugin);
  EXPECT_FALSE(st->installed);
}

TEST_F(OpencodePlugin, AMovedRelayMakesThePluginStaleAndInstallRefreshesIt) {
  ASSERT_TRUE(install(Provider::Opencode, file, home.fake_relay("old/signaltty-hookrelay")).ok());
  auto st = status(Provider::Opencode, file, relay);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->stale);
  auto done = install(Provider::Opencode, file, relay);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->changed);
  EXPECT_NE(slurp(file).find(relay), std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
