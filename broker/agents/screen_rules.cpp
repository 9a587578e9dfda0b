// broker/agents/screen_rules.cpp: screen regions, RE2 patterns and the
// winner of a rule set. The screen's structure (rules, prompt lines) is
// found once per evaluate(), each (region, lines) text built at most once.
// Runs in: broker. Never: compiles a pattern while evaluating, or keeps
// anything from one evaluation to the next.
#include "broker/agents/screen_rules.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <deque>
#include <utility>

namespace signaltty::broker::agents {
namespace {

constexpr std::array<std::pair<Region, std::string_view>, 10> kRegionNames{{
    {Region::Bottom, "bottom"},
    {Region::Title, "title"},
    {Region::Screen, "screen"},
    {Region::Top, "top"},
    {Region::PromptBox, "prompt_box"},
    {Region::AbovePromptBox, "above_prompt_box"},
    {Region::AfterLastRule, "after_last_rule"},
    {Region::AfterLastPrompt, "after_last_prompt"},
    {Region::BeforeCurrentPrompt, "before_current_prompt"},
    {Region::WithoutCurrentPrompt, "without_current_prompt"},
}};

// ---- lines ------------------------------------------------------------------

constexpr std::string_view kNoBreakSpace = "\u00A0";

bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
  for (;;) {
    if (!s.empty() && is_ascii_space(s.front()))
      s.remove_prefix(1);
    else if (s.starts_with(kNoBreakSpace))
      s.remove_prefix(kNoBreakSpace.size());
    else
      break;
  }
  for (;;) {
    if (!s.empty() && is_ascii_space(s.back()))
      s.remove_suffix(1);
    else if (s.ends_with(kNoBreakSpace))
      s.remove_suffix(kNoBreakSpace.size());
    else
      break;
  }
  return s;
}

// A run of at least this many `─` may carry a label after it (Claude's
// `──── session-name ─`); a shorter run must stand alone.
constexpr std::size_t kLabelledRuleMinRun = 3;
constexpr std::string_view kRuleDash = "\u2500";

bool is_horizontal_rule(std::string_view line) {
  std::size_t run = 0;
  while (line.starts_with(kRuleDash)) {
    line.remove_prefix(kRuleDash.size());
    ++run;
  }
  return run > 0 && (run >= kLabelledRuleMinRun || trim(line).empty());
}

constexpr std::string_view kPromptMark = "\u203A";  // ›

bool is_prompt_line(std::string_view line) {
  return line == kPromptMark ||
         (line.starts_with(kPromptMark) && line.substr(kPromptMark.size()).starts_with(' '));
}

// Codex's transcript blocks: • message, ■ error, ✗ failure, ✓ success.
bool is_block_line(std::string_view line) {
  constexpr std::array<std::string_view, 4> kBlockMarks{"\u2022", "\u25A0", "\u2717", "\u2713"};
  return std::any_of(kBlockMarks.begin(), kBlockMarks.end(),
                     [&](std::string_view mark) { return line.starts_with(mark); });
}

// ---- the screen's structure -------------------------------------------------

struct Layout {
  std::vector<std::string_view> lines;  // the rows, trimmed
  std::optional<std::size_t> last_rule;
  std::optional<std::size_t> second_last_rule;
  std::optional<std::size_t> last_prompt;
  std::optional<std::size_t> current_prompt;
};

Layout layout_of(const ScreenText& screen) {
  Layout layout;
  layout.lines.reserve(screen.rows.size());
  for (const std::string& row : screen.rows) layout.lines.push_back(trim(row));
  bool block_after_prompt = false;
  for (std::size_t i = layout.lines.size(); i-- > 0;) {
    const std::string_view line = layout.lines[i];
    if (is_horizontal_rule(line)) {
      if (!layout.last_rule)
        layout.last_rule = i;
      else if (!layout.second_last_rule)
        layout.second_last_rule = i;
    }
    if (!layout.last_prompt) {
      if (is_prompt_line(line))
        layout.last_prompt = i;
      else
        block_after_prompt = block_after_prompt || is_block_line(line);
    }
  }
  if (layout.last_prompt && !block_after_prompt) layout.current_prompt = layout.last_prompt;
  return layout;
}

// Lines [begin, end) of the screen.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

Span span_of(const Layout& layout, Region region) {
  const std::size_t n = layout.lines.size();
  const Span whole{0, n};
  switch (region) {
    case Region::Bottom:
    case Region::Screen:
    case Region::Top:
    case Region::Title:
      return whole;
    case Region::PromptBox:
      if (!layout.second_last_rule) return {};
      return {*layout.second_last_rule + 1, *layout.last_rule};
    case Region::AbovePromptBox:
      return layout.second_last_rule ? Span{0, *layout.second_last_rule} : whole;
    case Region::AfterLastRule:
      return layout.last_rule ? Span{*layout.last_rule + 1, n} : whole;
    case Region::AfterLastPrompt:
      return layout.last_prompt ? Span{*layout.last_prompt + 1, n} : whole;
    case Region::BeforeCurrentPrompt:
      return layout.current_prompt ? Span{0, *layout.current_prompt} : whole;
    case Region::WithoutCurrentPrompt:
      return layout.current_prompt ? Span{} : whole;
  }
  return {};
}

int lines_kept(Region region, int lines) {
  if (lines > 0) return lines;
  return region == Region::Bottom || region == Region::Top ? kEdgeRegionLinesDefault : 0;
}

enum class Keep { Last, First };

// The non-empty lines of `span`, the last (or first) `keep` of them (0:
// all), joined with '\n'.
std::string join_lines(const std::vector<std::string_view>& lines, Span span, int keep,
                       Keep which) {
  if (keep > 0) {
    std::size_t kept = 0;
    if (which == Keep::First) {
      std::size_t end = span.begin;
      while (end < span.end && kept < static_cast<std::size_t>(keep))
        if (!lines[end++].empty()) ++kept;
      span.end = end;
    } else {
      std::size_t begin = span.end;
      while (begin > span.begin && kept < static_cast<std::size_t>(keep))
        if (!lines[--begin].empty()) ++kept;
      span.begin = begin;
    }
  }
  std::string out;
  for (std::size_t i = span.begin; i < span.end; ++i) {
    if (lines[i].empty()) continue;
    if (!out.empty()) out.push_back('\n');
    out.append(lines[i]);
  }
  return out;
}

std::string text_of(const Layout& layout, const ScreenText& screen, Region region, int lines) {
  const int keep = lines_kept(region, lines);
  if (region == Region::Title) {
    const std::vector<std::string_view> title{trim(screen.title)};
    return join_lines(title, Span{0, 1}, keep, Keep::Last);
  }
  return join_lines(layout.lines, span_of(layout, region), keep,
                    region == Region::Top ? Keep::First : Keep::Last);
}

// Each (region, lines) text of one evaluation, built on first use. A deque:
// the references handed out stay valid as entries are added.
class RegionTexts {
 public:
  explicit RegionTexts(const ScreenText& screen) : screen_(screen), layout_(layout_of(screen)) {}

