// broker/state_image.cpp: the ids a transaction names and the post-transaction
// image of each (docs/rules.md (Persistence), "Journal replay").
// Runs in: broker (io thread). Never: mutates the store, or reads an
// event's name: only its payload's keys.
#include "broker/state_image.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "broker/store.hpp"

namespace signaltty::broker {
namespace {

struct KeyKind {
  std::string_view key;
  EntityKind kind;
};

// A payload key holding an entity's id.
constexpr std::array<KeyKind, 3> kIdKeys{{{"workspace_id", EntityKind::Workspace},
                                          {"tab_id", EntityKind::Tab},
                                          {"pane_id", EntityKind::Pane}}};
// A payload key holding an entity object with an `id`.
constexpr std::array<KeyKind, 4> kObjectKeys{{{"workspace", EntityKind::Workspace},
                                              {"tab", EntityKind::Tab},
                                              {"pane", EntityKind::Pane},
                                              {"notification", EntityKind::Notification}}};

void add_once(std::vector<EntityRef>& refs, EntityKind kind, const Json& id) {
  if (!id.is_string() || id.get_ref<const std::string&>().empty()) return;
  EntityRef ref{kind, id.get<std::string>()};
  if (std::find(refs.begin(), refs.end(), ref) == refs.end()) refs.push_back(std::move(ref));
}

void add_id_keys(const Json& object, std::vector<EntityRef>& refs) {
  for (const KeyKind& k : kIdKeys) {
    if (auto it = object.find(k.key); it != object.end()) add_once(refs, k.kind, *it);
  }
}

void add_payload(const Json& payload, std::vector<EntityRef>& refs) {
  if (!payload.is_object()) return;
  for (const KeyKind& k : kObjectKeys) {
    auto it = payload.find(k.key);
    if (it == payload.end() || !it->is_object()) continue;
    if (auto id = it->find("id"); id != it->end()) add_once(refs, k.kind, *id);
  }
  add_id_keys(payload, refs);
  for (const KeyKind& k : kObjectKeys) {
    if (auto it = payload.find(k.key); it != payload.end() && it->is_object()) add_id_keys(*it, refs);
  }
}

// find_* also match handles and names; only the exact id counts here.
template <class T>
const T* exactly(const Result<const T*>& found, const std::string& id) {
  return found.ok() && (*found)->id == id ? *found : nullptr;
}

void add_image(const Store& store, const EntityRef& ref, StateImage& image) {
  switch (ref.kind) {
    case EntityKind::Workspace:
      if (auto* ws = exactly(store.find_workspace(ref.id), ref.id)) image.workspaces.push_back(*ws);
      else image.removed_workspaces.push_back(ref.id);
      return;
    case EntityKind::Tab:
      if (auto* tab = exactly(store.find_tab(ref.id), ref.id)) image.tabs.push_back(*tab);
      else image.removed_tabs.push_back(ref.id);
      return;
    case EntityKind::Pane:
      if (auto* pane = exactly(store.find_pane(ref.id), ref.id)) {
        image.panes.push_back(*pane);
        PaneTransitions t = store.transitions_of(ref.id);
        if (t.counter > 0) image.transitions.push_back(std::move(t));  // none yet: nothing to say
      } else {
        image.removed_panes.push_back(ref.id);
      }
      return;
    case EntityKind::Notification:
      for (const Json& n : store.notifications()) {
        if (n.value("id", std::string()) == ref.id) image.notifications.push_back(n);
      }
      return;
  }
}

}  // namespace

std::vector<EntityRef> named_entities(const std::vector<PendingEvent>& events,
                                      const std::vector<EntityRef>& touched) {
  std::vector<EntityRef> refs;
  for (const PendingEvent& ev : events) add_payload(ev.payload, refs);
  for (const EntityRef& ref : touched) add_once(refs, ref.kind, Json(ref.id));
  return refs;
}

StateImage state_image_of(const Store& store, const std::vector<EntityRef>& refs) {
  StateImage image;
  for (const EntityRef& ref : refs) add_image(store, ref, image);
  return image;
}

std::string encode_state_image(const StateImage& image) {
  Json j = protocol::encode(image);
  for (auto it = j.begin(); it != j.end();) {
    if (it->is_array() && it->empty()) it = j.erase(it);
    else ++it;
  }
  if (j.empty()) return {};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string journal_state_of(const Store& store, const std::vector<PendingEvent>& events,
                             const std::vector<EntityRef>& touched) {
  return encode_state_image(state_image_of(store, named_entities(events, touched)));
}

}  // namespace signaltty::broker
