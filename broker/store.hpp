// broker/store.hpp: the model of docs/rules.md (Model) — workspaces (in creation order),
// their tabs, and the panes map — and every transition on it. A transition
// validates first and mutates only when nothing can fail any more, so a
// failed call leaves the model untouched; a change emits its typed events
// into the caller's Txn and bumps revision(); a no-op emits nothing.
// Runs in: broker (io thread, the store's one owner).
// Never: knows sockets, the journal or threads; it only fills a Txn.
//
// Usage:
//   Txn txn;
//   SIGNALTTY_TRY(protocol::Workspace ws, store.create_workspace(txn, "api", std::nullopt));
//   SIGNALTTY_TRY(protocol::Tab tab, store.create_tab(txn, ws.handle, std::nullopt));
//   // txn.events(): workspace.created, tab.created, workspace.updated
//
// Pointers returned by the find_* queries stay valid until the next
// transition.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/event.hpp"
#include "broker/snapshot_doc.hpp"
#include "broker/store_launches.hpp"
#include "common/errors.hpp"
#include "common/protocol/methods/agent.hpp"
#include "common/protocol/model.hpp"
#include "common/protocol/signal_name.hpp"

namespace signaltty::broker {

// Returns "now" as an RFC 3339 UTC string; tests pass a fixed one.
using Clock = std::function<std::string()>;
Clock system_clock_rfc3339();

// Default names (docs/rules.md (Model), Workspace; Tab and layout).
inline constexpr std::string_view kDefaultWorkspaceName = "workspace";
inline constexpr std::string_view kDefaultTabTitle = "tab";

// A pane's PTY size as every request stores it (common/pane_size.hpp).
protocol::PtySize clamp_pty_size(int cols, int rows);

// A notification before it is made a record (docs/rules.md (Model), Notification): from
// an OSC 9/99/777 sequence, `notify` or an adapter. `title` missing or
// empty becomes "signaltty".
struct NotificationDraft {
  std::optional<std::string> pane_id;
  std::optional<std::string> title;
  std::string body;
  protocol::Severity severity = protocol::Severity::Info;
  std::string source;  // osc9 | osc99 | osc777 | cli | hook:<agent>:<event> | adapter | system
};

// Where a lifecycle change came from (docs/rules.md, decision 12); carried
// as `source` on agent.* events.
enum class LifecycleSource { Hook, Screen, Osc, Exit, Process, User };
std::string_view source_name(LifecycleSource source);

class Store {
 public:
  explicit Store(Clock clock = system_clock_rfc3339());

  // ---- queries -----------------------------------------------------------
  // By id first, then by handle; NO_SUCH_WORKSPACE naming the key.
  Result<const protocol::Workspace*> find_workspace(std::string_view id_or_handle) const;
  // By id; NO_SUCH_TAB naming the key.
  Result<const protocol::Tab*> find_tab(std::string_view tab_id) const;
  // By id first, then by pane name; NO_SUCH_PANE naming the key.
  Result<const protocol::Pane*> find_pane(std::string_view id_or_name) const;

  std::vector<protocol::Workspace> list_workspaces() const;
  // The workspace's tabs in its `tabs` order.
  std::vector<protocol::Tab> tabs_of(const protocol::Workspace& workspace) const;
  // Every pane of the workspace, tab by tab, each tab in layout order.
  std::vector<protocol::Pane> panes_of_workspace(const protocol::Workspace& workspace) const;
  // The tab's panes: layout order, then any pane without a leaf (by id).
  std::vector<protocol::Pane> panes_of_tab(const protocol::Tab& tab) const;

  std::size_t workspace_count() const { return workspaces_.size(); }
  std::size_t tab_count() const { return tabs_.size(); }
  std::size_t pane_count() const { return panes_.size(); }
  std::size_t live_pane_count() const;

  // Grows by one with every transition that changed the model.
  std::uint64_t revision() const { return revision_; }

  // Orders pane launches before the closes of their workspace or tab
  // (broker/store_launches.hpp). Runtime only: never saved.
  LaunchGate& launches() { return launches_; }

