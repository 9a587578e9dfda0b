// tests/broker/manifests_test.cpp: broker/agents/manifests: the bundled
// manifests, one manifest's fields and every way a file can be rejected,
// loading an agents dir (sorted, bounded, never blocked by a fifo or a huge
// file, IO_ERROR only for a dir that cannot be listed), which rules apply to
// a pane, and the detection overlays.
#include "broker/agents/manifests.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker::agents {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::AgentKind;
using protocol::RuleSource;
using protocol::ScreenRuleState;
using signaltty::broker::testing::TempDir;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

std::vector<std::string> ids_of(const RuleSelection& selection) {
  std::vector<std::string> ids;
  for (const ScreenRule* rule : selection.rules) ids.push_back(rule->id);
  return ids;
}

std::shared_ptr<const ManifestSet> load_ok(const std::string& dir) {
  auto set = ManifestSet::load(dir);
  EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().message);
  return set.ok() ? *set : std::make_shared<const ManifestSet>();
}

// The one failure loading `text` as `file` gives (or "" when it loads).
std::string rejection(const std::string& file, const std::string& text) {
  auto manifest = parse_manifest(file, text);
  return manifest.ok() ? std::string() : manifest.error().message;
}

std::string rule_toml(const std::string& id, const std::string& body) {
  return "[[screen]]\nid = \"" + id + "\"\n" + body + "\n";
}

const std::string kClaudeHeader = "[agent]\nkind = \"claude\"\n";

// ---- the bundled manifests ----------------------------------------------------

TEST(ManifestBundled, EveryBundledFileParsesAndEndsInIdleFallback) {
  const auto texts = bundled_manifest_texts();
  const auto set = ManifestSet::bundled_only();
  ASSERT_EQ(texts.size(), 12u);
  ASSERT_EQ(set->bundled().size(), texts.size());
  for (const Manifest& manifest : set->bundled()) {
    ASSERT_FALSE(manifest.screen.empty()) << manifest.file;
    const ScreenRule& last = manifest.screen.back();
    EXPECT_EQ(last.id, "idle_fallback") << manifest.file;
    EXPECT_EQ(last.state, ScreenRuleState::Idle) << manifest.file;
    EXPECT_EQ(last.priority, -1000) << manifest.file;
    EXPECT_EQ(last.region, Region::Bottom) << manifest.file;
    EXPECT_EQ(last.any.size(), 1u) << manifest.file;
  }
  EXPECT_TRUE(set->user().empty());
  EXPECT_TRUE(set->failures().empty());
  EXPECT_EQ(set->dir(), "");
}

TEST(ManifestBundled, NamesTheKindsAndProgramsItCovers) {
  const auto set = ManifestSet::bundled_only();
  for (AgentKind kind :
       {AgentKind::Claude, AgentKind::Codex, AgentKind::Opencode, AgentKind::Cursor, AgentKind::Pi})
    EXPECT_EQ(set->rules_for(kind, "").source, RuleSource::Bundled);
  EXPECT_EQ(set->rules_for(AgentKind::Generic, "bash").source, RuleSource::None);
  EXPECT_EQ(set->rules_for(AgentKind::Generic, "").source, RuleSource::None);
  EXPECT_EQ(set->rules_for(AgentKind::Generic, "muse-bin").source, RuleSource::None);
  EXPECT_EQ(set->rules_for(AgentKind::Generic, "muse-bin-arm64").source, RuleSource::Bundled);
  EXPECT_EQ(set->rules_for(AgentKind::None, "claude").source, RuleSource::None);
  EXPECT_TRUE(set->rules_for(AgentKind::None, "claude").rules.empty());
  // Bundled binaries scope rules; they are not detection overlays.
  EXPECT_EQ(set->kind_of_program("gemini"), std::nullopt);
}

// ---- one manifest -----------------------------------------------------------------

