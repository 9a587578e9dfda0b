// tests/broker/screen_rules_test.cpp: broker/agents/screen_rules: each
// region on the real Claude Code and Codex screens in tests/fixtures/agents
// and on small made-up ones, rule evaluation (priority, ties, hold, regex /
// all / not), RE2's bounds, and the bundled rules classifying every
// captured screen, including edited ones that quote a dialog in the
// transcript or show a dialog beside a working hint.
#include "broker/agents/screen_rules.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "broker/agents/manifests.hpp"

namespace signaltty::broker::agents {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::AgentKind;
using protocol::RuleSource;
using protocol::ScreenRuleState;
using State = ScreenRuleState;

constexpr std::string_view kClaude = "claude-code-2.1.332";
constexpr std::string_view kCodex = "codex-0.171.0";

// A captured screen: one row per line of NAME.txt.
ScreenText fixture_screen(std::string_view agent, std::string_view name) {
  const std::string path = std::string(SIGNALTTY_AGENT_FIXTURES) + "/" + std::string(agent) + "/" +
                           std::string(name) + ".txt";
  std::ifstream in(path);
  if (!in) ADD_FAILURE() << "missing fixture " << path;
  ScreenText screen;
  for (std::string row; std::getline(in, row);) screen.rows.push_back(row);
  return screen;
}

ScreenText screen_of(std::vector<std::string> rows, std::string title = {}) {
  return ScreenText{std::move(title), std::move(rows)};
}

// The screen with `rows` put in place of the rows from `at` on.
ScreenText overwritten(ScreenText screen, std::size_t at, const std::vector<std::string>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) screen.rows.at(at + i) = rows[i];
  return screen;
}

ScreenText appended(ScreenText screen, const std::vector<std::string>& rows) {
  screen.rows.insert(screen.rows.end(), rows.begin(), rows.end());
  return screen;
}

std::vector<Pattern> patterns(const std::vector<std::string>& sources) {
  std::vector<Pattern> out;
  for (const std::string& source : sources) {
    auto compiled = compile_pattern(source);
    EXPECT_TRUE(compiled.ok()) << source;
    if (compiled.ok()) out.push_back(*compiled);
  }
  return out;
}

struct RuleSpec {
  std::string id;
  State state = State::Idle;
  std::vector<std::string> any;
  std::int64_t priority = 0;
  Region region = Region::Screen;
  std::vector<std::string> all = {};
  std::vector<std::string> none = {};
  int lines = 0;
};

ScreenRule rule(const RuleSpec& spec) {
  return ScreenRule{spec.id,       spec.state,         spec.region,        spec.lines,
                    spec.priority, patterns(spec.any), patterns(spec.all), patterns(spec.none)};
}

std::vector<const ScreenRule*> pointers(const std::vector<ScreenRule>& rules) {
  std::vector<const ScreenRule*> out;
  for (const ScreenRule& r : rules) out.push_back(&r);
  return out;
}

// The winning rule's id, or "" when none matched.
std::string winner_id(const std::vector<ScreenRule>& rules, const ScreenText& screen) {
  const auto ptrs = pointers(rules);
  const RuleTrace trace = evaluate(ptrs, screen);
  return trace.winner ? rules[*trace.winner].id : std::string();
}

// What the bundled rules make of a screen: the winner's state and id.
struct Verdict {
  std::optional<State> state;
  std::string rule;
};

Verdict bundled_verdict(AgentKind kind, const ScreenText& screen, std::string_view program = {}) {
  const auto set = ManifestSet::bundled_only();
  const RuleSelection selection = set->rules_for(kind, program);
  const RuleTrace trace = evaluate(selection.rules, screen);
  if (!trace.winner) return {};
  const ScreenRule& winner = *selection.rules[*trace.winner];
  return {winner.state, winner.id};
}