  // ---- workspace transitions ---------------------------------------------
  // Name default "workspace" (sanitized, see sanitize_display_name); cwd
  // default $HOME, must be an absolute existing directory (BAD_PARAMS
  // naming `cwd`) and is stored resolved (realpath). The handle is derived
  // from the name and unique. Emits workspace.created {workspace}.
  Result<protocol::Workspace> create_workspace(Txn& txn, std::optional<std::string> name,
                                               std::optional<std::string> cwd,
                                               bool auto_resume = false,
                                               bool shared_control = false);
  // Changes the name only (the handle is immutable). Emits
  // workspace.updated {workspace}, nothing when the name is unchanged.
  // Records what the gitworker found for the workspace's cwd. Emits
  // workspace.updated {workspace} when it differs, and before it
  // git.branch_changed {workspace_id, branch?, prev_branch?, detached} when
  // the branch (or detachment) changed; nothing when all is as recorded.
  Result<protocol::Workspace> set_workspace_git(Txn& txn, std::string_view id_or_handle,
                                                protocol::WorkspaceGit git);
  Result<protocol::Workspace> rename_workspace(Txn& txn, std::string_view id_or_handle,
                                               std::string_view name);
  // Removes every tab (tab.closed {tab_id, workspace_id} each), then emits
  // workspace.closed {workspace_id}. Its panes must be gone already
  // (docs/rules.md, decision 17: a pane is removed only once its child is reaped,
  // through remove_pane): PANES_ALIVE {pane_ids} otherwise, changing nothing.
  Status close_workspace(Txn& txn, std::string_view id_or_handle);

  // ---- tab transitions ---------------------------------------------------
  // Title default "tab"; the new tab (layout null) becomes the active tab.
  // Emits tab.created {tab}, then workspace.updated {workspace}.
  Result<protocol::Tab> create_tab(Txn& txn, std::string_view workspace_key,
                                   std::optional<std::string> title);
  // Emits tab.closed {tab_id, workspace_id}, fixes the workspace's tabs and
  // active_tab_id (the next tab, else the previous one, else none) and
  // emits workspace.updated. Its panes must be gone already (see
  // close_workspace): PANES_ALIVE {pane_ids} otherwise, changing nothing.
  Status close_tab(Txn& txn, std::string_view tab_id);
  // Leaves may name panes by id or name. The tree must hold every pane of
  // the tab exactly once (BAD_PARAMS {pane_id} otherwise); ratios are
  // clamped. Emits tab.updated {tab}, nothing when the layout is unchanged.
  Result<protocol::Tab> set_layout(Txn& txn, std::string_view tab_id,
                                   const protocol::Layout& layout);
  // Moves one divider (layout.hpp set_ratio_at). A tab without a layout is
  // BAD_PARAMS. Emits tab.updated {tab}, nothing when the ratio is unchanged.
  Result<protocol::Tab> set_ratio(Txn& txn, std::string_view tab_id, const std::vector<int>& path,
                                  double ratio);

  // ---- pane transitions (broker/store_panes.cpp) ---------------------------
  // Removes a pane record (once its process is gone): emits pane.closed
  // {pane_id}, removes its leaf (the parent collapses; the last leaf makes
  // the layout null), moves active_pane_id to the first remaining pane and
  // emits tab.updated {tab}.
  Status remove_pane(Txn& txn, std::string_view pane_id);

  // Where pane.spawn would put a pane, checked without changing anything:
  // the explicit tab (NO_SUCH_TAB when unknown; BAD_PARAMS when it belongs
  // to another workspace or already has panes), else the active tab
  // (BAD_PARAMS when it has panes: use pane.split), else nullopt = a new
  // tab "agents" is created once the child launched.
  Result<std::optional<std::string>> spawn_target_tab(std::string_view workspace_key,
                                                      const std::optional<std::string>& tab_id) const;
  // Publishes a launched pane. `pane.workspace_id` must exist; an empty
  // `pane.tab_id` creates the tab "agents" (tab.created, workspace.updated).
  // With `split_of`, the pane is split in next to that pane of the same tab
  // (layout.hpp split_leaf), else the tab must be empty. The new pane
  // becomes the tab's active pane. Emits pane.created {pane}, tab.updated.
  Result<protocol::Pane> add_pane(Txn& txn, protocol::Pane pane,
                                  const std::optional<std::string>& split_of = std::nullopt,
                                  protocol::SplitDir dir = protocol::SplitDir::Right);
  // A pane whose ptyhost was adopted at startup but has no record (the
  // snapshot was lost, docs/rules.md, decision 2): back into its saved workspace and
  // tab when both still exist, else into the workspace `recovered` (made
  // on first use, with one tab). Emits as add_pane does.
  Result<protocol::Pane> add_recovered_pane(Txn& txn, protocol::Pane pane);

