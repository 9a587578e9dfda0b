// common/protocol/methods/pane.hpp: pane.* methods (docs/rules.md: Methods,
// Panes and PTYs, Ids, handles, names, Pane).
// Runs in: every process. Never: holds behaviour; a pane method's rules live
// in its broker handler.
#pragma once

#include <chrono>

#include "common/limits.hpp"
#include "common/protocol/method_decl.hpp"
#include "common/protocol/methods/workspace.hpp"
#include "common/protocol/model.hpp"
#include "common/protocol/signal_name.hpp"

namespace signaltty::protocol {

// Protocol defaults and caps of pane params, kept beside the params they shape.
inline constexpr std::uint32_t kReadLinesDefault = 200;   // docs/rules.md, Reads
inline constexpr std::uint32_t kReadLinesMax = limits::kReadMaxLines;  // docs/rules.md, Reads
inline constexpr double kOutputWaitTimeoutDefaultS = 3600;  // docs/rules.md, Reads
inline constexpr std::uint32_t kSubmitDelayDefaultMs = 300;  // docs/rules.md, Input
inline constexpr double kSubmitStallTimeoutDefaultS = 5;    // docs/rules.md, Input
inline constexpr std::size_t kInputMaxBase64Bytes = 1u << 20;  // docs/rules.md, Input
inline constexpr std::chrono::milliseconds kInputBudget{5000};  // docs/rules.md, Input
inline constexpr std::chrono::milliseconds kOutputWaitPoll{100};  // docs/rules.md, Reads
inline constexpr std::size_t kPaneLabelMaxChars = 128;      // docs/rules.md, Pane

inline constexpr std::string_view kPaneIdDoc = "pane id or pane name";

enum class ReadMode { Screen, Tail, Rendered };
template <>
struct EnumNames<ReadMode> {
  static constexpr std::array<std::pair<ReadMode, std::string_view>, 3> names{
      {{ReadMode::Screen, "screen"}, {ReadMode::Tail, "tail"}, {ReadMode::Rendered, "rendered"}}};
};

enum class PaneRelationship { Fork, Subagent };
template <>
struct EnumNames<PaneRelationship> {
  static constexpr std::array<std::pair<PaneRelationship, std::string_view>, 2> names{
      {{PaneRelationship::Fork, "fork"}, {PaneRelationship::Subagent, "subagent"}}};
};

enum class IntegrationStatus { Configured, Disabled, Error };
template <>
struct EnumNames<IntegrationStatus> {
  static constexpr std::array<std::pair<IntegrationStatus, std::string_view>, 3> names{
      {{IntegrationStatus::Configured, "configured"},
       {IntegrationStatus::Disabled, "disabled"},
       {IntegrationStatus::Error, "error"}}};
};

// Where the screen rules pane.explain traced came from.
enum class RuleSource { User, Bundled, None };
template <>
struct EnumNames<RuleSource> {
  static constexpr std::array<std::pair<RuleSource, std::string_view>, 3> names{
      {{RuleSource::User, "user"}, {RuleSource::Bundled, "bundled"}, {RuleSource::None, "none"}}};
};

// The state a screen rule assigns.
enum class ScreenRuleState { Working, Blocked, Idle, Hold };
template <>
struct EnumNames<ScreenRuleState> {
  static constexpr std::array<std::pair<ScreenRuleState, std::string_view>, 4> names{
      {{ScreenRuleState::Working, "working"},
       {ScreenRuleState::Blocked, "blocked"},
       {ScreenRuleState::Idle, "idle"},
       {ScreenRuleState::Hold, "hold"}}};
};

// ---- shared params and results ----------------------------------------------

struct PaneRef {
  std::string pane_id;
  static constexpr auto fields() {
    return std::tuple{req("pane_id", &PaneRef::pane_id, kPaneIdDoc, 0)};
  }
};
struct PaneResult {
  Pane pane;
  static constexpr auto fields() { return std::tuple{req("pane", &PaneResult::pane)}; }
};
struct TabsResult {
  std::vector<Tab> tabs;
  static constexpr auto fields() {
    return std::tuple{req("tabs", &TabsResult::tabs, "every tab the change touched")};
  }
};

// Agent config prepared for a direct supported-agent launch.
struct Integration {
  AgentKind agent = AgentKind::None;
  IntegrationStatus status = IntegrationStatus::Disabled;
  bool changed = false;
  std::optional<std::string> file;
  std::optional<std::string> notice;
  static constexpr auto fields() {
    using I = Integration;
    return std::tuple{req("agent", &I::agent), req("status", &I::status),
                      req("changed", &I::changed, "the agent's config file was written"),
                      opt("file", &I::file), opt("notice", &I::notice, "clients show it")};
  }
};
struct PaneLaunchResult {
  Pane pane;
  std::optional<Integration> integration;
  static constexpr auto fields() {
    return std::tuple{req("pane", &PaneLaunchResult::pane),
                      opt("integration", &PaneLaunchResult::integration,
                          "only for direct supported-agent launches")};
  }
};

// ---- pane.spawn / split / rename / swap / move ------------------------------

struct PaneSpawnParams {
  std::string workspace_id;
  std::optional<std::string> tab_id;
  std::optional<std::string> cwd;
  std::vector<std::string> argv;
  std::optional<std::map<std::string, std::string>> env;
  std::optional<int> cols;
  std::optional<int> rows;
  std::optional<std::string> agent_hint;
  std::optional<std::string> parent_pane_id;
  std::optional<std::string> label;
  std::optional<PaneRelationship> relationship;
  std::optional<std::string> task_id;
  static constexpr auto fields() {
    using P = PaneSpawnParams;
    return std::tuple{
        req("workspace_id", &P::workspace_id, kWorkspaceIdDoc, 0),
        opt("tab_id", &P::tab_id, "an empty tab of that workspace (default: active tab)"),
        opt("cwd", &P::cwd, "an existing directory (default: workspace cwd)"),
        req("argv", &P::argv, "program and arguments, non-empty", 1),
        opt("env", &P::env, "allowlisted keys only (docs/rules.md, Environment of the child)"),
        opt("cols", &P::cols, "clamped to 20-500 (default 80)"),
        opt("rows", &P::rows, "clamped to 5-200 (default 24)"),
        opt("agent_hint", &P::agent_hint, "agent kind; unknown hints mean none"),
        opt("parent_pane_id", &P::parent_pane_id, kPaneIdDoc), opt("label", &P::label),
        opt("relationship", &P::relationship, "lineage to the parent (default subagent)"),
        opt("task_id", &P::task_id)};
  }
};

struct PaneSplitParams {
  std::string pane_id;
  SplitDir direction = SplitDir::Right;
  std::optional<std::vector<std::string>> argv;
  std::optional<std::string> cwd;
  static constexpr auto fields() {
    using P = PaneSplitParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      opt("direction", &P::direction, "default right"),
                      opt("argv", &P::argv, "default $SHELL or sh", 1),
                      opt("cwd", &P::cwd, "default the source pane's cwd")};
  }
};