std::string name_of(std::optional<State> state) {
  if (!state) return "no match";
  return protocol::Codec<State>::encode(*state).get<std::string>();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// ---- regions on the captured screens ------------------------------------------

TEST(ScreenRuleRegions, ClaudeIdleScreenSplitsAtItsPromptBox) {
  const ScreenText screen = fixture_screen(kClaude, "04-turn1-done");
  EXPECT_EQ(region_text(screen, Region::PromptBox, 0), "❯");  // "❯\u00A0" trimmed
  EXPECT_EQ(region_text(screen, Region::AfterLastRule, 0),
            "⏸ manual mode on · ? for shortcuts · ← for agents");
  const auto above = lines_of(region_text(screen, Region::AbovePromptBox, 0));
  ASSERT_EQ(above.size(), 7u);
  EXPECT_EQ(above.front(), "▐▛███▛█   Claude Code v2.1.332");
  EXPECT_EQ(above[4], "● Hello from fake");
  EXPECT_EQ(above.back(), "◐ medium · /effort");
  EXPECT_EQ(region_text(screen, Region::AbovePromptBox, 2),
            "✻ Cogitated for 3s · done 5:28 AM\n◐ medium · /effort");
}

TEST(ScreenRuleRegions, ClaudeScreenBottomAndTopCountNonEmptyLines) {
  const ScreenText screen = fixture_screen(kClaude, "07-permission-prompt");
  const auto whole = lines_of(region_text(screen, Region::Screen, 0));
  ASSERT_EQ(whole.size(), 23u);
  const auto bottom = lines_of(region_text(screen, Region::Bottom, 0));
  ASSERT_EQ(bottom.size(), 12u);
  EXPECT_EQ(bottom.front(), "Bash command");
  EXPECT_EQ(bottom.back(), "Esc to cancel · Tab to amend");
  EXPECT_EQ(region_text(screen, Region::Bottom, 2), "4. No\nEsc to cancel · Tab to amend");
  const auto top = lines_of(region_text(screen, Region::Top, 0));
  ASSERT_EQ(top.size(), 12u);
  EXPECT_EQ(top.front(), "▐▛███▛█   Claude Code v2.1.332");
  EXPECT_EQ(top.back(), "Bash command");
  EXPECT_EQ(region_text(screen, Region::Top, 1), "▐▛███▛█   Claude Code v2.1.332");
  EXPECT_EQ(region_text(screen, Region::Screen, 200), region_text(screen, Region::Screen, 0));
}

TEST(ScreenRuleRegions, ClaudeDialogIsWhatFollowsTheOnlyRule) {
  const ScreenText screen = fixture_screen(kClaude, "07-permission-prompt");
  // One ─ rule (the ╌ lines are not rules): no prompt box.
  EXPECT_EQ(region_text(screen, Region::PromptBox, 0), "");
  EXPECT_EQ(region_text(screen, Region::AbovePromptBox, 0), region_text(screen, Region::Screen, 0));
  const auto dialog = lines_of(region_text(screen, Region::AfterLastRule, 0));
  ASSERT_EQ(dialog.size(), 12u);
  EXPECT_EQ(dialog.front(), "Bash command");
  EXPECT_EQ(dialog[6], "Do you want to proceed?");
  EXPECT_EQ(dialog[7], "❯ 1. Yes");
  EXPECT_EQ(dialog.back(), "Esc to cancel · Tab to amend");
}

TEST(ScreenRuleRegions, ClaudeRuleWithASessionNameIsARule) {
  const ScreenText screen = fixture_screen(kClaude, "12-renamed");
  EXPECT_EQ(region_text(screen, Region::PromptBox, 0), "❯");
  EXPECT_EQ(region_text(screen, Region::AfterLastRule, 0), "⏸ manual mode on · ? for shortcuts");
  EXPECT_EQ(region_text(screen, Region::AbovePromptBox, 1),
            "⎿ \u00A0Session renamed to: fake-session");
}

TEST(ScreenRuleRegions, ClaudeExitedScreenHasNoRules) {
  const ScreenText screen = fixture_screen(kClaude, "14-exited");
  const std::string whole = region_text(screen, Region::Screen, 0);
  EXPECT_EQ(whole,
            "Resume this session with:\nclaude --resume f24b762b-2869-43be-8be5-e6f312f13eb1\n"
            "Pane is dead (status 0, Mon Nov 30 05:28:42 2026)");
  EXPECT_EQ(region_text(screen, Region::AfterLastRule, 0), whole);
  EXPECT_EQ(region_text(screen, Region::AbovePromptBox, 0), whole);
  EXPECT_EQ(region_text(screen, Region::PromptBox, 0), "");
}

TEST(ScreenRuleRegions, CodexWorkingScreenSplitsAtTheComposer) {
  const ScreenText screen = fixture_screen(kCodex, "05-working");
  EXPECT_EQ(region_text(screen, Region::BeforeCurrentPrompt, 1),
            "• Working (0s • esc to interrupt)");
  const auto before = lines_of(region_text(screen, Region::BeforeCurrentPrompt, 0));
  ASSERT_EQ(before.size(), 4u);
  EXPECT_EQ(before[2], "› say hello");  // an earlier prompt, followed by a block line
  const auto after = lines_of(region_text(screen, Region::AfterLastPrompt, 0));
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after.front(), "gpt-fake default · /home/user/demo-proj01 · say hello");
  EXPECT_TRUE(after.back().starts_with("← for agents · ? for shortcuts"));
  EXPECT_TRUE(after.back().ends_with("⚠ 2 warnings · f2 to view"));
  EXPECT_EQ(region_text(screen, Region::WithoutCurrentPrompt, 0), "");
}

