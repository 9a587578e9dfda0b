// common/protocol/methods/agent.hpp: the agent-facing methods: decision.answer,
// notify, hook-event, report-session, wait, focus.next_unread,
// attention.pending, agents.list/reload (docs/rules.md,
// Methods; notify, wait, focus.next_unread and attention.pending are built).
// Also UntilSpec, the `until` value wait and task.wait share.
// Runs in: every process. Never: classifies a hook; adapters live in broker/.
#pragma once

#include <chrono>

#include "common/protocol/method_decl.hpp"
#include "common/protocol/methods/pane.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::protocol {

// Protocol defaults and caps of these params, kept beside the params they shape.
inline constexpr double kWaitTimeoutDefaultS = 3600;
inline constexpr double kHookAnswerTimeoutDefaultS = 120;
inline constexpr double kHookAnswerTimeoutMinS = 1;
inline constexpr double kHookAnswerTimeoutMaxS = 120;
inline constexpr std::uint32_t kAttentionPendingDefault = 50;
inline constexpr std::uint32_t kAttentionPendingMax = 500;
// docs/rules.md "Decision": a native permission decision's id is this
// prefix, '_' and 32 lowercase hex digits (common/ids.hpp new_id).
inline constexpr std::string_view kNativeDecisionPrefix = "permission";
inline bool is_native_decision_id(std::string_view id) {
  constexpr std::size_t kHexDigits = 32;
  if (id.size() != kNativeDecisionPrefix.size() + 1 + kHexDigits) return false;
  if (!id.starts_with(kNativeDecisionPrefix) || id[kNativeDecisionPrefix.size()] != '_') return false;
  for (char c : id.substr(kNativeDecisionPrefix.size() + 1))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}
// docs/rules.md "Wait baseline": a wait re-checks its pane this often besides on every event.
inline constexpr std::chrono::milliseconds kWaitRecheck{500};

enum class Severity { Info, Warning, Error };
template <>
struct EnumNames<Severity> {
  static constexpr std::array<std::pair<Severity, std::string_view>, 3> names{
      {{Severity::Info, "info"}, {Severity::Warning, "warning"}, {Severity::Error, "error"}}};
};

// `until`: one state name or a non-empty array of alternatives, matched in
// caller order. Which names are valid depends on the method (wait: lifecycle
// and attention states, `seen`, `attention_cleared`; task.wait: task states,
// `terminal`, `settled`); the handler checks that, the decoder checks shape.
struct UntilSpec {
  std::vector<std::string> states;
  bool operator==(const UntilSpec&) const = default;
};

template <>
struct Codec<UntilSpec> {
  static Result<UntilSpec> decode(const Json& j, std::string_view path) {
    if (j.is_string()) return one_of(j, path);
    if (!j.is_array()) return detail::mistyped(path, "string or array of strings", j);
    if (j.empty()) return empty_error(path);
    UntilSpec out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      auto item = one_of(j[i], std::string(path) + "[" + std::to_string(i) + "]");
      if (!item.ok()) return std::move(item).error();
      out.states.push_back(std::move(item->states.front()));
    }
    return out;
  }
  static Json encode(const UntilSpec& v) {
    if (v.states.size() == 1) return v.states.front();
    return v.states;
  }
  static Json schema() {
    Json one = {{"type", "string"}, {"minLength", 1}};
    // The array form first: clients that take the first alternative (the
    // CLI) then accept one or several names.
    return {{"anyOf", Json::array({{{"type", "array"}, {"items", one}, {"minItems", 1}}, one})},
            {"description", "a state name, or alternatives matched in order"}};
  }

 private:
  static Result<UntilSpec> one_of(const Json& j, std::string_view path) {
    if (!j.is_string()) return detail::mistyped(path, "string", j);
    if (j.get_ref<const std::string&>().empty()) return empty_error(path);
    return UntilSpec{{j.get<std::string>()}};
  }
  static Error empty_error(std::string_view path) {
    Error e{ErrorCode::BadParams, std::string(path) + ": empty"};
    e.details = {{"field", std::string(path)}};
    return e;
  }
};

// ---- decision.answer --------------------------------------------------------

struct DecisionAnswerParams {
  std::string pane_id;
  std::string decision_id;
  std::string option_id;
  static constexpr auto fields() {
    using P = DecisionAnswerParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("decision_id", &P::decision_id, "the pending decision's id", 1),
                      req("option_id", &P::option_id, "one of its options' ids", 2)};
  }
};
struct DecisionAnswerResult {
  bool answered = true;
  std::optional<Lifecycle> lifecycle;
  std::optional<Attention> attention;
  static constexpr auto fields() {
    using R = DecisionAnswerResult;
    return std::tuple{req("answered", &R::answered), opt("lifecycle", &R::lifecycle),
                      opt("attention", &R::attention)};
  }
};

// ---- notify -----------------------------------------------------------------