struct PaneRenameParams {
  std::string pane_id;
  std::optional<std::string> name;
  static constexpr auto fields() {
    using P = PaneRenameParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      opt("name", &P::name, "[a-z][a-z0-9_-]*, <=32 bytes; absent clears it", 1)};
  }
};

struct PaneSwapParams {
  std::string pane_id;
  std::string target_pane_id;
  static constexpr auto fields() {
    using P = PaneSwapParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("target_pane_id", &P::target_pane_id, kPaneIdDoc, 1)};
  }
};

struct PaneMoveParams {
  std::string pane_id;
  std::string target_pane_id;
  SplitDir direction = SplitDir::Right;
  static constexpr auto fields() {
    using P = PaneMoveParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("target_pane_id", &P::target_pane_id, kPaneIdDoc, 1),
                      opt("direction", &P::direction, "side of the target (default right)")};
  }
};

// ---- pane.get ---------------------------------------------------------------

// Captured before new work and passed whole as `wait.after`.
struct WaitBaseline {
  std::string pane_id;
  std::string process_instance;
  Nullable<std::string> agent_session_id;
  std::uint64_t session_generation = 0;
  std::uint64_t lifecycle_seq = 0;
  std::uint64_t attention_seq = 0;
  static constexpr auto fields() {
    using B = WaitBaseline;
    return std::tuple{req("pane_id", &B::pane_id), req("process_instance", &B::process_instance),
                      opt("agent_session_id", &B::agent_session_id, "null before any session"),
                      req("session_generation", &B::session_generation),
                      req("lifecycle_seq", &B::lifecycle_seq),
                      req("attention_seq", &B::attention_seq)};
  }
  bool operator==(const WaitBaseline&) const = default;
};