TEST(ScreenRuleRegions, CodexApprovalOptionsFollowTheLastPrompt) {
  const ScreenText screen = fixture_screen(kCodex, "08-approval");
  EXPECT_EQ(region_text(screen, Region::AfterLastPrompt, 0),
            "2. Yes, and don't ask again for commands that start with `echo approved-by-human > "
            "approved.txt && cat approved.txt`\n(p)\n"
            "3. No, and tell Codex what to do differently (esc)\n"
            "Press enter to confirm or esc to cancel");
  EXPECT_EQ(region_text(screen, Region::BeforeCurrentPrompt, 1),
            "$ echo approved-by-human > approved.txt && cat approved.txt");
  EXPECT_EQ(region_text(screen, Region::WithoutCurrentPrompt, 0), "");
}

TEST(ScreenRuleRegions, CodexBlockLineAfterTheLastPromptMeansNoCurrentPrompt) {
  const ScreenText screen = fixture_screen(kCodex, "10b-warning-1");
  const std::string whole = region_text(screen, Region::Screen, 0);
  EXPECT_EQ(region_text(screen, Region::WithoutCurrentPrompt, 0), whole);
  EXPECT_EQ(region_text(screen, Region::BeforeCurrentPrompt, 0), whole);
  // The last prompt line is still the last prompt line.
  EXPECT_EQ(lines_of(region_text(screen, Region::AfterLastPrompt, 0)).front(),
            "• I will run a shell command; it needs your approval.");
}

TEST(ScreenRuleRegions, CodexExitedScreenHasNoPrompt) {
  const ScreenText screen = fixture_screen(kCodex, "11-exited");
  const std::string whole = region_text(screen, Region::Screen, 0);
  ASSERT_EQ(lines_of(whole).size(), 5u);
  EXPECT_EQ(region_text(screen, Region::AfterLastPrompt, 0), whole);
  EXPECT_EQ(region_text(screen, Region::BeforeCurrentPrompt, 0), whole);
  EXPECT_EQ(region_text(screen, Region::WithoutCurrentPrompt, 0), whole);
}

TEST(ScreenRuleRegions, CodexLinesKeepTheLastLinesOfARegion) {
  const ScreenText screen = fixture_screen(kCodex, "07-working-turn2");
  EXPECT_EQ(region_text(screen, Region::BeforeCurrentPrompt, 2),
            "› please run a shell command\n• Working (0s • esc to interrupt)");
  EXPECT_TRUE(region_text(screen, Region::AfterLastPrompt, 1).starts_with("← for agents · "));
}

// ---- regions on made-up screens ---------------------------------------------

TEST(ScreenRuleRegions, TitleIsThePaneTitleTrimmed) {
  const ScreenText screen = screen_of({"row"}, "  ✳ Claude Code \u00A0");
  EXPECT_EQ(region_text(screen, Region::Title, 0), "✳ Claude Code");
  EXPECT_EQ(region_text(screen_of({"row"}), Region::Title, 0), "");
}

TEST(ScreenRuleRegions, EveryRegionOfAnEmptyScreenIsEmpty) {
  const ScreenText blank = screen_of({"", "   ", "\u00A0"});
  for (int r = 0; r <= static_cast<int>(Region::WithoutCurrentPrompt); ++r)
    EXPECT_EQ(region_text(blank, static_cast<Region>(r), 0), "")
        << region_name(static_cast<Region>(r));
}

TEST(ScreenRuleRegions, WhatCountsAsAHorizontalRule) {
  // A rule is followed by "after" and preceded by "before".
  const auto after_rule = [](const std::string& line) {
    return region_text(screen_of({"before", line, "after"}), Region::AfterLastRule, 0);
  };
  EXPECT_EQ(after_rule("─"), "after");
  EXPECT_EQ(after_rule("  ──  "), "after");
  EXPECT_EQ(after_rule("─── label ─"), "after");
  EXPECT_EQ(after_rule("──────────────"), "after");
  EXPECT_EQ(after_rule("── label"), "before\n── label\nafter");  // short run with a label
  EXPECT_EQ(after_rule("x───"), "before\nx───\nafter");
  EXPECT_EQ(after_rule("╌╌╌╌"), "before\n╌╌╌╌\nafter");
  EXPECT_EQ(after_rule("-----"), "before\n-----\nafter");
}