  const std::string& text(Region region, int lines) {
    const int keep = lines_kept(region, lines);
    for (const Entry& entry : entries_)
      if (entry.region == region && entry.keep == keep) return entry.text;
    entries_.push_back(Entry{region, keep, text_of(layout_, screen_, region, keep)});
    return entries_.back().text;
  }

 private:
  struct Entry {
    Region region;
    int keep;
    std::string text;
  };
  const ScreenText& screen_;
  Layout layout_;
  std::deque<Entry> entries_;
};

bool found(const Pattern& pattern, std::string_view text) {
  return pattern && RE2::PartialMatch(text, *pattern);
}

}  // namespace

std::string_view region_name(Region region) {
  for (const auto& [value, name] : kRegionNames)
    if (value == region) return name;
  return "bottom";
}

std::optional<Region> region_from_name(std::string_view name) {
  for (const auto& [value, spelled] : kRegionNames)
    if (spelled == name) return value;
  return std::nullopt;
}

Result<Pattern> compile_pattern(std::string_view pattern) {
  if (pattern.size() > kPatternMaxBytes)
    return bad_params("pattern longer than " + std::to_string(kPatternMaxBytes) + " bytes");
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_log_errors(false);
  options.set_max_mem(kPatternMaxMemBytes);
  options.set_never_capture(true);  // matches only: no submatches wanted
  auto compiled =
      std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!compiled->ok()) return bad_params(compiled->error());
  return Pattern(std::move(compiled));
}

bool rule_accepts(const ScreenRule& rule, std::string_view text) {
  if (rule.any.empty() && rule.all.empty()) return false;
  const auto in_text = [&](const Pattern& pattern) { return found(pattern, text); };
  if (!rule.any.empty() && std::none_of(rule.any.begin(), rule.any.end(), in_text)) return false;
  if (!std::all_of(rule.all.begin(), rule.all.end(), in_text)) return false;
  return std::none_of(rule.none.begin(), rule.none.end(), in_text);
}

std::string region_text(const ScreenText& screen, Region region, int lines) {
  return text_of(layout_of(screen), screen, region, lines);
}

RuleTrace evaluate(std::span<const ScreenRule* const> rules, const ScreenText& screen) {
  RuleTrace trace;
  trace.matched.reserve(rules.size());
  RegionTexts texts(screen);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const ScreenRule& rule = *rules[i];
    const bool hit = rule_accepts(rule, texts.text(rule.region, rule.lines));
    trace.matched.push_back(hit);
    if (hit && (!trace.winner || rule.priority > rules[*trace.winner]->priority)) trace.winner = i;
  }
  return trace;
}

std::vector<protocol::ExplainRule> explain_rules(std::span<const ScreenRule* const> rules,
                                                 const RuleTrace& trace) {
  std::vector<protocol::ExplainRule> rows;
  rows.reserve(rules.size());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const ScreenRule& rule = *rules[i];
    rows.push_back(protocol::ExplainRule{rule.id, rule.state, rule.priority,
                                         std::string(region_name(rule.region)),
                                         i < trace.matched.size() && trace.matched[i]});
  }
  return rows;
}

std::optional<protocol::ExplainMatch> explain_winner(std::span<const ScreenRule* const> rules,
                                                     const RuleTrace& trace) {
  if (!trace.winner || *trace.winner >= rules.size()) return std::nullopt;
  const ScreenRule& rule = *rules[*trace.winner];
  return protocol::ExplainMatch{rule.id, rule.state, rule.priority,
                                static_cast<std::uint32_t>(*trace.winner)};
}

}  // namespace signaltty::broker::agents
