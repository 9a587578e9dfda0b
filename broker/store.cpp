// broker/store.cpp: the model and its transitions (docs/rules.md:
// Model, Methods, Restore). Every transition finds
// and validates first, then mutates and emits, so a failure changes nothing.
// Runs in: broker (io thread). Never: performs I/O beyond resolving a
// workspace cwd, and never publishes: the caller commits the Txn.
#include "broker/store.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>

#include "broker/handle.hpp"
#include "broker/layout.hpp"
#include "common/ids.hpp"
#include "common/log.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

namespace ev = protocol::ev;
using protocol::Pane;
using protocol::Tab;
using protocol::Workspace;

namespace {

// docs/rules.md, Pane: `live` is {"state":"live"} while the child runs.
constexpr std::string_view kPaneLiveState = "live";

Error not_found(ErrorCode code, std::string_view what, std::string_view key_field,
                std::string_view key) {
  Error e{code, "no " + std::string(what) + " '" + std::string(key) + "'"};
  e.details = {{std::string(key_field), std::string(key)}};
  return e;
}

Error cwd_error(std::string message) {
  Error e = bad_params("cwd: " + std::move(message));
  e.details = {{"field", "cwd"}};
  return e;
}

std::string home_directory() {
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return home;
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size > 0 ? static_cast<std::size_t>(size) : 16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr && found->pw_dir[0] == '/')
    return found->pw_dir;
  return "/";
}

// An absolute, existing directory, returned resolved (realpath).
Result<std::string> resolve_cwd(std::optional<std::string> requested) {
  const std::string path = requested ? std::move(*requested) : home_directory();
  if (path.empty() || path.front() != '/') return cwd_error("must be an absolute path");
  if (path.find('\0') != std::string::npos) return cwd_error("must not contain NUL");
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (!real) return cwd_error("'" + path + "' does not exist or cannot be resolved");
  struct stat st {};
  if (::stat(real.get(), &st) != 0 || !S_ISDIR(st.st_mode))
    return cwd_error("'" + path + "' is not a directory");
  return std::string(real.get());
}

template <class Map>
bool insert_unique(Map& map, typename Map::mapped_type value, std::string_view kind) {
  const std::string id = value.id;
  if (map.contains(id)) {
    log::warn("snapshot: duplicate " + std::string(kind) + " " + id + " dropped");
    return false;
  }
  map.emplace(id, std::move(value));
  return true;
}

}  // namespace

Clock system_clock_rfc3339() {
  return [] { return now_rfc3339(); };
}

Store::Store(Clock clock) : clock_(std::move(clock)) {}

// ---- queries ---------------------------------------------------------------

Result<const Workspace*> Store::find_workspace(std::string_view id_or_handle) const {
  if (auto it = workspaces_.find(id_or_handle); it != workspaces_.end()) return &it->second;
  for (const auto& [id, ws] : workspaces_) {
    if (ws.handle == id_or_handle) return &ws;
  }
  return not_found(ErrorCode::NoSuchWorkspace, "workspace", "workspace_id", id_or_handle);
}

Result<const Tab*> Store::find_tab(std::string_view tab_id) const {
  if (auto it = tabs_.find(tab_id); it != tabs_.end()) return &it->second;
  return not_found(ErrorCode::NoSuchTab, "tab", "tab_id", tab_id);
}

Result<const Pane*> Store::find_pane(std::string_view id_or_name) const {
  if (auto it = panes_.find(id_or_name); it != panes_.end()) return &it->second;
  for (const auto& [id, pane] : panes_) {
    if (pane.name && *pane.name == id_or_name) return &pane;
  }
  return not_found(ErrorCode::NoSuchPane, "pane", "pane_id", id_or_name);
}

std::vector<Workspace> Store::list_workspaces() const {
  std::vector<Workspace> out;
  out.reserve(workspace_order_.size());
  for (const std::string& id : workspace_order_) out.push_back(workspaces_.at(id));
  return out;
}

std::vector<Tab> Store::tabs_of(const Workspace& workspace) const {
  std::vector<Tab> out;
  for (const std::string& id : workspace.tabs) {
    if (auto it = tabs_.find(id); it != tabs_.end()) out.push_back(it->second);
  }
  return out;
}

