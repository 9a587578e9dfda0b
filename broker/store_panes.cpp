// broker/store_panes.cpp: the store's pane transitions (docs/rules.md: Pane,
// Tab and layout, decision 14, Restore;
// pane.rename/swap/move). Each one finds and validates first, then mutates
// and emits, so a failure changes nothing.
// Runs in: broker (io thread). Never: talks to a ptyhost; the supervisor
// calls these once a process fact is known.
#include <algorithm>

#include "broker/handle.hpp"
#include "broker/layout.hpp"
#include "broker/ptyhost_text.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

namespace ev = protocol::ev;
using protocol::AgentKind;
using protocol::Attention;
using protocol::Lifecycle;
using protocol::Pane;
using protocol::RestoreState;
using protocol::Tab;
using protocol::Workspace;

namespace {

// docs/rules.md, Tab and layout: the tab pane.spawn creates when there is none.
constexpr std::string_view kSpawnTabTitle = "agents";
// docs/rules.md, decision 2: where ptyhosts without a record are put back.
constexpr std::string_view kRecoveredWorkspaceName = "recovered";
constexpr std::string_view kLiveState = "live";
constexpr std::string_view kExitedState = "exited";
// docs/rules.md "Decision": why an exit drops the pending decision.
constexpr std::string_view kPaneExitedReason = "pane_exited";

Error pane_param_error(std::string message, std::string_view pane_id) {
  Error e = bad_params(std::move(message));
  e.details = {{"pane_id", std::string(pane_id)}};
  return e;
}

bool has_leaf(const Tab& tab, std::string_view pane_id) {
  return tab.layout.has_value() && contains_leaf(*tab.layout, pane_id);
}


}  // namespace

// ---- placement -----------------------------------------------------------------

Result<std::optional<std::string>> Store::spawn_target_tab(
    std::string_view workspace_key, const std::optional<std::string>& tab_id) const {
  SIGNALTTY_TRY(const Workspace* ws, find_workspace(workspace_key));
  const std::optional<std::string> chosen = tab_id ? tab_id : ws->active_tab_id;
  if (!chosen) return std::optional<std::string>{};
  SIGNALTTY_TRY(const Tab* tab, find_tab(*chosen));
  if (tab->workspace_id != ws->id) {
    Error e = bad_params("tab '" + tab->id + "' belongs to another workspace");
    e.details = {{"tab_id", tab->id}, {"field", "tab_id"}};
    return e;
  }
  if (!pane_ids_of_tab(tab->id).empty()) {
    Error e = bad_params("tab '" + tab->id + "' already has panes; use pane.split");
    e.details = {{"tab_id", tab->id}, {"field", "tab_id"}};
    return e;
  }
  return std::optional<std::string>(tab->id);
}

Result<Pane> Store::add_pane(Txn& txn, Pane pane, const std::optional<std::string>& split_of,
                             protocol::SplitDir dir) {
  if (pane.id.empty() || panes_.contains(pane.id))
    return Error{ErrorCode::Internal, "add_pane: pane id missing or taken"};
  SIGNALTTY_TRY(const Workspace* ws, find_workspace(pane.workspace_id));
  pane.workspace_id = ws->id;
  if (!pane.tab_id.empty()) {
    SIGNALTTY_TRY(const Tab* tab, find_tab(pane.tab_id));
    if (tab->workspace_id != ws->id) return bad_params("tab belongs to another workspace");
    if (split_of) {
      if (!has_leaf(*tab, *split_of)) return pane_param_error("no such pane in the tab", *split_of);
    } else if (!pane_ids_of_tab(tab->id).empty()) {
      return bad_params("tab '" + tab->id + "' already has panes; use pane.split");
    }
  } else if (split_of) {
    return Error{ErrorCode::Internal, "add_pane: a split needs the source's tab"};
  }
  if (pane.tab_id.empty()) {
    SIGNALTTY_TRY(Tab created, create_tab(txn, ws->id, std::string(kSpawnTabTitle)));
    pane.tab_id = created.id;
  }
  Tab& tab = tabs_.at(pane.tab_id);
  tab.layout = split_of ? split_leaf(*tab.layout, *split_of, pane.id, dir) : Layout::leaf(pane.id);
  tab.active_pane_id = pane.id;
  panes_.emplace(pane.id, pane);
  txn.emit<ev::PaneCreated>({pane, std::nullopt});
  txn.emit<ev::TabUpdated>({tab});
  changed();
  return pane;
}

