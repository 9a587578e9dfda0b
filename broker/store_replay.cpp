// broker/store_replay.cpp: the store's side of the startup journal replay
// (decision 25; docs/rules.md (Persistence), "Journal replay"): checking
// that one record's state image fits the model, then upserting and
// removing its entities.
// Runs in: broker (startup, before any client or ptyhost is served).
// Never: emits events (the journal already holds them), and never applies
// part of an image.
#include <algorithm>

#include "broker/store.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {

using protocol::Json;
using protocol::Pane;
using protocol::Tab;
using protocol::Workspace;

namespace {

bool listed(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

template <class T>
const T* with_id(const std::vector<T>& items, const std::string& id) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.id == id; });
  return it == items.end() ? nullptr : &*it;
}

template <class T>
bool exactly(const Result<const T*>& found, const std::string& id) {
  return found.ok() && (*found)->id == id;
}

Error misfit(std::string what) { return bad_params("state image: " + std::move(what)); }

// The model as it would be once `image` is applied, as far as the checks
// below need it.
struct After {
  const Store& store;
  const StateImage& image;

  bool has_workspace(const std::string& id) const {
    if (listed(image.removed_workspaces, id)) return false;
    return with_id(image.workspaces, id) || exactly(store.find_workspace(id), id);
  }
  // The workspace of tab `id`, "" when the tab would not exist.
  std::string workspace_of_tab(const std::string& id) const {
    if (listed(image.removed_tabs, id)) return {};
    if (const Tab* tab = with_id(image.tabs, id)) return tab->workspace_id;
    auto found = store.find_tab(id);
    return found.ok() ? (*found)->workspace_id : std::string();
  }
  // Whether a tab or pane of the store stays where it is.
  bool tab_stays(const Tab& tab) const {
    return !listed(image.removed_tabs, tab.id) && !with_id(image.tabs, tab.id);
  }
  bool pane_stays(const Pane& pane) const {
    return !listed(image.removed_panes, pane.id) && !with_id(image.panes, pane.id);
  }
};

Status check_entities(const After& after) {
  for (const Workspace& ws : after.image.workspaces)
    if (ws.id.empty()) return misfit("a workspace without an id");
  for (const Tab& tab : after.image.tabs) {
    if (tab.id.empty()) return misfit("a tab without an id");
    if (!after.has_workspace(tab.workspace_id))
      return misfit("tab " + tab.id + " of missing workspace " + tab.workspace_id);
  }
  for (const Pane& pane : after.image.panes) {
    if (pane.id.empty()) return misfit("a pane without an id");
    const std::string ws = after.workspace_of_tab(pane.tab_id);
    if (ws.empty()) return misfit("pane " + pane.id + " of missing tab " + pane.tab_id);
    if (ws != pane.workspace_id)
      return misfit("pane " + pane.id + " of tab " + pane.tab_id + " in another workspace");
  }
  for (const Json& n : after.image.notifications)
    if (!n.is_object() || !n.contains("id") || !n["id"].is_string())
      return misfit("a notification without an id");
  return {};
}

Status check_removals(const After& after) {
  for (const std::string& id : after.image.removed_workspaces) {
    auto ws = after.store.find_workspace(id);
    if (!exactly(ws, id)) continue;
    for (const Tab& tab : after.store.tabs_of(**ws))
      if (after.tab_stays(tab)) return misfit("removed workspace " + id + " keeps tab " + tab.id);
  }
  for (const std::string& id : after.image.removed_tabs) {
    auto tab = after.store.find_tab(id);
    if (!tab.ok()) continue;
    for (const Pane& pane : after.store.panes_of_tab(**tab))
      if (after.pane_stays(pane)) return misfit("removed tab " + id + " keeps pane " + pane.id);
  }
  return {};
}

}  // namespace

Status Store::apply_state_image(StateImage image) {
  const After after{*this, image};
  SIGNALTTY_RETURN_IF_ERROR(check_entities(after));
  SIGNALTTY_RETURN_IF_ERROR(check_removals(after));
  for (const std::string& id : image.removed_panes) {
    panes_.erase(id);
    transitions_.erase(id);
    activity_touched_.erase(id);
  }
  for (const std::string& id : image.removed_tabs) tabs_.erase(id);
  for (const std::string& id : image.removed_workspaces) {
    workspaces_.erase(id);
    std::erase(workspace_order_, id);
  }
  for (Workspace& ws : image.workspaces) {
    if (!workspaces_.contains(ws.id)) workspace_order_.push_back(ws.id);
    workspaces_.insert_or_assign(ws.id, std::move(ws));
  }
  for (Tab& tab : image.tabs) tabs_.insert_or_assign(tab.id, std::move(tab));
  for (Pane& pane : image.panes) panes_.insert_or_assign(pane.id, std::move(pane));
  for (PaneTransitions& t : image.transitions)
    if (panes_.contains(t.pane_id)) transitions_.insert_or_assign(t.pane_id, std::move(t));
  for (Json& n : image.notifications) {
    const std::string id = n["id"].get<std::string>();
    auto same = std::find_if(notifications_.begin(), notifications_.end(),
                             [&](const Json& kept) { return kept.value("id", "") == id; });
    if (same != notifications_.end()) *same = std::move(n);
    else notifications_.push_back(std::move(n));
  }
  while (notifications_.size() > limits::kNotificationsKept) notifications_.pop_front();
  changed();
  return {};
}

void Store::repair_after_replay() {
  repair_tab_lists();
  repair_layouts();
  backfill_handles();
}

}  // namespace signaltty::broker