TEST(ManifestParse, ReadsEveryField) {
  const std::string text = R"toml(
[agent]
kind = "codex"
display_name = "Codex (wrapped)"
binaries = ["codex-wrap", "cx-*"]

[session]
key = "thread_id"
resume = ["codex-wrap", "resume", "{session_id}"]

[lifecycle.SomeFutureHook]
lifecycle = "working"
attention = "unread"
message = "started"

[lifecycle.Quiet]

[[screen]]
id = "defaults"
state = "working"
regex = ['x']

[[screen]]
id = "everything"
state = "hold"
region = "before_current_prompt"
lines = 200
regex = ['a', 'b']
all = ['c']
not = ['d']
priority = -7
)toml";
  auto parsed = parse_manifest("wrap.toml", text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Manifest& m = *parsed;
  EXPECT_EQ(m.file, "wrap.toml");
  EXPECT_EQ(m.kind, AgentKind::Codex);
  EXPECT_EQ(m.display_name, "Codex (wrapped)");
  EXPECT_EQ(m.binaries, (std::vector<std::string>{"codex-wrap", "cx-*"}));
  EXPECT_EQ(m.session_key, "thread_id");
  EXPECT_EQ(m.resume, (std::vector<std::string>{"codex-wrap", "resume", "{session_id}"}));
  ASSERT_EQ(m.lifecycle.size(), 2u);
  const LifecycleOverlay& hook = m.lifecycle.at("SomeFutureHook");
  EXPECT_EQ(hook.lifecycle, protocol::Lifecycle::Working);
  EXPECT_EQ(hook.attention, protocol::Attention::Unread);
  EXPECT_EQ(hook.message, "started");
  EXPECT_FALSE(m.lifecycle.at("Quiet").lifecycle);
  ASSERT_EQ(m.screen.size(), 2u);
  const ScreenRule& defaults = m.screen[0];
  EXPECT_EQ(defaults.region, Region::Bottom);
  EXPECT_EQ(defaults.lines, 0);
  EXPECT_EQ(defaults.priority, 0);
  const ScreenRule& all = m.screen[1];
  EXPECT_EQ(all.state, ScreenRuleState::Hold);
  EXPECT_EQ(all.region, Region::BeforeCurrentPrompt);
  EXPECT_EQ(all.lines, 200);
  EXPECT_EQ(all.priority, -7);
  EXPECT_EQ(all.any.size(), 2u);
  EXPECT_EQ(all.all.size(), 1u);
  EXPECT_EQ(all.none.size(), 1u);
}