TEST(ScreenRuleRegions, PromptBoxIsBetweenTheLastTwoRules) {
  const ScreenText screen = screen_of({"old", "───", "stale box", "───", "transcript", "─────",
                                       "  > typed  ", "", "─────", "footer"});
  EXPECT_EQ(region_text(screen, Region::PromptBox, 0), "> typed");
  EXPECT_EQ(region_text(screen, Region::AbovePromptBox, 0), "old\n───\nstale box\n───\ntranscript");
  EXPECT_EQ(region_text(screen, Region::AfterLastRule, 0), "footer");
}

TEST(ScreenRuleRegions, WhatCountsAsACodexPrompt) {
  const auto after_prompt = [](const std::string& line) {
    return region_text(screen_of({"before", line, "after"}), Region::AfterLastPrompt, 0);
  };
  EXPECT_EQ(after_prompt("›"), "after");
  EXPECT_EQ(after_prompt("› typed"), "after");
  EXPECT_EQ(after_prompt("  › indented "), "after");
  EXPECT_EQ(after_prompt("›typed"), "before\n›typed\nafter");
  EXPECT_EQ(after_prompt("> typed"), "before\n> typed\nafter");
  EXPECT_EQ(after_prompt("❯ typed"), "before\n❯ typed\nafter");
}

TEST(ScreenRuleRegions, EachBlockMarkAfterThePromptEndsTheCurrentPrompt) {
  for (const std::string mark : {"•", "■", "✗", "✓"}) {
    const ScreenText screen = screen_of({"above", "› prompt", mark + " block", "below"});
    EXPECT_EQ(region_text(screen, Region::WithoutCurrentPrompt, 0),
              region_text(screen, Region::Screen, 0))
        << mark;
    EXPECT_EQ(region_text(screen, Region::BeforeCurrentPrompt, 0),
              region_text(screen, Region::Screen, 0))
        << mark;
    EXPECT_EQ(region_text(screen, Region::AfterLastPrompt, 0), mark + " block\nbelow") << mark;
  }
  const ScreenText current = screen_of({"• block", "› prompt", "footer ◦ ✔"});
  EXPECT_EQ(region_text(current, Region::BeforeCurrentPrompt, 0), "• block");
  EXPECT_EQ(region_text(current, Region::WithoutCurrentPrompt, 0), "");
}

TEST(ScreenRuleRegions, NamesRoundTrip) {
  const std::vector<std::string> names{"bottom",
                                       "title",
                                       "screen",
                                       "top",
                                       "prompt_box",
                                       "above_prompt_box",
                                       "after_last_rule",
                                       "after_last_prompt",
                                       "before_current_prompt",
                                       "without_current_prompt"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(region_name(static_cast<Region>(i)), names[i]);
    EXPECT_EQ(region_from_name(names[i]), static_cast<Region>(i));
  }
  EXPECT_EQ(region_from_name("Bottom"), std::nullopt);
  EXPECT_EQ(region_from_name(""), std::nullopt);
}

// ---- evaluation ---------------------------------------------------------------

const ScreenText kSample = screen_of({"alpha", "beta", "gamma"}, "the title");

TEST(ScreenRules, HighestPriorityWinsWhateverTheOrder) {
  const std::vector<ScreenRule> rules{rule({"low", State::Idle, {"alpha"}, 1}),
                                      rule({"high", State::Working, {"beta"}, 5}),
                                      rule({"middle", State::Blocked, {"gamma"}, 3}),
                                      rule({"higher_but_no_match", State::Blocked, {"delta"}, 9})};
  const auto ptrs = pointers(rules);
  const RuleTrace trace = evaluate(ptrs, kSample);
  EXPECT_EQ(trace.matched, (std::vector<bool>{true, true, true, false}));
  ASSERT_TRUE(trace.winner);
  EXPECT_EQ(*trace.winner, 1u);
}

TEST(ScreenRules, TiesKeepTheEarlierRule) {
  std::vector<ScreenRule> rules{rule({"first", State::Idle, {"alpha"}, 2}),
                                rule({"second", State::Working, {"beta"}, 2})};
  EXPECT_EQ(winner_id(rules, kSample), "first");
  std::swap(rules[0], rules[1]);
  EXPECT_EQ(winner_id(rules, kSample), "second");
}