struct NotifyParams {
  std::optional<std::string> pane_id;
  std::string title;
  std::optional<std::string> body;
  Severity severity = Severity::Info;
  static constexpr auto fields() {
    using P = NotifyParams;
    return std::tuple{opt("pane_id", &P::pane_id, "absent: a global notification"),
                      req("title", &P::title, "<=200 chars", 0),
                      opt("body", &P::body, "<=2000 chars", 1),
                      opt("severity", &P::severity, "default info")};
  }
};
struct NotifyResult {
  Json notification;
  static constexpr auto fields() {
    return std::tuple{req("notification", &NotifyResult::notification,
                          "{id, pane_id?, workspace_id?, title, body?, severity, source, "
                          "created_at, read_at?}")};
  }
};

// ---- hook-event -------------------------------------------------------------

// DecisionOption: common/protocol/model.hpp (the pane's pending decision holds them).
// A decision as a hook reports it; the broker adds answerable and received_at.
struct HookDecision {
  std::string id;
  std::string prompt;
  std::vector<DecisionOption> options;
  static constexpr auto fields() {
    return std::tuple{req("id", &HookDecision::id), req("prompt", &HookDecision::prompt),
                      req("options", &HookDecision::options, "at least one, unique ids")};
  }
};

struct HookEventParams {
  AgentKind agent = AgentKind::Generic;
  std::string event;
  std::optional<std::string> pane_id;
  std::optional<std::int64_t> client_pid;
  std::optional<Json> payload;
  std::optional<std::string> message;
  std::optional<std::string> title;
  std::optional<Severity> severity;
  std::optional<HookDecision> decision;
  bool wait_for_answer = false;
  double wait_timeout_s = kHookAnswerTimeoutDefaultS;
  std::optional<std::string> decision_id;
  static constexpr auto fields() {
    using P = HookEventParams;
    return std::tuple{
        req("agent", &P::agent, "the adapter reporting"),
        req("event", &P::event, "the agent's hook name"),
        opt("pane_id", &P::pane_id, kPaneIdDoc),
        opt("client_pid", &P::client_pid, "reporter pid, resolved by process ancestry"),
        opt("payload", &P::payload, "the agent's hook payload, untouched"),
        opt("message", &P::message), opt("title", &P::title), opt("severity", &P::severity),
        opt("decision", &P::decision, "sets or supersedes the pane's pending decision"),
        opt("wait_for_answer", &P::wait_for_answer,
            "native PermissionRequest: hold this connection until answered"),
        opt("wait_timeout_s", &P::wait_timeout_s, "1-120 (default 120)"),
        opt("decision_id", &P::decision_id,
            "wait_for_answer: the reporter's permission_<32 hex> id, so a reporter that "
            "reconnects after a broker restart re-registers the same decision")};
  }
};
struct HookEventResult {
  bool accepted = true;
  AgentKind agent = AgentKind::Generic;
  std::string event;
  Nullable<std::string> pane_id;
  std::optional<Lifecycle> lifecycle;
  std::optional<Attention> attention;
  std::optional<bool> dropped;
  std::optional<std::string> reason;
  std::optional<Nullable<Json>> native_verdict;
  static constexpr auto fields() {
    using R = HookEventResult;
    return std::tuple{req("accepted", &R::accepted), req("agent", &R::agent),
                      req("event", &R::event),
                      req("pane_id", &R::pane_id, "null when no pane was resolved"),
                      opt("lifecycle", &R::lifecycle), opt("attention", &R::attention),
                      opt("dropped", &R::dropped),
                      opt("reason", &R::reason, "why it was dropped or the wait cancelled"),
                      opt("native_verdict", &R::native_verdict,
                          "wait_for_answer: the verdict, null when cancelled")};
  }
};

// ---- report-session ---------------------------------------------------------

struct ReportSessionParams {
  std::string pane_id;
  std::string agent_session_id;
  std::optional<AgentKind> agent;
  std::optional<std::vector<std::string>> resume_argv;
  static constexpr auto fields() {
    using P = ReportSessionParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("agent_session_id", &P::agent_session_id, {}, 1),
                      opt("agent", &P::agent),
                      opt("resume_argv", &P::resume_argv,
                          "<=64 args, <=8 KiB, no controls, argv[0] a plain command")};
  }
};

// ---- wait -------------------------------------------------------------------

struct WaitParams {
  std::string pane_id;
  UntilSpec until;
  std::optional<WaitBaseline> after;
  double timeout_s = kWaitTimeoutDefaultS;
  static constexpr auto fields() {
    using P = WaitParams;
    return std::tuple{req("pane_id", &P::pane_id, kPaneIdDoc, 0),
                      req("until", &P::until,
                          "lifecycle or attention state, seen, attention_cleared", 1),
                      opt("after", &P::after, "pane.get's wait_baseline"),
                      opt("timeout_s", &P::timeout_s, "default 3600")};
  }
};
struct WaitResult {
  bool satisfied = true;
  std::string outcome;
  std::uint64_t transition_seq = 0;
  Lifecycle lifecycle = Lifecycle::Unknown;
  Attention attention = Attention::None;
  static constexpr auto fields() {
    using R = WaitResult;
    return std::tuple{req("satisfied", &R::satisfied),
                      req("outcome", &R::outcome, "the until alternative that matched"),
                      req("transition_seq", &R::transition_seq), req("lifecycle", &R::lifecycle),
                      req("attention", &R::attention)};
  }
};