TEST(ManifestParse, AnAgentSectionAloneIsAManifest) {
  auto parsed = parse_manifest("min.toml", "[agent]\nkind = \"generic\"\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->screen.empty());
  EXPECT_TRUE(parsed->binaries.empty());
}

struct BadManifest {
  std::string what;
  std::string text;
  std::vector<std::string> says;  // each must appear in the error
};

std::vector<BadManifest> bad_manifests() {
  const std::string ok_rule = "state = \"idle\"\nregex = ['x']";
  return {
      {"not TOML", "[agent\nkind = 1", {"bad.toml: ", "line 1"}},
      {"not TOML at line 3", "[agent]\nkind = \"claude\"\nthis is not toml", {"line 3"}},
      {"unknown top-level key", kClaudeHeader + "[extra]\n", {"unknown key 'extra'"}},
      {"unknown agent key", "[agent]\nkind = \"claude\"\nkinds = 1\n", {"agent", "'kinds'"}},
      {"unknown session key",
       kClaudeHeader + "[session]\nresume_argv = []\n",
       {"session", "'resume_argv'"}},
      {"unknown rule key",
       kClaudeHeader + rule_toml("r", ok_rule + "\nregion_name = \"top\""),
       {"rule 'r'", "'region_name'"}},
      {"unknown lifecycle key",
       kClaudeHeader + "[lifecycle.Stop]\nstate = \"done\"\n",
       {"lifecycle.Stop", "'state'"}},
      {"no [agent]", rule_toml("r", ok_rule), {"[agent]: missing"}},
      {"missing kind", "[agent]\ndisplay_name = \"x\"\n", {"agent.kind: missing"}},
      {"kind none", "[agent]\nkind = \"none\"\n", {"'none' is not one of", "generic"}},
      {"unknown kind", "[agent]\nkind = \"robot\"\n", {"'robot'"}},
      {"kind not a string", "[agent]\nkind = 3\n", {"agent.kind: expected a string"}},
      {"binaries not strings", "[agent]\nkind = \"generic\"\nbinaries = [1]\n", {"agent.binaries"}},
      {"binary matching everything",
       "[agent]\nkind = \"generic\"\nbinaries = [\"*\"]\n",
       {"agent.binaries", "names no program"}},
      {"empty resume", kClaudeHeader + "[session]\nresume = []\n", {"session.resume"}},
      {"bad lifecycle",
       kClaudeHeader + "[lifecycle.Stop]\nlifecycle = \"asleep\"\n",
       {"lifecycle.Stop.lifecycle", "'asleep'"}},
      {"bad attention",
       kClaudeHeader + "[lifecycle.Stop]\nattention = \"loud\"\n",
       {"lifecycle.Stop.attention", "'loud'"}},
      {"screen not tables", "screen = [1]\n" + kClaudeHeader, {"[[screen]] #1"}},
      {"missing id", kClaudeHeader + "[[screen]]\n" + ok_rule + "\n", {"[[screen]] #1", "id"}},
      {"missing state",
       kClaudeHeader + rule_toml("r", "regex = ['x']"),
       {"rule 'r'", "state: missing"}},
      {"bad state",
       kClaudeHeader + rule_toml("r", "state = \"busy\"\nregex = ['x']"),
       {"rule 'r'", "'busy'"}},
      {"bad region",
       kClaudeHeader + rule_toml("r", ok_rule + "\nregion = \"middle\""),
       {"rule 'r'", "'middle' is not a region"}},
      {"lines 0",
       kClaudeHeader + rule_toml("r", ok_rule + "\nlines = 0"),
       {"rule 'r'", "lines: 0 is outside 1..=200"}},
      {"lines 201",
       kClaudeHeader + rule_toml("r", ok_rule + "\nlines = 201"),
       {"rule 'r'", "lines: 201"}},
      {"lines not an integer",
       kClaudeHeader + rule_toml("r", ok_rule + "\nlines = 1.5"),
       {"rule 'r'", "lines: expected an integer"}},
      {"priority not an integer",
       kClaudeHeader + rule_toml("r", ok_rule + "\npriority = \"1\""),
       {"rule 'r'", "priority"}},
      {"no regex or all",
       kClaudeHeader + rule_toml("r", "state = \"idle\"\nnot = ['x']"),
       {"rule 'r'", "needs a `regex` or `all`"}},
      {"empty regex and all lists",
       kClaudeHeader + rule_toml("r", "state = \"idle\"\nregex = []"),
       {"rule 'r'", "needs a `regex` or `all`"}},
      {"backreference",
       kClaudeHeader + rule_toml("approval", "state = \"blocked\"\nregex = ['(a)\\1']"),
       {"bad.toml: ", "rule 'approval'", "regex[0]"}},
      {"lookahead in all",
       kClaudeHeader + rule_toml("peek", "state = \"idle\"\nall = ['x', '(?=y)']"),
       {"bad.toml: ", "rule 'peek'", "all[1]"}},
      {"bad not pattern",
       kClaudeHeader + rule_toml("neg", ok_rule + "\nnot = ['(']"),
       {"rule 'neg'", "not[0]"}},
      {"pattern over 4 KiB",
       kClaudeHeader +
           rule_toml("long", "state = \"idle\"\nregex = ['" + std::string(4097, 'a') + "']"),
       {"rule 'long'", "longer than 4096"}},
      {"second rule bad, first fine",
       kClaudeHeader + rule_toml("fine", ok_rule) +
           rule_toml("broken", "state = \"nope\"\nregex = ['x']"),
       {"rule 'broken'"}},
  };
}

TEST(ManifestParse, RejectsEachMalformedManifestNamingFileAndRule) {
  for (const BadManifest& bad : bad_manifests()) {
    const std::string error = rejection("bad.toml", bad.text);
    ASSERT_FALSE(error.empty()) << bad.what;
    EXPECT_TRUE(error.starts_with("bad.toml: ")) << bad.what << ": " << error;
    for (const std::string& part : bad.says)
      EXPECT_NE(error.find(part), std::string::npos) << bad.what << ": " << error;
  }
}

TEST(ManifestParse, MessagesQuoteAtMostAnExcerpt) {
  const std::string error =
      rejection("long.toml", kClaudeHeader + std::string(5000, 'k') + " = 1\n");
  EXPECT_LT(error.size(), 200u) << error;
  EXPECT_NE(error.find("agent: unknown key 'kkkk"), std::string::npos) << error;
  EXPECT_NE(error.find("k…'"), std::string::npos) << error;
}

TEST(ManifestParse, BoundsRulesPerFile) {
  std::string at_limit = kClaudeHeader;
  for (std::size_t i = 0; i < kManifestMaxScreenRules; ++i)
    at_limit += rule_toml("r" + std::to_string(i), "state = \"idle\"\nregex = ['x']");
  EXPECT_EQ(rejection("at_limit.toml", at_limit), "");
  std::string over = at_limit + rule_toml("one_more", "state = \"idle\"\nregex = ['x']");
  EXPECT_NE(rejection("over.toml", over).find("257 rules, more than 256"), std::string::npos);
}

TEST(ManifestParse, BoundsPatternsPerFile) {
  std::string patterns;
  for (int i = 0; i < 60; ++i) patterns += (i ? ", 'p" : "'p") + std::to_string(i) + "'";
  std::string text = kClaudeHeader;
  for (int r = 0; r < 20; ++r)  // 1200 patterns
    text += rule_toml("r" + std::to_string(r), "state = \"idle\"\nregex = [" + patterns + "]");
  EXPECT_NE(rejection("many.toml", text).find("more than 1024 patterns"), std::string::npos);
}

TEST(ManifestParse, BinaryEntriesMatchExactlyOrByPrefix) {
  EXPECT_TRUE(binary_matches("muse", "muse"));
  EXPECT_FALSE(binary_matches("muse", "muse-code"));
  EXPECT_FALSE(binary_matches("muse", "mus"));
  EXPECT_TRUE(binary_matches("muse-bin-*", "muse-bin-x64"));
  EXPECT_TRUE(binary_matches("muse-bin-*", "muse-bin-"));
  EXPECT_FALSE(binary_matches("muse-bin-*", "muse-bin"));
  EXPECT_FALSE(binary_matches("muse-bin-*", "xmuse-bin-1"));
}

// ---- loading a dir ----------------------------------------------------------------

TEST(ManifestLoad, MissingDirHoldsNoUserManifests) {
  TempDir tmp("signaltty-manifests");
  const std::string dir = tmp.file("absent");
  auto set = load_ok(dir);
  EXPECT_EQ(set->dir(), dir);
  EXPECT_TRUE(set->user().empty());
  EXPECT_TRUE(set->failures().empty());
  EXPECT_EQ(set->bundled().size(), ManifestSet::bundled_only()->bundled().size());
  EXPECT_EQ(set->rules_for(AgentKind::Claude, "claude").source, RuleSource::Bundled);
}

TEST(ManifestLoad, ReadsTomlFilesSortedByNameAndSkipsTheRest) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("b.toml"), "[agent]\nkind = \"pi\"\n");
  write_file(tmp.file("a.toml"), "[agent]\nkind = \"codex\"\nbinaries = [\"cx\"]\n");
  write_file(tmp.file("notes.txt"), "not a manifest");
  write_file(tmp.file(".hidden.toml"), "garbage");
  write_file(tmp.file("c.toml.bak"), "garbage");
  auto set = load_ok(tmp.path());
  ASSERT_EQ(set->user().size(), 2u);
  EXPECT_EQ(set->user()[0].file, "a.toml");
  EXPECT_EQ(set->user()[1].file, "b.toml");
  EXPECT_TRUE(set->failures().empty());
  const protocol::AgentsListResult listed = set->describe();
  EXPECT_EQ(listed.dir, tmp.path());
  ASSERT_EQ(listed.manifests.size(), 2u);
  EXPECT_EQ(listed.manifests[0].file, "a.toml");
  EXPECT_EQ(listed.manifests[0].kind, AgentKind::Codex);
  EXPECT_EQ(listed.manifests[0].binaries, std::vector<std::string>{"cx"});
  EXPECT_EQ(listed.manifests[0].screen_rules, 0u);
  EXPECT_TRUE(listed.failures.empty());
}