TEST(ScreenRules, NoMatchHasNoWinner) {
  const std::vector<ScreenRule> rules{rule({"a", State::Idle, {"zzz"}})};
  const auto ptrs = pointers(rules);
  const RuleTrace trace = evaluate(ptrs, kSample);
  EXPECT_EQ(trace.matched, std::vector<bool>{false});
  EXPECT_FALSE(trace.winner);
  EXPECT_FALSE(evaluate({}, kSample).winner);
}

TEST(ScreenRules, HoldWinsLikeAnyOtherState) {
  const std::vector<ScreenRule> rules{rule({"viewer", State::Hold, {"gamma"}, 10}),
                                      rule({"fallback", State::Idle, {""}, -1000})};
  const auto ptrs = pointers(rules);
  const RuleTrace trace = evaluate(ptrs, kSample);
  ASSERT_TRUE(trace.winner);
  EXPECT_EQ(rules[*trace.winner].state, State::Hold);
}

TEST(ScreenRules, AllNeedsEveryPatternAndNotNeedsNone) {
  EXPECT_EQ(
      winner_id({rule({"all", State::Idle, {}, 0, Region::Screen, {"alpha", "gamma"}})}, kSample),
      "all");
  EXPECT_EQ(
      winner_id({rule({"all", State::Idle, {}, 0, Region::Screen, {"alpha", "delta"}})}, kSample),
      "");
  EXPECT_EQ(
      winner_id({rule({"not", State::Idle, {"alpha"}, 0, Region::Screen, {}, {"delta"}})}, kSample),
      "not");
  EXPECT_EQ(
      winner_id({rule({"not", State::Idle, {"alpha"}, 0, Region::Screen, {}, {"zzz", "beta"}})},
                kSample),
      "");
}

TEST(ScreenRules, RegexNeedsOneOfItsPatternsBesidesAll) {
  EXPECT_EQ(winner_id({rule({"any", State::Idle, {"zzz", "beta"}})}, kSample), "any");
  EXPECT_EQ(winner_id({rule({"any", State::Idle, {"zzz", "yyy"}})}, kSample), "");
  EXPECT_EQ(
      winner_id({rule({"both", State::Idle, {"beta"}, 0, Region::Screen, {"gamma"}})}, kSample),
      "both");
  EXPECT_EQ(
      winner_id({rule({"both", State::Idle, {"zzz"}, 0, Region::Screen, {"gamma"}})}, kSample), "");
}

TEST(ScreenRules, RuleWithoutRegexOrAllNeverMatches) {
  EXPECT_EQ(
      winner_id({rule({"only_not", State::Idle, {}, 0, Region::Screen, {}, {"zzz"}})}, kSample),
      "");
}

TEST(ScreenRules, EmptyRegexMatchesEvenAnEmptyRegion) {
  EXPECT_EQ(winner_id({rule({"empty", State::Idle, {""}, 0, Region::PromptBox})}, kSample),
            "empty");
}

TEST(ScreenRules, MatchingIsAnUnanchoredSearchWithPerLineAnchorsOnRequest) {
  EXPECT_EQ(winner_id({rule({"mid", State::Idle, {"et"}})}, kSample), "mid");
  EXPECT_EQ(winner_id({rule({"line", State::Idle, {"^beta$"}})}, kSample), "");
  EXPECT_EQ(winner_id({rule({"line", State::Idle, {"(?m)^beta$"}})}, kSample), "line");
}

TEST(ScreenRules, EachRuleReadsItsOwnRegion) {
  const std::vector<ScreenRule> rules{
      rule({"title", State::Working, {"^the title$"}, 1, Region::Title}),
      rule({"bottom_one", State::Blocked, {"alpha"}, 2, Region::Bottom, {}, {}, 1}),
      rule({"top_one", State::Idle, {"^alpha$"}, 0, Region::Top, {}, {}, 1})};
  const auto ptrs = pointers(rules);
  const RuleTrace trace = evaluate(ptrs, kSample);
  EXPECT_EQ(trace.matched, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(trace.winner, 0u);
}

TEST(ScreenRules, ExplainListsEveryRuleAndTheWinner) {
  const std::vector<ScreenRule> rules{rule({"a", State::Idle, {"zzz"}, 3, Region::Bottom}),
                                      rule({"b", State::Hold, {"beta"}, 2, Region::AfterLastRule})};
  const auto ptrs = pointers(rules);
  const RuleTrace trace = evaluate(ptrs, kSample);
  const auto rows = explain_rules(ptrs, trace);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "a");
  EXPECT_EQ(rows[0].region, "bottom");
  EXPECT_FALSE(rows[0].matched);
  EXPECT_EQ(rows[1].region, "after_last_rule");
  EXPECT_EQ(rows[1].state, State::Hold);
  EXPECT_TRUE(rows[1].matched);
  const auto winner = explain_winner(ptrs, trace);
  ASSERT_TRUE(winner);
  EXPECT_EQ(winner->id, "b");
  EXPECT_EQ(winner->index, 1u);
  EXPECT_EQ(winner->priority, 2);
}

