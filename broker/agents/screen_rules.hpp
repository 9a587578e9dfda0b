// broker/agents/screen_rules.hpp: layer-6 screen rules: the region of a
// pane's visible screen (or its title) each rule reads, and which rule of a
// pane's set wins. A region's text is its lines trimmed at both ends, empty
// lines dropped, joined with '\n'; a rule matches when one of its `regex`
// patterns, every `all` pattern and none of its `not` patterns find a match
// there (an unanchored search; `(?m)` anchors per line). The highest
// priority wins; a tie keeps the earlier rule.
// Runs in: broker, on the screen-classification tick. Never: compiles a
// pattern while evaluating (manifests compile theirs at load), matches with
// anything but RE2 (linear in the text, whatever the pattern), or builds a
// region's text twice in one evaluate().
//
// Usage:
//   RuleSelection selection = manifests->rules_for(pane.kind, program);
//   RuleTrace trace = evaluate(selection.rules, ScreenText{title, rows});
//   if (trace.winner) apply(selection.rules[*trace.winner]->state);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/protocol/methods/pane.hpp"

namespace re2 {
class RE2;
}

namespace signaltty::broker::agents {

// Bounds on one pattern, which may come from a user's manifest: its length
// and the memory RE2 may give its compiled program and match automata.
inline constexpr std::size_t kPatternMaxBytes = 4096;
inline constexpr std::int64_t kPatternMaxMemBytes = 1 << 20;
// A rule's `lines`: 1..=200; bottom and top read 12 when it is absent.
inline constexpr int kRegionLinesMax = 200;
inline constexpr int kEdgeRegionLinesDefault = 12;

// A pane's visible screen as the ptyhost renders it: the title and the rows
// top to bottom (UTF-8, untrimmed).
struct ScreenText {
  std::string title;
  std::vector<std::string> rows;
};

// Where a rule looks. A horizontal rule is a line starting with `─` (three
// or more, or nothing after them); Codex's prompt is a line that is `›` or
// starts with `› `, and its current prompt is the last prompt line with no
// `•`, `■`, `✗` or `✓` block line after it (lines trimmed first).
enum class Region {
  Bottom,                // the screen's last `lines` (12) non-empty lines
  Title,                 // the pane title
  Screen,                // the whole visible screen
  Top,                   // the screen's first `lines` (12) non-empty lines
  PromptBox,             // between the second-last rule and the last (empty without two)
  AbovePromptBox,        // above the second-last rule (the screen without two rules)
  AfterLastRule,         // below the last rule (the screen without one)
  AfterLastPrompt,       // below the last prompt line (the screen without one)
  BeforeCurrentPrompt,   // above the current prompt (the screen without one)
  WithoutCurrentPrompt,  // the screen when there is no current prompt, else empty
};

// The manifest spelling: "bottom", "title", ..., "without_current_prompt".
std::string_view region_name(Region region);
std::optional<Region> region_from_name(std::string_view name);

// One compiled pattern, shared by every rule set that holds its rule.
using Pattern = std::shared_ptr<const re2::RE2>;

// Compiles `pattern` as RE2 (UTF-8, errors not logged) within the bounds
// above. BAD_PARAMS with RE2's reason when it is too long or RE2 rejects it
// (backreferences, lookaround).
Result<Pattern> compile_pattern(std::string_view pattern);

struct ScreenRule {
  std::string id;
  protocol::ScreenRuleState state = protocol::ScreenRuleState::Idle;
  Region region = Region::Bottom;
  int lines = 0;  // 0: the region's default (12 for bottom and top, else all)
  std::int64_t priority = 0;
  std::vector<Pattern> any;   // `regex`: one must match (none given: no condition)
  std::vector<Pattern> all;   // `all`: every one must match
  std::vector<Pattern> none;  // `not`: none may match
};

// Whether `rule`'s patterns accept `text`. A rule with neither `regex` nor
// `all` patterns never matches.
bool rule_accepts(const ScreenRule& rule, std::string_view text);

// The text a rule's patterns see: the region's lines trimmed at both ends
// (ASCII white space and U+00A0), empty ones dropped, the last `lines` kept
// (the first for top; 0 keeps the region's default), joined with '\n'.
std::string region_text(const ScreenText& screen, Region region, int lines);

// Which rules matched, and the winner's index into the evaluated rules:
// the highest priority among the matches, the earliest on a tie.
struct RuleTrace {
  std::vector<bool> matched;
  std::optional<std::size_t> winner;
};

// Every pointer in `rules` is non-null.
RuleTrace evaluate(std::span<const ScreenRule* const> rules, const ScreenText& screen);

// pane.explain's view of an evaluation: one row per rule, and the winner
// (its index is its position in `rules`).
std::vector<protocol::ExplainRule> explain_rules(std::span<const ScreenRule* const> rules,
                                                 const RuleTrace& trace);
std::optional<protocol::ExplainMatch> explain_winner(std::span<const ScreenRule* const> rules,
                                                     const RuleTrace& trace);

}  // namespace signaltty::broker::agents