std::vector<Pane> Store::panes_of_tab(const Tab& tab) const {
  std::vector<std::string> ids;
  if (tab.layout.has_value()) ids = leaves(*tab.layout);
  for (const std::string& id : pane_ids_of_tab(tab.id)) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  std::vector<Pane> out;
  for (const std::string& id : ids) {
    if (auto it = panes_.find(id); it != panes_.end()) out.push_back(it->second);
  }
  return out;
}

std::vector<Pane> Store::panes_of_workspace(const Workspace& workspace) const {
  std::vector<Pane> out;
  for (const Tab& tab : tabs_of(workspace)) {
    std::vector<Pane> panes = panes_of_tab(tab);
    out.insert(out.end(), panes.begin(), panes.end());
  }
  return out;
}

std::size_t Store::live_pane_count() const {
  return static_cast<std::size_t>(std::count_if(panes_.begin(), panes_.end(), [](const auto& kv) {
    return kv.second.live.state == kPaneLiveState;
  }));
}

std::vector<std::string> Store::pane_ids_of_tab(std::string_view tab_id) const {
  std::vector<std::string> out;
  for (const auto& [id, pane] : panes_) {
    if (pane.tab_id == tab_id) out.push_back(id);
  }
  return out;
}

bool Store::handle_taken(std::string_view handle) const {
  return std::any_of(workspaces_.begin(), workspaces_.end(),
                     [&](const auto& kv) { return kv.second.handle == handle; });
}

// A layout leaf may name a pane by name; a real id always wins.
std::string Store::resolve_leaf(const std::string& id_or_name) const {
  auto pane = find_pane(id_or_name);
  return pane.ok() ? (*pane)->id : id_or_name;
}

// ---- workspace transitions ---------------------------------------------------

Result<Workspace> Store::create_workspace(Txn& txn, std::optional<std::string> name,
                                          std::optional<std::string> cwd, bool auto_resume,
                                          bool shared_control) {
  SIGNALTTY_TRY(std::string clean_name,
                sanitize_display_name(name.value_or(std::string(kDefaultWorkspaceName)), "name"));
  SIGNALTTY_TRY(std::string dir, resolve_cwd(std::move(cwd)));
  Workspace ws;
  ws.id = new_id("ws");
  ws.name = std::move(clean_name);
  ws.handle = make_handle(ws.name, [this](std::string_view h) { return handle_taken(h); });
  ws.cwd = std::move(dir);
  ws.auto_resume = auto_resume;
  ws.shared_control = shared_control;
  ws.created_at = clock_();
  ws.updated_at = ws.created_at;
  workspace_order_.push_back(ws.id);
  workspaces_.emplace(ws.id, ws);
  txn.emit<ev::WorkspaceCreated>({ws});
  changed();
  return ws;
}

Result<Workspace> Store::set_workspace_git(Txn& txn, std::string_view id_or_handle,
                                           protocol::WorkspaceGit git) {
  SIGNALTTY_TRY(const Workspace* found, find_workspace(id_or_handle));
  if (found->git == git) return *found;
  Workspace& ws = workspaces_.at(found->id);
  if (ws.git.branch != git.branch || ws.git.detached != git.detached) {
    protocol::Json payload{{"workspace_id", ws.id}, {"detached", git.detached}};
    if (git.branch) payload["branch"] = *git.branch;
    if (ws.git.branch) payload["prev_branch"] = *ws.git.branch;
    txn.emit<ev::GitBranchChanged>(std::move(payload));
  }
  ws.git = std::move(git);
  ws.updated_at = clock_();
  txn.emit<ev::WorkspaceUpdated>({ws});
  changed();
  return ws;
}

Result<Workspace> Store::rename_workspace(Txn& txn, std::string_view id_or_handle,
                                          std::string_view name) {
  SIGNALTTY_TRY(const Workspace* found, find_workspace(id_or_handle));
  SIGNALTTY_TRY(std::string clean_name, sanitize_display_name(name, "name"));
  if (found->name == clean_name) return *found;
  Workspace& ws = workspaces_.at(found->id);
  ws.name = std::move(clean_name);
  ws.updated_at = clock_();
  txn.emit<ev::WorkspaceUpdated>({ws});
  changed();
  return ws;
}