// ---- focus.next_unread / attention.pending ----------------------------------

struct FocusNextUnreadResult {
  std::optional<std::string> pane_id;
  static constexpr auto fields() {
    return std::tuple{opt("pane_id", &FocusNextUnreadResult::pane_id, "absent: nothing unread")};
  }
};

struct AttentionPendingParams {
  std::uint32_t limit = kAttentionPendingDefault;
  static constexpr auto fields() {
    return std::tuple{opt("limit", &AttentionPendingParams::limit, "default 50, max 500")};
  }
};
struct AttentionPendingPane {
  std::string pane_id;
  std::string workspace_id;
  std::string tab_id;
  std::optional<std::string> label;
  std::optional<std::string> task_id;
  Lifecycle lifecycle = Lifecycle::Unknown;
  Attention attention = Attention::None;
  std::optional<std::string> last_message;
  std::optional<std::string> attention_since;
  static constexpr auto fields() {
    using E = AttentionPendingPane;
    return std::tuple{req("pane_id", &E::pane_id), req("workspace_id", &E::workspace_id),
                      req("tab_id", &E::tab_id), opt("label", &E::label),
                      opt("task_id", &E::task_id), req("lifecycle", &E::lifecycle),
                      req("attention", &E::attention), opt("last_message", &E::last_message),
                      opt("attention_since", &E::attention_since)};
  }
};
struct AttentionPendingResult {
  std::vector<AttentionPendingPane> panes;
  static constexpr auto fields() {
    return std::tuple{req("panes", &AttentionPendingResult::panes, "severity, then recency")};
  }
};

// ---- agents.list / reload ---------------------------------------------------

struct AgentManifestInfo {
  std::string file;
  AgentKind kind = AgentKind::Generic;
  std::vector<std::string> binaries;
  std::uint32_t screen_rules = 0;
  static constexpr auto fields() {
    using M = AgentManifestInfo;
    return std::tuple{req("file", &M::file), req("kind", &M::kind),
                      req("binaries", &M::binaries),
                      req("screen_rules", &M::screen_rules, "number of [[screen]] rules")};
  }
};
struct AgentManifestFailure {
  std::string file;
  std::string error;
  static constexpr auto fields() {
    return std::tuple{req("file", &AgentManifestFailure::file),
                      req("error", &AgentManifestFailure::error)};
  }
};
struct AgentsListResult {
  std::string dir;
  std::vector<AgentManifestInfo> manifests;
  std::vector<AgentManifestFailure> failures;
  static constexpr auto fields() {
    using R = AgentsListResult;
    return std::tuple{req("dir", &R::dir), req("manifests", &R::manifests),
                      req("failures", &R::failures, "malformed files, skipped")};
  }
};

// ---- the declarations -------------------------------------------------------

using DecisionAnswer =
    MethodDecl<"decision.answer", "Answer a pane's pending decision", DecisionAnswerParams,
               DecisionAnswerResult, kMutating>;
using Notify = MethodDecl<"notify", "Post a notification, raising the pane's attention",
                          NotifyParams, NotifyResult, kMutating>;
// Single-flight and connection-bound only with wait_for_answer; an ordinary
// report is answered at once.
using HookEvent =
    MethodDecl<"hook-event", "Report an agent hook for classification", HookEventParams,
               HookEventResult, kMutating | kConnectionBound | kSingleFlight>;
using ReportSession =
    MethodDecl<"report-session", "Record a pane's agent session id and resume command",
               ReportSessionParams, PaneResult, kMutating>;
using Wait = MethodDecl<"wait", "Wait for a pane's lifecycle or attention state", WaitParams,
                        WaitResult, kConnectionBound | kSingleFlight>;
using FocusNextUnread =
    MethodDecl<"focus.next_unread", "Name the pane most in need of attention", Empty,
               FocusNextUnreadResult, kNoFlags>;
using AttentionPending =
    MethodDecl<"attention.pending", "List panes needing attention, most urgent first",
               AttentionPendingParams, AttentionPendingResult, kNoFlags>;
using AgentsList = MethodDecl<"agents.list", "List loaded agent manifests and failures", Empty,
                              AgentsListResult, kNoFlags>;
using AgentsReload =
    MethodDecl<"agents.reload", "Re-read the agent manifests, swapping the set at once", Empty,
               AgentsListResult, kMutating>;

}  // namespace signaltty::protocol