struct PaneGetResult {
  Pane pane;
  WaitBaseline wait_baseline;
  static constexpr auto fields() {
    return std::tuple{req("pane", &PaneGetResult::pane),
                      req("wait_baseline", &PaneGetResult::wait_baseline)};
  }
};

// ---- pane.input / resize / signal -------------------------------------------

struct PaneInputParams {
  std::string pane_id;
  std::string data_b64;
  static constexpr auto fields() {
    using P = PaneInputParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("data_b64", &P::data_b64, "bytes to write, base64 (<=1 MiB of text)")};
  }
};
struct PaneInputResult {
  std::uint64_t written = 0;
  static constexpr auto fields() {
    return std::tuple{req("written", &PaneInputResult::written, "bytes the PTY accepted")};
  }
};

struct PaneResizeParams {
  std::string pane_id;
  int cols = 0;
  int rows = 0;
  static constexpr auto fields() {
    using P = PaneResizeParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("cols", &P::cols, "clamped to 20-500", 1),
                      req("rows", &P::rows, "clamped to 5-200", 2)};
  }
};

struct PaneSignalParams {
  std::string pane_id;
  SignalName signal;
  bool group = false;
  static constexpr auto fields() {
    using P = PaneSignalParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0), req("signal", &P::signal, {}, 1),
                      opt("group", &P::group, "signal the child's process group")};
  }
};
struct PaneSignalResult {
  bool sent = true;
  static constexpr auto fields() { return std::tuple{req("sent", &PaneSignalResult::sent)}; }
};

// ---- pane.read / wait_for_output --------------------------------------------

struct PaneReadParams {
  std::string pane_id;
  ReadMode mode = ReadMode::Tail;
  std::uint32_t lines = kReadLinesDefault;
  bool strip_ansi = true;
  std::uint64_t after_seq = 0;
  static constexpr auto fields() {
    using P = PaneReadParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      opt("mode", &P::mode, "default tail"),
                      opt("lines", &P::lines, "tail/rendered line count (default 200, max 5000)"),
                      opt("strip_ansi", &P::strip_ansi, "default true"),
                      opt("after_seq", &P::after_seq, "rendered cursor (default 0 = oldest)")};
  }
};

// screen/tail carry text and truncated; rendered adds seq, next_seq, dropped.
struct PaneReadResult {
  std::string text;
  bool truncated = false;
  std::optional<std::uint64_t> seq;
  std::optional<std::uint64_t> next_seq;
  std::optional<bool> dropped;
  static constexpr auto fields() {
    using R = PaneReadResult;
    return std::tuple{req("text", &R::text), req("truncated", &R::truncated),
                      opt("seq", &R::seq, "rendered: oldest seq returned, or the head"),
                      opt("next_seq", &R::next_seq, "rendered: pass back as after_seq"),
                      opt("dropped", &R::dropped, "rendered: the cursor was not retained")};
  }
};

struct PaneWaitForOutputParams {
  std::string pane_id;
  std::string match;
  ReadMode mode = ReadMode::Tail;
  std::uint32_t lines = kReadLinesDefault;
  bool strip_ansi = true;
  std::uint64_t after_seq = 0;
  bool regex = false;
  double timeout_s = kOutputWaitTimeoutDefaultS;
  static constexpr auto fields() {
    using P = PaneWaitForOutputParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("match", &P::match, "substring, or RE2 pattern with regex", 1),
                      opt("mode", &P::mode, "default tail"),
                      opt("lines", &P::lines, "default 200, max 5000"),
                      opt("strip_ansi", &P::strip_ansi, "default true"),
                      opt("after_seq", &P::after_seq, "rendered: match only newer lines"),
                      opt("regex", &P::regex, "treat match as a regex"),
                      opt("timeout_s", &P::timeout_s, "default 3600")};
  }
};
struct PaneWaitForOutputResult {
  std::string text;
  bool truncated = false;
  std::optional<std::uint64_t> seq;
  std::optional<std::uint64_t> next_seq;
  std::optional<bool> dropped;
  std::string matched_line;
  static constexpr auto fields() {
    using R = PaneWaitForOutputResult;
    return std::tuple{req("text", &R::text), req("truncated", &R::truncated),
                      opt("seq", &R::seq), opt("next_seq", &R::next_seq),
                      opt("dropped", &R::dropped), req("matched_line", &R::matched_line)};
  }
};