Result<std::string> Store::ensure_recovered_tab(Txn& txn) {
  auto found = find_workspace(kRecoveredWorkspaceName);
  std::string ws_id;
  if (found.ok()) {
    ws_id = (*found)->id;
  } else {
    SIGNALTTY_TRY(Workspace ws, create_workspace(txn, std::string(kRecoveredWorkspaceName),
                                                 std::nullopt));
    ws_id = ws.id;
  }
  const Workspace& ws = workspaces_.at(ws_id);
  if (ws.active_tab_id) return *ws.active_tab_id;
  SIGNALTTY_TRY(Tab tab, create_tab(txn, ws_id, std::string(kRecoveredWorkspaceName)));
  return tab.id;
}

Result<Pane> Store::add_recovered_pane(Txn& txn, Pane pane) {
  auto tab = find_tab(pane.tab_id);
  const bool home_exists = tab.ok() && (*tab)->workspace_id == pane.workspace_id &&
                           workspaces_.contains(pane.workspace_id);
  if (!home_exists) {
    SIGNALTTY_TRY(pane.tab_id, ensure_recovered_tab(txn));
    pane.workspace_id = tabs_.at(pane.tab_id).workspace_id;
  }
  const Tab& target = tabs_.at(pane.tab_id);
  std::optional<std::string> split_of;
  if (target.layout.has_value()) split_of = leaves(*target.layout).back();
  if (pane.name && find_pane(*pane.name).ok()) pane.name.reset();
  return add_pane(txn, std::move(pane), split_of, protocol::SplitDir::Right);
}

// ---- process facts ----------------------------------------------------------------

Result<Pane> Store::set_pane_process(Txn& txn, std::string_view pane_id,
                                     std::optional<std::int64_t> pid,
                                     std::optional<std::int64_t> ptyhost_pid) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane next = *found;
  next.pid = pid ? protocol::Nullable<std::int64_t>(*pid) : std::nullopt;
  next.ptyhost_pid = ptyhost_pid ? protocol::Nullable<std::int64_t>(*ptyhost_pid) : std::nullopt;
  if (pid) {
    next.live = protocol::PaneLive{};
    next.restore_state = RestoreState::Live;
  }
  if (next == *found) return next;
  Pane& pane = pane_at(found->id);
  pane = std::move(next);
  txn.emit<ev::PaneUpdated>({pane, std::nullopt});
  changed();
  return pane;
}

void Store::set_attention(Txn& txn, Pane& pane, Attention next) {
  const Attention prev = pane.attention;
  if (next == prev) return;
  pane.attention = next;
  record_transition(pane.id, Axis::Attention, protocol::encode(next).get<std::string>());
  if (next == Attention::None) {
    pane.attention_since.reset();
    return;
  }
  pane.attention_since = clock_();
  if (prev == Attention::None)
    txn.emit<ev::AttentionCreated>({pane.id, next, prev});
  else
    txn.emit<ev::AttentionUpdated>({pane.id, next, prev});
}