// ---- patterns -----------------------------------------------------------------

TEST(ScreenRulePatterns, RejectsWhatRe2CannotRunInLinearTime) {
  for (const std::string source : {"(a)\\1", "(?=x)", "(?!x)y", "(?<=x)y", "a{2,1}", "(unclosed"}) {
    auto compiled = compile_pattern(source);
    ASSERT_FALSE(compiled.ok()) << source;
    EXPECT_EQ(compiled.error().code, ErrorCode::BadParams);
    EXPECT_FALSE(compiled.error().message.empty());
  }
}

TEST(ScreenRulePatterns, BoundsPatternLength) {
  EXPECT_TRUE(compile_pattern(std::string(kPatternMaxBytes, 'a')).ok());
  auto long_pattern = compile_pattern(std::string(kPatternMaxBytes + 1, 'a'));
  ASSERT_FALSE(long_pattern.ok());
  EXPECT_NE(long_pattern.error().message.find("longer than 4096"), std::string::npos);
}

TEST(ScreenRulePatterns, MatchesUtf8AsCharacters) {
  EXPECT_EQ(
      winner_id({rule({"one_char", State::Idle, {"^❯.$"}, 0, Region::Title})}, screen_of({}, "❯€")),
      "one_char");
}

TEST(ScreenRulePatterns, BacktrackingBombsStayLinear) {
  const std::string as(120, 'a');
  const std::string xs(120, 'x');
  const ScreenText a_screen = screen_of(std::vector<std::string>(40, as));
  const ScreenText x_screen = screen_of(std::vector<std::string>(40, xs));
  const std::vector<ScreenRule> a_rules{rule({"nested", State::Idle, {"(a+)+$"}}),
                                        rule({"nested_miss", State::Idle, {"(a+)+b$"}})};
  const std::vector<ScreenRule> x_rules{rule({"pair", State::Idle, {"(x+x+)+y"}}),
                                        rule({"alt", State::Idle, {"(?m)^(x|xx)+z$"}})};
  const auto started = std::chrono::steady_clock::now();
  const auto a_ptrs = pointers(a_rules);
  const auto x_ptrs = pointers(x_rules);
  const RuleTrace a_trace = evaluate(a_ptrs, a_screen);
  const RuleTrace x_trace = evaluate(x_ptrs, x_screen);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(a_trace.matched, (std::vector<bool>{true, false}));
  EXPECT_EQ(x_trace.matched, (std::vector<bool>{false, false}));
  EXPECT_LT(took, std::chrono::milliseconds(50));
}

// ---- the bundled rules on every captured screen -------------------------------

struct Capture {
  AgentKind kind;
  std::string_view dir;
  std::string_view name;
  State expected;
};

const Capture kCaptures[] = {
    {AgentKind::Claude, kClaude, "01-idle", State::Idle},
    {AgentKind::Claude, kClaude, "02-typed", State::Idle},
    {AgentKind::Claude, kClaude, "03-working", State::Working},
    {AgentKind::Claude, kClaude, "04-turn1-done", State::Idle},
    {AgentKind::Claude, kClaude, "05-idle-notified", State::Idle},
    {AgentKind::Claude, kClaude, "06-working-tool", State::Working},
    {AgentKind::Claude, kClaude, "07-permission-prompt", State::Blocked},
    {AgentKind::Claude, kClaude, "08-permission-notified", State::Blocked},
    {AgentKind::Claude, kClaude, "09-done", State::Idle},
    {AgentKind::Claude, kClaude, "10-permission-prompt-2", State::Blocked},
    {AgentKind::Claude, kClaude, "11-denied", State::Idle},
    {AgentKind::Claude, kClaude, "12-renamed", State::Idle},
    {AgentKind::Claude, kClaude, "13-slash-exit", State::Idle},
    {AgentKind::Claude, kClaude, "14-exited", State::Idle},
    {AgentKind::Codex, kCodex, "01-folder-trust", State::Blocked},
    {AgentKind::Codex, kCodex, "02-hooks-review", State::Blocked},
    {AgentKind::Codex, kCodex, "03-idle", State::Idle},
    {AgentKind::Codex, kCodex, "04-prompt-typed", State::Idle},
    {AgentKind::Codex, kCodex, "05-working", State::Working},
    {AgentKind::Codex, kCodex, "06-turn1-done", State::Idle},
    {AgentKind::Codex, kCodex, "07-working-turn2", State::Working},
    {AgentKind::Codex, kCodex, "08-approval", State::Blocked},
    {AgentKind::Codex, kCodex, "09-approved-running", State::Working},
    {AgentKind::Codex, kCodex, "10-turn2-done", State::Idle},
    {AgentKind::Codex, kCodex, "10b-warning-1", State::Hold},
    {AgentKind::Codex, kCodex, "10b-warning-2", State::Hold},
    {AgentKind::Codex, kCodex, "11-exited", State::Idle},
};