TEST(ManifestLoad, MalformedFilesAreFailuresBesideTheGoodOnes) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("good.toml"),
             kClaudeHeader + rule_toml("mine", "state = \"idle\"\nregex = ['x']"));
  write_file(tmp.file("broken.toml"), "[agent\n");
  write_file(tmp.file("regex.toml"),
             kClaudeHeader + rule_toml("approval", "state = \"blocked\"\nregex = ['(?=x)']"));
  auto set = load_ok(tmp.path());
  ASSERT_EQ(set->user().size(), 1u);
  EXPECT_EQ(set->user()[0].file, "good.toml");
  const auto listed = set->describe();
  ASSERT_EQ(listed.failures.size(), 2u);
  EXPECT_EQ(listed.failures[0].file, "broken.toml");
  EXPECT_NE(listed.failures[0].error.find("broken.toml: line "), std::string::npos);
  EXPECT_EQ(listed.failures[1].file, "regex.toml");
  EXPECT_NE(listed.failures[1].error.find("regex.toml: [[screen]] rule 'approval': regex[0]"),
            std::string::npos)
      << listed.failures[1].error;
  EXPECT_EQ(listed.manifests.size(), 1u);
  EXPECT_EQ(listed.manifests[0].screen_rules, 1u);
}

TEST(ManifestLoad, HugeFileIsAFailureReadOnlyToItsBound) {
  TempDir tmp("signaltty-manifests");
  std::string huge = kClaudeHeader + "# ";
  huge.resize(10u << 20, 'x');
  write_file(tmp.file("huge.toml"), huge);
  // Sparse: reading it whole would take minutes and 16 GiB.
  write_file(tmp.file("sparse.toml"), "");
  ASSERT_EQ(::truncate(tmp.file("sparse.toml").c_str(), std::int64_t{16} << 30), 0);
  write_file(tmp.file("just_right.toml"), [] {
    std::string text = "[agent]\nkind = \"pi\"\n# ";
    text.resize(kManifestMaxBytes - 1, 'x');
    return text + "\n";
  }());
  const auto started = std::chrono::steady_clock::now();
  auto set = load_ok(tmp.path());
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(set->failures().size(), 2u);
  for (const auto& failure : set->failures())
    EXPECT_NE(failure.error.find("larger than 1048576 bytes"), std::string::npos) << failure.error;
  EXPECT_EQ(set->failures()[0].file, "huge.toml");
  EXPECT_EQ(set->failures()[1].file, "sparse.toml");
  ASSERT_EQ(set->user().size(), 1u);
  EXPECT_EQ(set->user()[0].file, "just_right.toml");
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(ManifestLoad, TenThousandRulesAreAFailure) {
  TempDir tmp("signaltty-manifests");
  std::string text = kClaudeHeader;
  for (int i = 0; i < 10000; ++i)
    text += rule_toml("r" + std::to_string(i), "state = \"idle\"\nregex = ['x']");
  ASSERT_LT(text.size(), kManifestMaxBytes);
  write_file(tmp.file("rules.toml"), text);
  auto set = load_ok(tmp.path());
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_NE(set->failures()[0].error.find("10000 rules, more than 256"), std::string::npos)
      << set->failures()[0].error;
  EXPECT_TRUE(set->user().empty());
}

TEST(ManifestLoad, FifoIsAFailureAndNeverBlocks) {
  TempDir tmp("signaltty-manifests");
  const std::string fifo = tmp.file("pipe.toml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  write_file(tmp.file("z.toml"), "[agent]\nkind = \"pi\"\n");
  auto loading = std::async(std::launch::async, [&] { return ManifestSet::load(tmp.path()); });
  if (loading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    // Let a reader blocked in open() go so the test can end, then fail.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    FAIL() << "loading a dir with a fifo blocked";
  }
  auto set = loading.get();
  ASSERT_TRUE(set.ok());
  ASSERT_EQ((*set)->failures().size(), 1u);
  EXPECT_EQ((*set)->failures()[0].file, "pipe.toml");
  EXPECT_NE((*set)->failures()[0].error.find("not a regular file"), std::string::npos);
  EXPECT_EQ((*set)->user().size(), 1u);
}

TEST(ManifestLoad, DirsAndSymlinksAreFailures) {
  TempDir tmp("signaltty-manifests");
  std::filesystem::create_directory(tmp.file("subdir.toml"));
  write_file(tmp.file("real.txt"), "[agent]\nkind = \"pi\"\n");
  std::filesystem::create_symlink(tmp.file("real.txt"), tmp.file("link.toml"));
  auto set = load_ok(tmp.path());
  EXPECT_TRUE(set->user().empty());
  ASSERT_EQ(set->failures().size(), 2u);
  EXPECT_EQ(set->failures()[0].file, "link.toml");
  EXPECT_NE(set->failures()[0].error.find("link.toml: a symbolic link"), std::string::npos);
  EXPECT_EQ(set->failures()[1].file, "subdir.toml");
  EXPECT_NE(set->failures()[1].error.find("not a regular file"), std::string::npos);
}

TEST(ManifestLoad, ReadsAtMost256FilesAndReportsTheRestOnce) {
  TempDir tmp("signaltty-manifests");
  for (int i = 0; i < 260; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "m%03d.toml", 259 - i);  // written in reverse
    write_file(tmp.file(name), "[agent]\nkind = \"pi\"\n");
  }
  auto set = load_ok(tmp.path());
  ASSERT_EQ(set->user().size(), kManifestMaxFiles);
  EXPECT_EQ(set->user().front().file, "m000.toml");
  EXPECT_EQ(set->user().back().file, "m255.toml");
  ASSERT_EQ(set->failures().size(), 1u);
  EXPECT_EQ(set->failures()[0].file, "m256.toml");
  EXPECT_NE(set->failures()[0].error.find("the 3 manifests after it"), std::string::npos)
      << set->failures()[0].error;
}