Result<Pane> Store::pane_exited(Txn& txn, std::string_view pane_id, std::optional<int> code,
                                std::optional<std::string> signal) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  if (found->live.state == kExitedState && found->exit_code.has_value()) return *found;
  Pane& pane = pane_at(found->id);
  const std::string now = clock_();
  const Lifecycle prev_lifecycle = pane.lifecycle;
  const bool reviewed = (prev_lifecycle == Lifecycle::Done || prev_lifecycle == Lifecycle::Failed) &&
                        pane.attention == Attention::None;
  const protocol::Nullable<int> wire_code = code ? protocol::Nullable<int>(*code) : std::nullopt;
  const protocol::Nullable<std::string> wire_signal =
      signal ? protocol::Nullable<std::string>(*signal) : std::nullopt;
  pane.live = protocol::PaneLive{std::string(kExitedState), wire_code};
  pane.restore_state = RestoreState::Exited;
  pane.exit_code = wire_code;
  pane.exit_signal = wire_signal;
  // docs/rules.md, decision 27: neither a code nor a signal means the ptyhost died.
  pane.exit_reason = code ? protocol::ExitReason::Exited
                          : signal ? protocol::ExitReason::Signaled
                                   : protocol::ExitReason::PtyhostLost;
  pane.pid = std::nullopt;
  pane.last_activity_at = now;
  txn.emit<ev::PaneExited>({pane.id, wire_code, wire_signal, pane.exit_reason});
  clear_pending_decision(txn, pane.id, kPaneExitedReason);
  if (apply_lifecycle(pane, Lifecycle::Exited, now)) {
    txn.emit<ev::AgentExited>(protocol::Json{
        {"pane_id", pane.id},
        {"exit_code", protocol::encode(wire_code)},
        {"exit_signal", protocol::encode(wire_signal)},
        {"outcome", code && *code == 0 ? "done" : "failed"},
        {"lifecycle", protocol::encode(Lifecycle::Exited)},
        {"prev", protocol::encode(prev_lifecycle)},
        {"source", std::string(source_name(LifecycleSource::Exit))}});
  }
  const bool required = pane.attention == Attention::InputRequired ||
                        pane.attention == Attention::PermissionRequired;
  if (required)
    set_attention(txn, pane, Attention::Unread);
  else if (!reviewed)
    set_attention(txn, pane, std::max(pane.attention, Attention::Unread));
  changed();
  return pane;
}

Result<Pane> Store::pane_without_process(Txn& txn, std::string_view pane_id) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane next = *found;
  if (next.live.state == kLiveState) {
    next.live = protocol::PaneLive{std::string(kExitedState), protocol::Nullable<int>{}};
    next.exit_reason = protocol::ExitReason::PtyhostLost;  // docs/rules.md, decision 27
    next.restore_state = next.agent.resume_argv ? RestoreState::Resumable : RestoreState::Restored;
    next.process_instance = new_id("proc");
  } else if (next.restore_state == RestoreState::Live) {
    next.restore_state = RestoreState::Exited;
  }
  next.pid = std::nullopt;
  next.ptyhost_pid = std::nullopt;
  if (next == *found) return next;
  Pane& pane = pane_at(found->id);
  pane = std::move(next);
  txn.emit<ev::PaneUpdated>({pane, std::nullopt});
  changed();
  return pane;
}

Result<Pane> Store::resume_pane(Txn& txn, std::string_view pane_id, std::int64_t pid,
                                std::int64_t ptyhost_pid) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane& pane = pane_at(found->id);
  pane.pid = pid;
  pane.ptyhost_pid = ptyhost_pid;
  pane.live = protocol::PaneLive{};
  pane.restore_state = RestoreState::Live;
  pane.exit_code.reset();
  pane.exit_signal.reset();
  pane.exit_reason.reset();
  pane.process_instance = new_id("proc");
  pane.last_activity_at = clock_();
  auto unknown = set_pane_lifecycle(txn, pane.id, Lifecycle::Unknown, LifecycleSource::User);
  if (!unknown.ok()) return std::move(unknown).error();
  txn.emit<ev::PaneCreated>({pane, true});
  changed();
  return pane;
}

// ---- client-visible edits ------------------------------------------------------------

Result<Pane> Store::rename_pane(Txn& txn, std::string_view pane_key,
                                const std::optional<std::string>& name) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_key));
  if (name) {
    SIGNALTTY_RETURN_IF_ERROR(validate_pane_name(*name));
    const bool is_an_id = panes_.contains(*name) && *name != found->id;
    auto holder = find_pane(*name);
    if (is_an_id || (holder.ok() && (*holder)->id != found->id)) {
      Error e = bad_params("pane name '" + *name + "' is taken");
      e.details = {{"field", "name"}, {"name", *name}};
      return e;
    }
  }
  if (found->name == name) return *found;
  Pane& pane = pane_at(found->id);
  pane.name = name;
  txn.emit<ev::PaneUpdated>({pane, std::nullopt});
  changed();
  return pane;
}