  // The process facts of a pane (adoption, spawn): pid, ptyhost_pid and
  // `live`/`restore_state` LIVE. Emits pane.updated when anything changed.
  Result<protocol::Pane> set_pane_process(Txn& txn, std::string_view pane_id,
                                          std::optional<std::int64_t> pid,
                                          std::optional<std::int64_t> ptyhost_pid);
  // The child ended (docs/rules.md, decision 14): live {exited, code}, restore_state
  // EXITED, exit_code/exit_signal, pid null, lifecycle exited, attention
  // raised to unread (input/permission_required set down to it) unless the
  // pane was reviewed. Emits pane.exited {pane_id, code, signal},
  // agent.exited {pane_id, exit_code, exit_signal, outcome} and the
  // attention event. A pane already exited changes nothing.
  Result<protocol::Pane> pane_exited(Txn& txn, std::string_view pane_id,
                                     std::optional<int> code, std::optional<std::string> signal);
  // Its ptyhost is gone (reboot, crash): docs/rules.md (Persistence) "Restore": a live
  // pane becomes exited (code null) and RESTORED, or RESUMABLE with an
  // agent resume_argv; an exited one EXITED; pid and ptyhost_pid null.
  // Emits pane.updated when anything changed.
  Result<protocol::Pane> pane_without_process(Txn& txn, std::string_view pane_id);
  // pane.resume (docs/rules.md "Resume"): the pane runs again in its slot
  // with a new process_instance; live, LIVE, exit fields cleared, lifecycle
  // unknown (agent.unknown, source user). Emits pane.created {pane,
  // resumed: true}.
  Result<protocol::Pane> resume_pane(Txn& txn, std::string_view pane_id, std::int64_t pid,
                                     std::int64_t ptyhost_pid);
  // pane.rename: a valid unique name, or nullopt to clear. Emits pane.updated.
  Result<protocol::Pane> rename_pane(Txn& txn, std::string_view pane_key,
                                     const std::optional<std::string>& name);
  // Stores the clamped size; emits pane.resized {pane} when it changed.
  Result<protocol::Pane> resize_pane(Txn& txn, std::string_view pane_id, protocol::PtySize size);
  // OSC 0/1/2: sanitized, ≤200 chars; empty is ignored. Emits pane.updated.
  Result<protocol::Pane> set_pane_title(Txn& txn, std::string_view pane_id, std::string_view title);
  // The live process refresh (docs/rules.md "Live process refresh"): a
  // generic or none pane promoted to a specific `kind` (never demoted), and
  // `cwd` when it is a clean absolute path that differs. One pane.updated
  // when anything changed, nothing otherwise.
  Result<protocol::Pane> refresh_pane_process(Txn& txn, std::string_view pane_id,
                                              std::optional<protocol::AgentKind> kind,
                                              const std::optional<std::string>& cwd);
  // Bell (docs/rules.md (Model), attention axis): raise = max, with
  // attention.created/updated; last_activity_at touched; `last_message`
  // replaced when given.
  Status raise_pane_attention(Txn& txn, std::string_view pane_id, protocol::Attention attention,
                              const std::optional<std::string>& last_message);
  // docs/rules.md (Model), Notification: title and body sanitized (controls but \n \t
  // removed; title ≤200, body ≤2000 code points; an empty body omitted),
  // kept among the last 200, emitted as notification.created
  // {notification}. Of a pane: last_message set (`title: body` with the
  // body cut to 300 code points + "…" when a title was given, else the
  // body; unchanged without a body), attention raised by severity
  // (info→unread, warning, error) and last_activity_at touched. An OSC 9;4
  // progress report is no notification (docs/rules.md, decision 19): nullopt, no
  // change. NO_SUCH_PANE for an unknown pane.
  Result<std::optional<protocol::Json>> add_notification(Txn& txn, NotificationDraft draft);
  // The kept notifications, oldest first.
  const std::deque<protocol::Json>& notifications() const { return notifications_; }
  // The pane printed something (docs/rules.md (Panes and PTYs), Output path: touch
  // last_activity_at, no event): at most once per
  // limits::kActivityTouchInterval per pane, never an event or a revision,
  // so output alone is never journaled; the next snapshot carries it.
  void note_output(std::string_view pane_id, std::chrono::steady_clock::time_point now);
  // docs/rules.md "Clearing (mark seen)": last_seen_at always, and read_at on
  // the pane's unread notifications (decision 11); unless a decision is
  // pending, attention cleared (attention.cleared {pane_id, reason}) when it
  // was raised. `reason`: mark_seen | attach | decision_answer.
  Status mark_pane_seen(Txn& txn, std::string_view pane_id, std::string_view reason);
  // pane.swap: both panes in one workspace, distinct, each in its tab's
  // layout (BAD_PARAMS otherwise). Emits tab.updated per touched tab,
  // pane.updated per pane that changed tab; returns the touched tabs.
  Result<std::vector<protocol::Tab>> swap_panes(Txn& txn, std::string_view pane_key,
                                                std::string_view target_key);
  // pane.move: the pane leaves its slot (as after pane.close) and splits
  // the target's leaf in `dir`. Same rules and events as swap_panes.
  Result<std::vector<protocol::Tab>> move_pane(Txn& txn, std::string_view pane_key,
                                               std::string_view target_key, protocol::SplitDir dir);
  // Runtime figure reported by the ptyhost; no event, no revision.
  void note_scrollback_len(std::string_view pane_id, std::uint64_t lines);
  std::vector<protocol::Pane> list_panes() const;