Status Store::close_workspace(Txn& txn, std::string_view id_or_handle) {
  SIGNALTTY_TRY(const Workspace* found, find_workspace(id_or_handle));
  SIGNALTTY_RETURN_IF_ERROR(require_no_panes(found->tabs));
  const std::string id = found->id;
  for (const std::string& tab_id : std::vector<std::string>(found->tabs)) drop_tab(txn, tab_id);
  workspaces_.erase(id);
  std::erase(workspace_order_, id);
  txn.emit<ev::WorkspaceClosed>({id});
  changed();
  return {};
}

// ---- tab transitions -----------------------------------------------------------

Result<Tab> Store::create_tab(Txn& txn, std::string_view workspace_key,
                              std::optional<std::string> title) {
  SIGNALTTY_TRY(const Workspace* found, find_workspace(workspace_key));
  SIGNALTTY_TRY(std::string clean_title,
                sanitize_display_name(title.value_or(std::string(kDefaultTabTitle)), "title"));
  Tab tab;
  tab.id = new_id("tab");
  tab.workspace_id = found->id;
  tab.title = std::move(clean_title);
  tab.created_at = clock_();
  Workspace& ws = workspaces_.at(found->id);
  ws.tabs.push_back(tab.id);
  ws.active_tab_id = tab.id;
  ws.updated_at = tab.created_at;
  tabs_.emplace(tab.id, tab);
  txn.emit<ev::TabCreated>({tab});
  txn.emit<ev::WorkspaceUpdated>({ws});
  changed();
  return tab;
}

Status Store::close_tab(Txn& txn, std::string_view tab_id) {
  SIGNALTTY_TRY(const Tab* found, find_tab(tab_id));
  SIGNALTTY_RETURN_IF_ERROR(require_no_panes({found->id}));
  const std::string id = found->id;
  Workspace& ws = workspaces_.at(found->workspace_id);
  drop_tab(txn, id);
  const auto pos = std::find(ws.tabs.begin(), ws.tabs.end(), id);
  const auto index = static_cast<std::size_t>(pos - ws.tabs.begin());
  if (pos != ws.tabs.end()) ws.tabs.erase(pos);
  if (ws.active_tab_id == id) {
    ws.active_tab_id = std::nullopt;
    if (!ws.tabs.empty()) ws.active_tab_id = ws.tabs[std::min(index, ws.tabs.size() - 1)];
  }
  ws.updated_at = clock_();
  txn.emit<ev::WorkspaceUpdated>({ws});
  changed();
  return {};
}

Result<Tab> Store::set_layout(Txn& txn, std::string_view tab_id, const protocol::Layout& layout) {
  SIGNALTTY_TRY(const Tab* found, find_tab(tab_id));
  SIGNALTTY_TRY(Layout resolved, map_leaves(layout, [this](const std::string& leaf) {
                  return Result<std::string>(resolve_leaf(leaf));
                }));
  SIGNALTTY_RETURN_IF_ERROR(validate_layout_for_tab(resolved, pane_ids_of_tab(found->id)));
  Layout next = clamp_ratios(resolved);
  if (found->layout.has_value() && *found->layout == next) return *found;
  Tab& tab = tabs_.at(found->id);
  tab.layout = std::move(next);
  txn.emit<ev::TabUpdated>({tab});
  changed();
  return tab;
}

Result<Tab> Store::set_ratio(Txn& txn, std::string_view tab_id, const std::vector<int>& path,
                             double ratio) {
  SIGNALTTY_TRY(const Tab* found, find_tab(tab_id));
  if (!found->layout.has_value()) {
    Error e = bad_params("tab '" + found->id + "' has no layout");
    e.details = {{"tab_id", found->id}};
    return e;
  }
  SIGNALTTY_TRY(Layout next, set_ratio_at(*found->layout, path, ratio));
  if (next == *found->layout) return *found;
  Tab& tab = tabs_.at(found->id);
  tab.layout = std::move(next);
  txn.emit<ev::TabUpdated>({tab});
  changed();
  return tab;
}

