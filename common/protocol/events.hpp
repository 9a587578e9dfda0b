// common/protocol/events.hpp: every event of signaltty/1 with its
// payload type, and the subscription glob families. The store emits these
// types; nothing else spells an event name.
// Runs in: every process. Never: decides who receives an event.
#pragma once

#include <array>
#include <string_view>

#include "common/protocol/method_decl.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::protocol {

struct WorkspacePayload {
  Workspace workspace;
  static constexpr auto fields() { return std::tuple{req("workspace", &WorkspacePayload::workspace)}; }
};
struct WorkspaceClosedPayload {
  std::string workspace_id;
  static constexpr auto fields() {
    return std::tuple{req("workspace_id", &WorkspaceClosedPayload::workspace_id)};
  }
};
struct TabPayload {
  Tab tab;
  static constexpr auto fields() { return std::tuple{req("tab", &TabPayload::tab)}; }
};
struct TabClosedPayload {
  std::string tab_id;
  std::string workspace_id;
  static constexpr auto fields() {
    return std::tuple{req("tab_id", &TabClosedPayload::tab_id),
                      req("workspace_id", &TabClosedPayload::workspace_id)};
  }
};
struct PanePayload {
  Pane pane;
  std::optional<bool> resumed;
  static constexpr auto fields() {
    return std::tuple{req("pane", &PanePayload::pane), opt("resumed", &PanePayload::resumed)};
  }
};
struct PaneIdPayload {
  std::string pane_id;
  static constexpr auto fields() { return std::tuple{req("pane_id", &PaneIdPayload::pane_id)}; }
};
struct PaneExitedPayload {
  std::string pane_id;
  Nullable<int> code;
  Nullable<std::string> signal;
  std::optional<ExitReason> exit_reason;
  static constexpr auto fields() {
    using P = PaneExitedPayload;
    return std::tuple{req("pane_id", &P::pane_id), opt("code", &P::code), opt("signal", &P::signal),
                      opt("exit_reason", &P::exit_reason)};
  }
};
struct PtyDataPayload {
  std::string pane_id;
  std::string data_b64;
  std::uint64_t output_offset = 0;
  static constexpr auto fields() {
    using P = PtyDataPayload;
    return std::tuple{req("pane_id", &P::pane_id), req("data_b64", &P::data_b64),
                      req("output_offset", &P::output_offset, "end offset of this chunk")};
  }
};
struct LifecyclePayload {
  std::string pane_id;
  Lifecycle lifecycle = Lifecycle::Unknown;
  Lifecycle prev = Lifecycle::Unknown;
  std::string source;
  static constexpr auto fields() {
    using P = LifecyclePayload;
    return std::tuple{req("pane_id", &P::pane_id), req("lifecycle", &P::lifecycle),
                      req("prev", &P::prev), opt("source", &P::source)};
  }
};
struct AttentionPayload {
  std::string pane_id;
  Attention attention = Attention::None;
  Attention prev = Attention::None;
  static constexpr auto fields() {
    using P = AttentionPayload;
    return std::tuple{req("pane_id", &P::pane_id), req("attention", &P::attention),
                      req("prev", &P::prev)};
  }
};
struct AttentionClearedPayload {
  std::string pane_id;
  std::string reason;
  static constexpr auto fields() {
    return std::tuple{req("pane_id", &AttentionClearedPayload::pane_id),
                      req("reason", &AttentionClearedPayload::reason)};
  }
};

struct DecisionCreatedPayload {
  std::string pane_id;
  Decision decision;
  Nullable<std::string> prev;  // the superseded decision's id
  static constexpr auto fields() {
    using P = DecisionCreatedPayload;
    return std::tuple{req("pane_id", &P::pane_id), req("decision", &P::decision),
                      req("prev", &P::prev, "the superseded decision's id, or null")};
  }
};
struct DecisionAnsweredPayload {
  std::string pane_id;
  std::string decision_id;
  std::string option_id;
  static constexpr auto fields() {
    using P = DecisionAnsweredPayload;
    return std::tuple{req("pane_id", &P::pane_id), req("decision_id", &P::decision_id),
                      req("option_id", &P::option_id)};
  }
};
struct DecisionClearedPayload {
  std::string pane_id;
  std::string decision_id;
  std::string reason;  // attention_cleared | moved_on | pane_exited | native_cancelled
  static constexpr auto fields() {
    using P = DecisionClearedPayload;
    return std::tuple{req("pane_id", &P::pane_id), req("decision_id", &P::decision_id),
                      req("reason", &P::reason)};
  }
};