// ---- pane.attach / detach / close -------------------------------------------

struct PaneAttachParams {
  std::string pane_id;
  std::optional<int> cols;
  std::optional<int> rows;
  bool mark_seen = true;
  static constexpr auto fields() {
    using P = PaneAttachParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      opt("cols", &P::cols, "resize first (needs rows too)"),
                      opt("rows", &P::rows, "resize first (needs cols too)"),
                      opt("mark_seen", &P::mark_seen, "default true; GUIs pass false")};
  }
};
struct PaneAttachResult {
  std::string snapshot_b64;
  std::uint64_t output_offset = 0;
  PtySize size;
  bool live = true;
  RestoreState restore_state = RestoreState::Live;
  Lifecycle lifecycle = Lifecycle::Unknown;
  Attention attention = Attention::None;
  static constexpr auto fields() {
    using R = PaneAttachResult;
    return std::tuple{req("snapshot_b64", &R::snapshot_b64, "replayable VT state"),
                      req("output_offset", &R::output_offset, "output covered by the snapshot"),
                      req("size", &R::size), req("live", &R::live, "the process still runs"),
                      req("restore_state", &R::restore_state), req("lifecycle", &R::lifecycle),
                      req("attention", &R::attention)};
  }
};

struct PaneDetachResult {
  bool detached = true;
  static constexpr auto fields() {
    return std::tuple{req("detached", &PaneDetachResult::detached)};
  }
};

struct PaneCloseParams {
  std::string pane_id;
  std::optional<SignalName> signal;
  static constexpr auto fields() {
    using P = PaneCloseParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      opt("signal", &P::signal, "signal sent to the child (default TERM)")};
  }
};

// ---- pane.explain -----------------------------------------------------------

struct ExplainMatch {
  std::string id;
  ScreenRuleState state = ScreenRuleState::Hold;
  std::int64_t priority = 0;
  std::uint32_t index = 0;
  static constexpr auto fields() {
    using M = ExplainMatch;
    return std::tuple{req("id", &M::id), req("state", &M::state), req("priority", &M::priority),
                      req("index", &M::index, "the winner's position in rules")};
  }
};
struct ExplainRule {
  std::string id;
  ScreenRuleState state = ScreenRuleState::Hold;
  std::int64_t priority = 0;
  std::string region;
  bool matched = false;
  static constexpr auto fields() {
    using R = ExplainRule;
    return std::tuple{req("id", &R::id), req("state", &R::state), req("priority", &R::priority),
                      req("region", &R::region), req("matched", &R::matched)};
  }
};
struct PaneExplainResult {
  std::string pane_id;
  AgentKind kind = AgentKind::None;
  std::optional<std::string> process;
  bool live = false;
  bool hooked = false;
  RuleSource source = RuleSource::None;
  bool classifies = false;
  std::optional<ExplainMatch> matched;
  std::vector<ExplainRule> rules;
  static constexpr auto fields() {
    using R = PaneExplainResult;
    return std::tuple{req("pane_id", &R::pane_id), req("kind", &R::kind),
                      opt("process", &R::process, "program generic rules are scoped to"),
                      req("live", &R::live), req("hooked", &R::hooked), req("source", &R::source),
                      req("classifies", &R::classifies, "live, unhooked and has rules"),
                      opt("matched", &R::matched), req("rules", &R::rules)};
  }
};

// ---- pane.submit ------------------------------------------------------------