TEST(ManifestLoad, UnlistableDirIsAnIoError) {
  TempDir tmp("signaltty-manifests");
  const std::string dir = tmp.file("locked");
  std::filesystem::create_directory(dir);
  write_file(dir + "/a.toml", "[agent]\nkind = \"pi\"\n");
  ASSERT_EQ(::chmod(dir.c_str(), 0), 0);
  auto set = ManifestSet::load(dir);
  ::chmod(dir.c_str(), 0700);  // so the temp dir can be removed
  if (::geteuid() == 0) GTEST_SKIP() << "root lists any dir";
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().code, ErrorCode::IoError);
  EXPECT_NE(set.error().message.find(dir), std::string::npos) << set.error().message;
}

TEST(ManifestLoad, FileInPlaceOfTheDirIsAnIoError) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("agents"), "");
  auto set = ManifestSet::load(tmp.file("agents"));
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().code, ErrorCode::IoError);
}

// ---- which rules apply --------------------------------------------------------------

TEST(ManifestRules, UserRulesReplaceTheBundledOnesOfTheirKind) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("claude.toml"),
             kClaudeHeader + rule_toml("mine", "state = \"working\"\nregex = ['x']"));
  write_file(tmp.file("codex.toml"), "[agent]\nkind = \"codex\"\nbinaries = [\"cx\"]\n");
  auto set = load_ok(tmp.path());
  const RuleSelection claude = set->rules_for(AgentKind::Claude, "claude");
  EXPECT_EQ(claude.source, RuleSource::User);
  EXPECT_EQ(ids_of(claude), std::vector<std::string>{"mine"});
  // A manifest without [[screen]] rules leaves the bundled ones in place.
  const RuleSelection codex = set->rules_for(AgentKind::Codex, "cx");
  EXPECT_EQ(codex.source, RuleSource::Bundled);
  EXPECT_EQ(ids_of(codex), ids_of(ManifestSet::bundled_only()->rules_for(AgentKind::Codex, "")));
}