namespace ev {
using WorkspaceCreated = EventDecl<"workspace.created", WorkspacePayload>;
using WorkspaceUpdated = EventDecl<"workspace.updated", WorkspacePayload>;
using WorkspaceClosed = EventDecl<"workspace.closed", WorkspaceClosedPayload>;
using WorkspaceTurnStarted = EventDecl<"workspace.turn_started", Json>;
using WorktreeChanged = EventDecl<"worktree.changed", Json>;
using TabCreated = EventDecl<"tab.created", TabPayload>;
using TabUpdated = EventDecl<"tab.updated", TabPayload>;
using TabClosed = EventDecl<"tab.closed", TabClosedPayload>;
using PaneCreated = EventDecl<"pane.created", PanePayload>;
using PaneUpdated = EventDecl<"pane.updated", PanePayload>;
using PaneExited = EventDecl<"pane.exited", PaneExitedPayload>;
using PaneClosed = EventDecl<"pane.closed", PaneIdPayload>;
using PaneResized = EventDecl<"pane.resized", PanePayload>;
using PtyData = EventDecl<"pty.data", PtyDataPayload>;
using PtySnapshot = EventDecl<"pty.snapshot", Json>;
using AgentWorking = EventDecl<"agent.working", LifecyclePayload>;
using AgentBlocked = EventDecl<"agent.blocked", LifecyclePayload>;
using AgentDone = EventDecl<"agent.done", LifecyclePayload>;
using AgentFailed = EventDecl<"agent.failed", LifecyclePayload>;
using AgentIdle = EventDecl<"agent.idle", LifecyclePayload>;
using AgentUnknown = EventDecl<"agent.unknown", LifecyclePayload>;
using AgentExited = EventDecl<"agent.exited", Json>;
using AttentionCreated = EventDecl<"attention.created", AttentionPayload>;
using AttentionUpdated = EventDecl<"attention.updated", AttentionPayload>;
using AttentionCleared = EventDecl<"attention.cleared", AttentionClearedPayload>;
using DecisionCreated = EventDecl<"decision.created", DecisionCreatedPayload>;
using DecisionAnswered = EventDecl<"decision.answered", DecisionAnsweredPayload>;
using DecisionCleared = EventDecl<"decision.cleared", DecisionClearedPayload>;
using NotificationCreated = EventDecl<"notification.created", Json>;
using TaskCreated = EventDecl<"task.created", Json>;
using TaskUpdated = EventDecl<"task.updated", Json>;
using TaskResult = EventDecl<"task.result", Json>;
using GitBranchChanged = EventDecl<"git.branch_changed", Json>;
using ServerWillShutdown = EventDecl<"server.will_shutdown", Empty>;
}  // namespace ev

using AllEvents =
    TypeList<ev::WorkspaceCreated, ev::WorkspaceUpdated, ev::WorkspaceClosed,
             ev::WorkspaceTurnStarted, ev::WorktreeChanged, ev::TabCreated, ev::TabUpdated,
             ev::TabClosed, ev::PaneCreated, ev::PaneUpdated, ev::PaneExited, ev::PaneClosed,
             ev::PaneResized, ev::PtyData, ev::PtySnapshot, ev::AgentWorking, ev::AgentBlocked,
             ev::AgentDone, ev::AgentFailed, ev::AgentIdle, ev::AgentUnknown, ev::AgentExited,
             ev::AttentionCreated, ev::AttentionUpdated, ev::AttentionCleared,
             ev::DecisionCreated, ev::DecisionAnswered, ev::DecisionCleared,
             ev::NotificationCreated, ev::TaskCreated, ev::TaskUpdated, ev::TaskResult,
             ev::GitBranchChanged, ev::ServerWillShutdown>;

// Subscription globs (docs/rules.md, Events); `*` matches everything.
inline constexpr std::array<std::string_view, 13> kEventGlobs{
    "*",        "agent.*",    "pane.*",         "workspace.*", "tab.*", "attention.*",
    "notification.*", "decision.*", "worktree.*", "git.*",     "pty.*", "task.*",
    "server.*"};

// True iff `name` is a declared event or one of kEventGlobs.
bool is_event_selector(std::string_view selector);
// True iff event `name` is selected by `selector` (an exact name or a glob).
bool event_matches(std::string_view selector, std::string_view name);

}  // namespace signaltty::protocol