  // ---- agent axes (broker/store_agents.cpp) --------------------------------
  // docs/rules.md "Lifecycle axis": sets the lifecycle; on a change,
  // last_lifecycle, lifecycle_since and (leaving working) last_run_secs, a
  // new transition number, and agent.<state> {pane_id, lifecycle, prev,
  // source}. The same value again changes and emits nothing.
  Result<protocol::Pane> set_pane_lifecycle(Txn& txn, std::string_view pane_id,
                                            protocol::Lifecycle lifecycle, LifecycleSource source);
  // The pane's wait_baseline as pane.get returns it.
  Result<protocol::WaitBaseline> wait_baseline(std::string_view pane_id) const;
  // The pane's transition numbers (all zero before its first transition).
  PaneTransitions transitions_of(std::string_view pane_id) const;
  // docs/rules.md "Wait baseline": one check of a `wait`. NO_SUCH_PANE,
  // IDENTITY_CHANGED, BAD_PARAMS (unknown state name, a baseline that is
  // malformed or ahead) as errors; nullopt while nothing matches yet.
  Result<std::optional<protocol::WaitResult>> check_wait(
      std::string_view pane_id, const protocol::UntilSpec& until,
      const std::optional<protocol::WaitBaseline>& after) const;
  // docs/rules.md "Attention order": panes with attention, severity
  // descending, then last_activity_at descending (then id); at most `limit`.
  std::vector<protocol::AttentionPendingPane> pending_attention(std::size_t limit) const;

  // ---- hooks, sessions and decisions (broker/store_decisions.cpp) ---------
  // docs/rules.md "Agent sessions": a hook or report-session names the
  // pane's agent session. A specific `kind` becomes the pane's agent kind; a
  // session id other than the recorded one bumps session_generation (a wait
  // baseline taken before reads IDENTITY_CHANGED) and rebuilds resume_argv
  // from the adapter; a given `resume_argv` replaces it. Emits pane.updated
  // when anything changed.
  Result<protocol::Pane> record_agent_session(
      Txn& txn, std::string_view pane_id, protocol::AgentKind kind, const std::string& session_id,
      const std::optional<std::vector<std::string>>& resume_argv = std::nullopt);
  // A hook's summary: last_message (cleaned, <=2000 code points) and
  // last_activity_at. No event of its own: the pane is touched in `txn`.
  Status note_hook_message(Txn& txn, std::string_view pane_id, std::string_view message);
  // A hook's explicit clear: attention none (attention.cleared {pane_id,
  // reason}) when raised, and the pending decision dropped (decision.cleared
  // reason attention_cleared).
  Status clear_pane_attention(Txn& txn, std::string_view pane_id, std::string_view reason);
  // docs/rules.md "Decision": validated (BAD_PARAMS naming the field), its
  // received_at set, superseding any pending one: decision.created {pane_id,
  // decision, prev}. The same decision again (a reporter re-registering
  // after a restart) emits decision.created only when `answerable` changed.
  Result<protocol::Decision> set_pending_decision(Txn& txn, std::string_view pane_id,
                                                  protocol::Decision decision);
  // The checks of set_pending_decision alone, changing nothing.
  static Result<protocol::Decision> validated_decision(protocol::Decision decision);
  // Drops the pending decision unanswered: decision.cleared {pane_id,
  // decision_id, reason}. With `only_id`, only when that decision is the
  // pending one. False when nothing was dropped.
  bool clear_pending_decision(Txn& txn, std::string_view pane_id, std::string_view reason,
                              std::optional<std::string_view> only_id = std::nullopt);
  // The native decision lost its waiting reporter (a broker restart): it
  // stays pending, not answerable, until the reporter re-registers. No event.
  void mark_decision_unanswerable(std::string_view pane_id, std::string_view decision_id);
  // decision.answer's checks, changing nothing: NO_SUCH_DECISION unless
  // `decision_id` is the pane's pending decision; BAD_PARAMS for an option it
  // does not offer. Returns the option's 0-based index.
  Result<std::size_t> check_answer(std::string_view pane_id, std::string_view decision_id,
                                   std::string_view option_id) const;
  // decision.answer's store half (docs/rules.md "Decision"): the id consumed
  // (decision.answered {pane_id, decision_id, option_id}), the pane marked
  // seen (reason decision_answer) and a blocked pane back to working
  // (source user).
  Result<protocol::Pane> answer_decision(Txn& txn, std::string_view pane_id,
                                         std::string_view decision_id, std::string_view option_id);