TEST(ManifestRules, EveryUserManifestOfAKindContributesInFileOrder) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("b.toml"), kClaudeHeader + rule_toml("b1", "state = \"idle\"\nregex = ['']"));
  write_file(tmp.file("a.toml"), kClaudeHeader +
                                     rule_toml("a1", "state = \"blocked\"\nregex = ['']") +
                                     rule_toml("a2", "state = \"idle\"\nregex = ['']"));
  auto set = load_ok(tmp.path());
  const RuleSelection selection = set->rules_for(AgentKind::Claude, "");
  EXPECT_EQ(ids_of(selection), (std::vector<std::string>{"a1", "a2", "b1"}));
  // All three match at priority 0: the first file's first rule wins.
  const RuleTrace trace = evaluate(selection.rules, ScreenText{"", {"anything"}});
  ASSERT_TRUE(trace.winner);
  EXPECT_EQ(selection.rules[*trace.winner]->id, "a1");
}

TEST(ManifestRules, GenericRulesFollowTheProgram) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("muse-nightly.toml"),
             "[agent]\nkind = \"generic\"\nbinaries = [\"muse-bin-*\"]\n" +
                 rule_toml("nightly", "state = \"working\"\nregex = ['x']"));
  auto set = load_ok(tmp.path());
  const RuleSelection nightly = set->rules_for(AgentKind::Generic, "muse-bin-nightly");
  EXPECT_EQ(nightly.source, RuleSource::User);
  EXPECT_EQ(ids_of(nightly), std::vector<std::string>{"nightly"});
  // Other programs keep their bundled rules, or none.
  const RuleSelection muse = set->rules_for(AgentKind::Generic, "muse");
  EXPECT_EQ(muse.source, RuleSource::Bundled);
  EXPECT_EQ(muse.rules.back()->id, "idle_fallback");
  EXPECT_EQ(set->rules_for(AgentKind::Generic, "gemini").source, RuleSource::Bundled);
  EXPECT_EQ(set->rules_for(AgentKind::Generic, "bash").source, RuleSource::None);
  // A generic manifest's rules never reach another kind.
  EXPECT_EQ(set->rules_for(AgentKind::Claude, "muse-bin-nightly").source, RuleSource::Bundled);
}