TEST(ScreenRuleFixtures, BundledRulesClassifyEveryCapture) {
  for (const Capture& capture : kCaptures) {
    const Verdict verdict =
        bundled_verdict(capture.kind, fixture_screen(capture.dir, capture.name));
    EXPECT_EQ(name_of(verdict.state), name_of(capture.expected))
        << capture.dir << "/" << capture.name << " (won by '" << verdict.rule << "')";
  }
}

TEST(ScreenRuleFixtures, EveryCaptureIsAccountedFor) {
  // A new capture needs a row above.
  std::size_t listed = 0;
  for (std::string_view dir : {kClaude, kCodex})
    for (const auto& entry : std::filesystem::directory_iterator(
             std::string(SIGNALTTY_AGENT_FIXTURES) + "/" + std::string(dir)))
      if (entry.path().extension() == ".txt") ++listed;
  EXPECT_EQ(listed, std::size(kCaptures));
}

// ---- what must not fool them ----------------------------------------------------

// Rows 12-15 of Claude's 04-turn1-done are empty transcript rows above the box.
TEST(ScreenRuleFixtures, ClaudeProseQuotingADialogIsNotBlocked) {
  const ScreenText base = fixture_screen(kClaude, "04-turn1-done");
  const ScreenText quoted = overwritten(base, 12, {"● Do you want to proceed?"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Claude, quoted).state), "idle");
  const ScreenText whole_dialog = overwritten(
      base, 12,
      {"● Do you want to proceed?", "❯ 1. Yes", "  2. No", "Esc to cancel · Tab to amend"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Claude, whole_dialog).state), "idle");
}

TEST(ScreenRuleFixtures, ClaudeProseQuotingTheInterruptHintIsNotWorking) {
  const ScreenText quoted = overwritten(fixture_screen(kClaude, "09-done"), 30,
                                        {"● The footer says esc to interrupt while it runs.",
                                         "✶ Whisking… (3s · esc to interrupt) is what it shows"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Claude, quoted).state), "idle");
}

TEST(ScreenRuleFixtures, ClaudeDialogIsNeverIdleOrWorking) {
  for (std::string_view name :
       {"07-permission-prompt", "08-permission-notified", "10-permission-prompt-2"}) {
    const ScreenText dialog = fixture_screen(kClaude, name);
    // A working hint beside the dialog, in the transcript and under it.
    const ScreenText busy =
        appended(overwritten(dialog, 20, {"✶ Whisking… (3s · esc to interrupt)"}),
                 {"  ⏸ manual mode on · esc to interrupt"});
    for (const ScreenText& screen : {dialog, busy}) {
      const Verdict verdict = bundled_verdict(AgentKind::Claude, screen);
      EXPECT_EQ(name_of(verdict.state), "blocked") << name << " (won by " << verdict.rule << ")";
    }
  }
}

// Rows 13-30 of Codex's 06-turn1-done are empty transcript rows above the composer.
TEST(ScreenRuleFixtures, CodexProseQuotingAnApprovalIsNotBlocked) {
  const ScreenText base = fixture_screen(kCodex, "06-turn1-done");
  const ScreenText quoted =
      overwritten(base, 14, {"• Would you like to run the following command?"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Codex, quoted).state), "idle");
  const ScreenText whole_dialog = overwritten(
      base, 14,
      {"• Would you like to run the following command?", "› 1. Yes, proceed (y)",
       "  2. No, and tell Codex what to do differently (esc)",
       "  Press enter to confirm or esc to cancel", "• That is what the approval looks like."});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Codex, whole_dialog).state), "idle");
}

// Row 16 of 10-turn2-done is empty, with six transcript lines below it.
TEST(ScreenRuleFixtures, CodexProseQuotingTheWorkingLineFarUpIsNotWorking) {
  const ScreenText quoted = overwritten(fixture_screen(kCodex, "10-turn2-done"), 15,
                                        {"• It showed • Working (0s • esc to interrupt)"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Codex, quoted).state), "idle");
}