Result<Pane> Store::resize_pane(Txn& txn, std::string_view pane_id, protocol::PtySize size) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  size = clamp_pty_size(size.cols, size.rows);
  if (found->pty_size == size) return *found;
  Pane& pane = pane_at(found->id);
  pane.pty_size = size;
  txn.emit<ev::PaneResized>({pane, std::nullopt});
  changed();
  return pane;
}

Result<Pane> Store::set_pane_title(Txn& txn, std::string_view pane_id, std::string_view title) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  auto clean = sanitize_display_name(utf8_prefix(title, limits::kNameMaxBytes), "title");
  if (!clean.ok() || *clean == found->title) return *found;
  Pane& pane = pane_at(found->id);
  pane.title = std::move(clean).value();
  txn.emit<ev::PaneUpdated>({pane, std::nullopt});
  changed();
  return pane;
}

Result<Pane> Store::refresh_pane_process(Txn& txn, std::string_view pane_id,
                                         std::optional<AgentKind> kind,
                                         const std::optional<std::string>& cwd) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane& pane = pane_at(found->id);
  const bool promotable =
      pane.agent.kind == AgentKind::Generic || pane.agent.kind == AgentKind::None;
  const bool promote =
      kind && promotable && *kind != AgentKind::Generic && *kind != AgentKind::None;
  const bool move = cwd && *cwd != pane.cwd && is_clean_absolute_path(*cwd);
  if (!promote && !move) return pane;
  if (promote) pane.agent.kind = *kind;
  if (move) pane.cwd = *cwd;
  txn.emit<ev::PaneUpdated>({pane, std::nullopt});
  changed();
  return pane;
}

Status Store::raise_pane_attention(Txn& txn, std::string_view pane_id, Attention attention,
                                   const std::optional<std::string>& last_message) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane& pane = pane_at(found->id);
  pane.last_activity_at = clock_();
  if (last_message) pane.last_message = last_message;
  set_attention(txn, pane, std::max(pane.attention, attention));
  changed();
  return {};
}

Status Store::mark_pane_seen(Txn& txn, std::string_view pane_id, std::string_view reason) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane& pane = pane_at(found->id);
  pane.last_seen_at = clock_();
  // No event names these changes; the journal records them all the same.
  txn.touch(EntityKind::Pane, pane.id);
  for (const protocol::Json& n : notifications_)
    if (n.value("pane_id", std::string()) == pane.id && !n.contains("read_at"))
      txn.touch(EntityKind::Notification, n.value("id", std::string()));
  mark_notifications_read(pane.id, *pane.last_seen_at);
  // docs/rules.md "Clearing (mark seen)": a pending decision keeps its attention.
  if (pane.attention != Attention::None && !pane.pending_decision) {
    set_attention(txn, pane, Attention::None);
    txn.emit<ev::AttentionCleared>({pane.id, std::string(reason)});
  }
  changed();
  return {};
}

// ---- swap and move ------------------------------------------------------------------

namespace {

struct PanePair {
  const Pane* pane;
  const Pane* target;
};

}  // namespace

// Both distinct, in one workspace, each placed in its tab's layout.
static Result<PanePair> checked_pair(const Store& store, std::string_view a, std::string_view b,
                                     const auto& tab_of) {
  SIGNALTTY_TRY(const Pane* pane, store.find_pane(a));
  SIGNALTTY_TRY(const Pane* target, store.find_pane(b));
  if (pane->id == target->id) return pane_param_error("pane and target are the same pane", pane->id);
  if (pane->workspace_id != target->workspace_id)
    return pane_param_error("pane and target are in different workspaces", target->id);
  for (const Pane* p : {pane, target}) {
    if (!has_leaf(tab_of(p->tab_id), p->id))
      return pane_param_error("pane '" + p->id + "' is not in its tab's layout", p->id);
  }
  return PanePair{pane, target};
}