TEST(ManifestRules, GenericManifestWithoutBinariesAppliesToEveryGenericPane) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("shells.toml"), "[agent]\nkind = \"generic\"\n" +
                                          rule_toml("any", "state = \"idle\"\nregex = ['\\$ $']"));
  auto set = load_ok(tmp.path());
  for (std::string_view program : {"bash", "gemini", "muse-bin-x", ""}) {
    const RuleSelection selection = set->rules_for(AgentKind::Generic, program);
    EXPECT_EQ(selection.source, RuleSource::User) << program;
    EXPECT_EQ(ids_of(selection), std::vector<std::string>{"any"}) << program;
  }
  EXPECT_EQ(set->rules_for(AgentKind::Codex, "codex").source, RuleSource::Bundled);
}

TEST(ManifestRules, DetectionOverlaysNameTheirKind) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("a.toml"),
             "[agent]\nkind = \"codex\"\nbinaries = [\"codex-wrap\", \"cx-*\"]\n");
  write_file(tmp.file("b.toml"), "[agent]\nkind = \"claude\"\nbinaries = [\"cx-beta\", \"cc\"]\n");
  write_file(tmp.file("c.toml"), "[agent]\nkind = \"pi\"\n");
  auto set = load_ok(tmp.path());
  EXPECT_EQ(set->kind_of_program("codex-wrap"), AgentKind::Codex);
  EXPECT_EQ(set->kind_of_program("cx-beta"), AgentKind::Codex);  // a.toml comes first
  EXPECT_EQ(set->kind_of_program("cc"), AgentKind::Claude);
  EXPECT_EQ(set->kind_of_program("codex"), std::nullopt);
  EXPECT_EQ(set->kind_of_program("cx"), std::nullopt);
  EXPECT_EQ(set->kind_of_program(""), std::nullopt);
}

TEST(ManifestRules, ASetOutlivesItsSuccessor) {
  TempDir tmp("signaltty-manifests");
  write_file(tmp.file("claude.toml"),
             kClaudeHeader + rule_toml("old", "state = \"idle\"\nregex = ['x']"));
  auto old_set = load_ok(tmp.path());
  const RuleSelection held = old_set->rules_for(AgentKind::Claude, "");
  write_file(tmp.file("claude.toml"),
             kClaudeHeader + rule_toml("new", "state = \"idle\"\nregex = ['x']"));
  auto new_set = load_ok(tmp.path());
  EXPECT_EQ(ids_of(held), std::vector<std::string>{"old"});
  EXPECT_EQ(ids_of(new_set->rules_for(AgentKind::Claude, "")), std::vector<std::string>{"new"});
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::agents