TEST(ScreenRuleFixtures, CodexProseEndingInTheHintIsNotWorking) {
  const ScreenText quoted = overwritten(fixture_screen(kCodex, "06-turn1-done"), 14,
                                        {"  the footer then reads (esc to interrupt)"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Codex, quoted).state), "idle");
}

TEST(ScreenRuleFixtures, CodexDialogIsNeverIdleOrWorking) {
  for (std::string_view name : {"01-folder-trust", "02-hooks-review", "08-approval"}) {
    const ScreenText dialog = fixture_screen(kCodex, name);
    const ScreenText busy = overwritten(dialog, 32, {"• Working (3s • esc to interrupt)"});
    for (const ScreenText& screen : {dialog, busy}) {
      const Verdict verdict = bundled_verdict(AgentKind::Codex, screen);
      EXPECT_EQ(name_of(verdict.state), "blocked") << name << " (won by " << verdict.rule << ")";
    }
  }
}

// ---- the bundled generic programs ---------------------------------------------

TEST(ScreenRuleFixtures, GenericProgramsGetTheirOwnRules) {
  const ScreenText approval = screen_of(
      {"✦ I will write the file.", "╭──────────────────────────────────────╮",
       "│ Allow execution of: 'echo hi > x'?   │", "│                                      │",
       "│ ● 1. Yes, allow once                 │", "│   2. Yes, allow always               │",
       "│   3. No, suggest changes (esc)       │", "╰──────────────────────────────────────╯"});
  const ScreenText working =
      screen_of({"> write the file", "", "⠼ Thinking about it (esc to cancel, 4s)", "",
                 "~/proj        no sandbox        gemini-2.5-pro"});
  const ScreenText idle = screen_of({"> write the file", "✦ Done.", "", "> Type your message"});
  for (std::string_view program :
       {"gemini", "copilot", "github-copilot", "ghcs", "droid", "kilo", "kilo-code", "qodercli",
        "qoderclicn", "qoder", "qodercn", "muse", "muse-code", "muse-cli", "muse-bin-linux-x64",
        "agy", "antigravity", "antigravity-cli"}) {
    EXPECT_EQ(ManifestSet::bundled_only()->rules_for(AgentKind::Generic, program).source,
              RuleSource::Bundled)
        << program;
    EXPECT_EQ(name_of(bundled_verdict(AgentKind::Generic, approval, program).state), "blocked")
        << program;
    EXPECT_EQ(name_of(bundled_verdict(AgentKind::Generic, working, program).state), "working")
        << program;
    EXPECT_EQ(name_of(bundled_verdict(AgentKind::Generic, idle, program).state), "idle") << program;
  }
}

TEST(ScreenRuleFixtures, GenericApprovalQuestionUnderAWorkingFooterIsTranscript) {
  const ScreenText streaming =
      screen_of({"Do you want to proceed with one of these?", "1. Add tests",
                 "2. Refactor (esc aside)", "⠼ Working (esc to interrupt)"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Generic, streaming, "gemini").state), "working");
}

TEST(ScreenRuleFixtures, OtherKindsHaveConservativeRules) {
  const ScreenText opencode_permission =
      screen_of({"┃  △ Permission required", "┃  $ echo hi > x", "┃",
                 "┃  Allow once   Allow always   Reject", "   enter confirm   esc dismiss"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Opencode, opencode_permission).state), "blocked");
  const ScreenText opencode_working = screen_of({"┃ > fix it", "⠋ Working   esc interrupt"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Opencode, opencode_working).state), "working");
  const ScreenText cursor_approval =
      screen_of({"Run this command?", "Not in allowlist: echo hi", " → Run (once) (y)",
                 "   Auto-run everything (shift+tab)", "   Skip (esc or n)"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Cursor, cursor_approval).state), "blocked");
  const ScreenText cursor_working = screen_of({"⬡ Generating…  ctrl+c to stop"});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Cursor, cursor_working).state), "working");
  const ScreenText pi_working = screen_of({"⠋ Working... (esc to interrupt)", "> "});
  EXPECT_EQ(name_of(bundled_verdict(AgentKind::Pi, pi_working).state), "working");
  const ScreenText quiet = screen_of({"> ", "~/proj"});
  for (AgentKind kind : {AgentKind::Opencode, AgentKind::Cursor, AgentKind::Pi})
    EXPECT_EQ(name_of(bundled_verdict(kind, quiet).state), "idle");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::agents