// ---- panes -------------------------------------------------------------------

Status Store::remove_pane(Txn& txn, std::string_view pane_id) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  const std::string id = found->id;
  Tab& tab = tabs_.at(found->tab_id);
  panes_.erase(id);
  activity_touched_.erase(id);
  transitions_.erase(id);
  txn.emit<ev::PaneClosed>({id});
  if (tab.layout.has_value()) {
    std::optional<Layout> next = remove_leaf(*tab.layout, id);
    tab.layout = next ? protocol::Nullable<Layout>(std::move(*next)) : std::nullopt;
  }
  if (tab.active_pane_id == id) {
    tab.active_pane_id = std::nullopt;
    if (tab.layout.has_value()) tab.active_pane_id = first_leaf(*tab.layout);
  }
  txn.emit<ev::TabUpdated>({tab});
  changed();
  return {};
}

// A pane record goes only through remove_pane, once its child is reaped
// (docs/rules.md, decision 17); a tab or workspace that still holds one stays.
Status Store::require_no_panes(const std::vector<std::string>& tab_ids) const {
  std::vector<std::string> alive;
  for (const std::string& tab_id : tab_ids) {
    for (std::string& id : pane_ids_of_tab(tab_id)) alive.push_back(std::move(id));
  }
  if (alive.empty()) return {};
  Error e{ErrorCode::PanesAlive, std::to_string(alive.size()) + " pane(s) still open"};
  e.details = {{"pane_ids", alive}};
  return e;
}

// Removes the (empty) tab record and emits tab.closed; the caller fixes or
// removes the workspace.
void Store::drop_tab(Txn& txn, const std::string& tab_id) {
  auto it = tabs_.find(tab_id);
  if (it == tabs_.end()) return;
  const std::string workspace_id = it->second.workspace_id;
  tabs_.erase(it);
  txn.emit<ev::TabClosed>({tab_id, workspace_id});
}

// ---- persistence ---------------------------------------------------------------

SnapshotDoc Store::to_snapshot() const {
  SnapshotDoc doc;
  doc.saved_at = clock_();
  doc.workspaces = list_workspaces();
  for (const Workspace& ws : doc.workspaces) {
    std::vector<Tab> tabs = tabs_of(ws);
    doc.tabs.insert(doc.tabs.end(), tabs.begin(), tabs.end());
  }
  for (const auto& [id, pane] : panes_) doc.panes.push_back(pane);
  doc.notifications.assign(notifications_.begin(), notifications_.end());
  for (const auto& [id, t] : transitions_) doc.transitions.push_back(t);
  return doc;
}

Result<Store> Store::from_snapshot(SnapshotDoc doc, Clock clock) {
  if (doc.version != kSnapshotVersion) {
    Error e = bad_params("snapshot version " + std::to_string(doc.version) +
                         " is not understood (expected " + std::to_string(kSnapshotVersion) + ")");
    e.details = {{"version", doc.version}};
    return e;
  }
  Store store(std::move(clock));
  store.restore_workspaces(std::move(doc.workspaces));
  store.restore_tabs(std::move(doc.tabs));
  store.repair_tab_lists();
  store.restore_panes(std::move(doc.panes));
  store.repair_layouts();
  store.backfill_handles();
  store.restore_notifications(std::move(doc.notifications));
  store.restore_transitions(std::move(doc.transitions));
  return store;
}

void Store::restore_workspaces(std::vector<Workspace> workspaces) {
  for (Workspace& ws : workspaces) {
    const std::string id = ws.id;
    if (insert_unique(workspaces_, std::move(ws), "workspace")) workspace_order_.push_back(id);
  }
}

void Store::restore_tabs(std::vector<Tab> tabs) {
  for (Tab& tab : tabs) {
    if (!workspaces_.contains(tab.workspace_id)) {
      log::warn("snapshot: tab " + tab.id + " of missing workspace " + tab.workspace_id +
                " dropped");
      continue;
    }
    insert_unique(tabs_, std::move(tab), "tab");
  }
}