struct PaneSubmitParams {
  std::string pane_id;
  std::string text;
  std::uint32_t submit_delay_ms = kSubmitDelayDefaultMs;
  double stall_timeout_s = kSubmitStallTimeoutDefaultS;
  static constexpr auto fields() {
    using P = PaneSubmitParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("text", &P::text, "1 B-32 KiB, no paste markers", 1),
                      opt("submit_delay_ms", &P::submit_delay_ms, "paste-to-Enter delay (300)"),
                      opt("stall_timeout_s", &P::stall_timeout_s, "activity gate (default 5)")};
  }
};
struct PaneSubmitResult {
  bool submitted = true;
  Lifecycle outcome = Lifecycle::Working;
  std::uint64_t transition_seq = 0;
  Lifecycle lifecycle = Lifecycle::Unknown;
  Attention attention = Attention::None;
  static constexpr auto fields() {
    using R = PaneSubmitResult;
    return std::tuple{req("submitted", &R::submitted),
                      req("outcome", &R::outcome, "the transition that confirmed the submit"),
                      req("transition_seq", &R::transition_seq), req("lifecycle", &R::lifecycle),
                      req("attention", &R::attention)};
  }
};

// ---- the declarations -------------------------------------------------------

using PaneSpawn = MethodDecl<"pane.spawn", "Start a program in a new pane", PaneSpawnParams,
                             PaneLaunchResult, kMutating>;
using PaneSplit = MethodDecl<"pane.split", "Split a pane and start a program beside it",
                             PaneSplitParams, PaneLaunchResult, kMutating>;
using PaneRename = MethodDecl<"pane.rename", "Name a pane, or clear its name", PaneRenameParams,
                              PaneResult, kMutating>;
using PaneSwap = MethodDecl<"pane.swap", "Swap two panes' layout slots", PaneSwapParams,
                            TabsResult, kMutating>;
using PaneMove = MethodDecl<"pane.move", "Move a pane next to another", PaneMoveParams,
                            TabsResult, kMutating>;
using PaneGet = MethodDecl<"pane.get", "Show a pane and its wait baseline", PaneRef,
                           PaneGetResult, kNoFlags>;
using PaneInput = MethodDecl<"pane.input", "Write bytes to a pane's terminal", PaneInputParams,
                             PaneInputResult, kMutating>;
using PaneResize = MethodDecl<"pane.resize", "Resize a pane's terminal", PaneResizeParams,
                              PaneResult, kMutating>;
using PaneSignal = MethodDecl<"pane.signal", "Send a signal to a pane's program",
                              PaneSignalParams, PaneSignalResult, kMutating>;
using PaneRead = MethodDecl<"pane.read", "Read a pane's screen or output history",
                            PaneReadParams, PaneReadResult, kNoFlags>;
using PaneWaitForOutput =
    MethodDecl<"pane.wait_for_output", "Wait until a pane prints a matching line",
               PaneWaitForOutputParams, PaneWaitForOutputResult, kNoFlags>;
using PaneClear = MethodDecl<"pane.clear", "Blank a pane's screen and scrollback", PaneRef,
                             Empty, kMutating>;
using PaneAttach =
    MethodDecl<"pane.attach", "Snapshot a pane's screen, then stream its output",
               PaneAttachParams, PaneAttachResult, kMutating | kConnectionBound>;
using PaneDetach = MethodDecl<"pane.detach", "Stop streaming a pane's output", PaneRef,
                              PaneDetachResult, kConnectionBound>;
using PaneClose = MethodDecl<"pane.close", "Signal a pane's program and remove the pane",
                             PaneCloseParams, ClosedResult, kMutating>;
using PaneResume = MethodDecl<"pane.resume", "Start a restored pane's agent session again",
                              PaneRef, PaneLaunchResult, kMutating>;
using PaneMarkSeen = MethodDecl<"pane.mark_seen", "Record that a pane was read", PaneRef,
                                PaneResult, kMutating>;
using PaneExplain = MethodDecl<"pane.explain", "Trace the screen rules against a pane",
                               PaneRef, PaneExplainResult, kNoFlags>;
using PaneSubmit = MethodDecl<"pane.submit", "Paste a prompt into an agent and press Enter",
                              PaneSubmitParams, PaneSubmitResult, kMutating>;

}  // namespace signaltty::protocol