Result<std::vector<Tab>> Store::swap_panes(Txn& txn, std::string_view pane_key,
                                           std::string_view target_key) {
  SIGNALTTY_TRY(PanePair pair, checked_pair(*this, pane_key, target_key,
                                            [this](const std::string& id) -> const Tab& {
                                              return tabs_.at(id);
                                            }));
  const std::string a = pair.pane->id;
  const std::string b = pair.target->id;
  Tab& tab_a = tabs_.at(pair.pane->tab_id);
  Tab& tab_b = tabs_.at(pair.target->tab_id);
  auto refocus = [&](Tab& tab) {
    if (tab.active_pane_id == a) tab.active_pane_id = b;
    else if (tab.active_pane_id == b) tab.active_pane_id = a;
  };
  if (&tab_a == &tab_b) {
    tab_a.layout = swap_leaves(*tab_a.layout, a, b);
    refocus(tab_a);
    txn.emit<ev::TabUpdated>({tab_a});
    changed();
    return std::vector<Tab>{tab_a};
  }
  tab_a.layout = replace_leaf(*tab_a.layout, a, b);
  tab_b.layout = replace_leaf(*tab_b.layout, b, a);
  refocus(tab_a);
  refocus(tab_b);
  pane_at(a).tab_id = tab_b.id;
  pane_at(b).tab_id = tab_a.id;
  txn.emit<ev::TabUpdated>({tab_a});
  txn.emit<ev::TabUpdated>({tab_b});
  txn.emit<ev::PaneUpdated>({pane_at(a), std::nullopt});
  txn.emit<ev::PaneUpdated>({pane_at(b), std::nullopt});
  changed();
  return std::vector<Tab>{tab_a, tab_b};
}

// Removes the pane's leaf as pane.close would (no event).
void Store::detach_leaf(Txn&, Tab& tab, const std::string& pane_id) {
  std::optional<Layout> next = remove_leaf(*tab.layout, pane_id);
  tab.layout = next ? protocol::Nullable<Layout>(std::move(*next)) : std::nullopt;
  if (tab.active_pane_id == pane_id) {
    tab.active_pane_id = std::nullopt;
    if (tab.layout.has_value()) tab.active_pane_id = first_leaf(*tab.layout);
  }
}

Result<std::vector<Tab>> Store::move_pane(Txn& txn, std::string_view pane_key,
                                          std::string_view target_key, protocol::SplitDir dir) {
  SIGNALTTY_TRY(PanePair pair, checked_pair(*this, pane_key, target_key,
                                            [this](const std::string& id) -> const Tab& {
                                              return tabs_.at(id);
                                            }));
  const std::string a = pair.pane->id;
  const std::string t = pair.target->id;
  Tab& from = tabs_.at(pair.pane->tab_id);
  Tab& to = tabs_.at(pair.target->tab_id);
  detach_leaf(txn, from, a);
  to.layout = split_leaf(*to.layout, t, a, dir);
  if (&from == &to) {
    txn.emit<ev::TabUpdated>({to});
    changed();
    return std::vector<Tab>{to};
  }
  pane_at(a).tab_id = to.id;
  if (!to.active_pane_id) to.active_pane_id = a;
  txn.emit<ev::TabUpdated>({from});
  txn.emit<ev::TabUpdated>({to});
  txn.emit<ev::PaneUpdated>({pane_at(a), std::nullopt});
  changed();
  return std::vector<Tab>{from, to};
}

// ---- queries ------------------------------------------------------------------------

void Store::note_scrollback_len(std::string_view pane_id, std::uint64_t lines) {
  if (auto it = panes_.find(pane_id); it != panes_.end()) it->second.scrollback_len = lines;
}

std::vector<Pane> Store::list_panes() const {
  std::vector<Pane> out;
  out.reserve(panes_.size());
  for (const auto& [id, pane] : panes_) out.push_back(pane);
  return out;
}

}  // namespace signaltty::broker