// Each workspace lists exactly its own tabs, once; its active tab is one of them.
void Store::repair_tab_lists() {
  for (auto& [ws_id, ws] : workspaces_) {
    std::vector<std::string> fixed;
    for (const std::string& id : ws.tabs) {
      auto it = tabs_.find(id);
      const bool own = it != tabs_.end() && it->second.workspace_id == ws_id;
      if (own && std::find(fixed.begin(), fixed.end(), id) == fixed.end()) fixed.push_back(id);
    }
    for (const auto& [tab_id, tab] : tabs_) {
      if (tab.workspace_id == ws_id && std::find(fixed.begin(), fixed.end(), tab_id) == fixed.end())
        fixed.push_back(tab_id);
    }
    if (fixed != ws.tabs) log::warn("snapshot: tab list of workspace " + ws_id + " repaired");
    ws.tabs = std::move(fixed);
    if (ws.active_tab_id &&
        std::find(ws.tabs.begin(), ws.tabs.end(), *ws.active_tab_id) == ws.tabs.end()) {
      log::warn("snapshot: dangling active tab of workspace " + ws_id + " repaired");
      ws.active_tab_id = std::nullopt;
      if (!ws.tabs.empty()) ws.active_tab_id = ws.tabs.front();
    }
  }
}

void Store::restore_panes(std::vector<Pane> panes) {
  for (Pane& pane : panes) {
    auto tab = tabs_.find(pane.tab_id);
    if (tab == tabs_.end() || tab->second.workspace_id != pane.workspace_id) {
      log::warn("snapshot: pane " + pane.id + " of missing tab " + pane.tab_id + " dropped");
      continue;
    }
    insert_unique(panes_, std::move(pane), "pane");
  }
}

// Each tab's layout holds exactly its panes, once (unplaced panes are split
// in to the right of the last leaf); its active pane is one of them.
void Store::repair_layouts() {
  for (auto& [tab_id, tab] : tabs_) {
    const std::vector<std::string> owned = pane_ids_of_tab(tab_id);
    std::set<std::string, std::less<>> placed;
    std::optional<Layout> layout;
    if (tab.layout.has_value()) {
      layout = retain_leaves(*tab.layout, [&](const std::string& id) {
        return std::find(owned.begin(), owned.end(), id) != owned.end() && placed.insert(id).second;
      });
    }
    for (const std::string& id : owned) {
      if (placed.contains(id)) continue;
      layout = layout ? split_leaf(*layout, leaves(*layout).back(), id, SplitDir::Right)
                      : Layout::leaf(id);
    }
    protocol::Nullable<Layout> repaired = layout ? protocol::Nullable<Layout>(*layout) : std::nullopt;
    if (!(repaired == tab.layout)) log::warn("snapshot: layout of tab " + tab_id + " repaired");
    tab.layout = std::move(repaired);
    if (tab.active_pane_id &&
        std::find(owned.begin(), owned.end(), *tab.active_pane_id) == owned.end()) {
      log::warn("snapshot: dangling active pane of tab " + tab_id + " repaired");
      tab.active_pane_id = std::nullopt;
      if (tab.layout.has_value()) tab.active_pane_id = first_leaf(*tab.layout);
    }
  }
}

// Saved handles are kept (a duplicate loses its handle); the rest are
// derived in workspace-id order (docs/rules.md, Ids, handles, names).
void Store::backfill_handles() {
  std::set<std::string, std::less<>> taken;
  for (auto& [id, ws] : workspaces_) {
    if (ws.handle.empty() || taken.insert(ws.handle).second) continue;
    log::warn("snapshot: duplicate handle '" + ws.handle + "' of workspace " + id + " re-derived");
    ws.handle.clear();
  }
  for (auto& [id, ws] : workspaces_) {
    if (!ws.handle.empty()) continue;
    ws.handle = make_handle(ws.name, [&](std::string_view h) { return taken.contains(h); });
    taken.insert(ws.handle);
  }
}

}  // namespace signaltty::broker