  // ---- persistence (docs/rules.md (Persistence), Snapshot) ----------------------------
  SnapshotDoc to_snapshot() const;
  // Restores workspaces, tabs and panes as saved. Repairs, each with a
  // log warning: duplicate ids dropped; tabs of a missing workspace and
  // panes of a missing tab dropped; workspace tab lists and active ids
  // fixed; tab layouts made to hold exactly the tab's panes. Missing
  // handles are backfilled (workspaces sorted by id). A version other than
  // kSnapshotVersion is BAD_PARAMS (the caller refuses to start).
  static Result<Store> from_snapshot(SnapshotDoc doc, Clock clock = system_clock_rfc3339());
  // ---- journal replay (broker/store_replay.cpp; docs/rules.md (Persistence), "Journal replay")
  // Applies one journal record's state image: its workspaces, tabs, panes
  // (with their transition numbers) and notifications upserted, its
  // removals made. All or nothing: BAD_PARAMS, changing nothing, when an
  // entity has no id, a tab's workspace or a pane's tab would not exist, or
  // a removed workspace or tab would keep a tab or pane.
  Status apply_state_image(StateImage image);
  // Once the last image is applied: the repairs from_snapshot makes.
  void repair_after_replay();

 private:
  std::vector<std::string> pane_ids_of_tab(std::string_view tab_id) const;
  bool handle_taken(std::string_view handle) const;
  std::string resolve_leaf(const std::string& id_or_name) const;

  Status require_no_panes(const std::vector<std::string>& tab_ids) const;
  protocol::Pane& pane_at(const std::string& id) { return panes_.at(id); }
  Result<std::string> ensure_recovered_tab(Txn& txn);
  void set_attention(Txn& txn, protocol::Pane& pane, protocol::Attention next);
  // broker/store_agents.cpp: a lifecycle change without its event, and the
  // transition numbers of one change on either axis.
  bool apply_lifecycle(protocol::Pane& pane, protocol::Lifecycle next, const std::string& now);
  enum class Axis { Lifecycle, Attention };
  void record_transition(const std::string& pane_id, Axis axis, std::string_view state);
  void mark_notifications_read(const std::string& pane_id, const std::string& now);
  void restore_transitions(std::vector<PaneTransitions> saved);
  void detach_leaf(Txn& txn, protocol::Tab& tab, const std::string& pane_id);
  void drop_tab(Txn& txn, const std::string& tab_id);
  void changed() { ++revision_; }

  // from_snapshot steps
  void restore_workspaces(std::vector<protocol::Workspace> workspaces);
  void restore_tabs(std::vector<protocol::Tab> tabs);
  void restore_panes(std::vector<protocol::Pane> panes);
  void restore_notifications(std::vector<protocol::Json> notifications);
  void repair_tab_lists();
  void repair_layouts();
  void backfill_handles();

  Clock clock_;
  std::vector<std::string> workspace_order_;
  std::map<std::string, protocol::Workspace, std::less<>> workspaces_;
  std::map<std::string, protocol::Tab, std::less<>> tabs_;
  std::map<std::string, protocol::Pane, std::less<>> panes_;
  std::uint64_t revision_ = 0;
  std::deque<protocol::Json> notifications_;
  std::map<std::string, PaneTransitions, std::less<>> transitions_;
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> activity_touched_;
  LaunchGate launches_;
};

}  // namespace signaltty::broker
