// broker/state_image.hpp: what a transaction's journal record carries so
// that a restart can restore it (decision 25; docs/rules.md (Persistence),
// "Journal replay"): the ids its events name and its touches, and the
// image of each of those entities as the store holds it once the
// transaction is done (or its removal).
// Runs in: broker (io thread, when a transaction is committed).
// Never: knows an event by name: ids are found by payload keys alone, so a
// new event or a new store field needs no code here.
//
// Usage (broker/server.cpp wires it into the event pipeline):
//   std::string state = journal_state_of(store, txn.events(), txn.touched());
//   // "" when nothing is named; else the record's `state` object
#pragma once

#include <string>
#include <vector>

#include "broker/event.hpp"
#include "broker/snapshot_doc.hpp"

namespace signaltty::broker {

class Store;

// Every entity the events name, then the touched ones, each once. A
// payload names an entity by a top-level `workspace_id`, `tab_id` or
// `pane_id` string, or by a top-level `workspace`, `tab`, `pane` or
// `notification` object (its `id`); the `*_id` keys inside such an object
// are names too (a pane's tab, a notification's pane).
std::vector<EntityRef> named_entities(const std::vector<PendingEvent>& events,
                                      const std::vector<EntityRef>& touched);

// Each entity as the store holds it now; a workspace, tab or pane that is
// gone is listed as removed (a notification that is gone fell off the cap
// and is left out).
StateImage state_image_of(const Store& store, const std::vector<EntityRef>& refs);

// The image as a journal record's `state` (empty lists left out); "" when
// it holds nothing.
std::string encode_state_image(const StateImage& image);

// The three above, for the event pipeline.
std::string journal_state_of(const Store& store, const std::vector<PendingEvent>& events,
                             const std::vector<EntityRef>& touched);

}  // namespace signaltty::broker
