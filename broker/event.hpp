// broker/event.hpp: a state event on its way through the broker: pending in
// a transaction (name + payload), then numbered, journaled and published.
// Runs in: broker. Never: carries pty.data (that never enters the journal).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

using protocol::Json;

struct PendingEvent {
  std::string name;
  Json payload;
};

// The name of a journal record that carries a state image and no event
// (docs/rules.md (Persistence), "Journal replay"): a transaction that
// changed the model without an event naming the change (a seen time). It
// is journaled like an event but never published nor replayed to a
// subscriber. Not a protocol name: no event of the protocol lacks a dot.
inline constexpr std::string_view kStateOnlyRecord = "state";

// One journal record {seq, event, payload, at}; also what subscribers get.
// `state` is journal-only: the encoded image of the entities its
// transaction touched (broker/state_image.hpp), on the transaction's last
// record; empty when there is none. It is dropped before publication.
struct StateEvent {
  std::uint64_t seq = 0;
  std::string name;
  Json payload;
  std::string at;
  std::string state;
};

// What a transaction's state image can name (broker/state_image.hpp).
enum class EntityKind { Workspace, Tab, Pane, Notification };
struct EntityRef {
  EntityKind kind = EntityKind::Pane;
  std::string id;
  bool operator==(const EntityRef&) const = default;
};

// The events one store transition yields, in order. Typed: only declared
// events with their declared payload can be added. A change no event
// names (a seen time) is recorded with touch(), so that its entity's image
// is journaled all the same (decision 25).
class Txn {
 public:
  template <class E>
  void emit(const typename E::PayloadType& payload) {
    events_.push_back({std::string(E::name), protocol::encode(payload)});
  }
  void touch(EntityKind kind, std::string id) { touched_.push_back({kind, std::move(id)}); }
  // No event and no touch: nothing to journal.
  bool empty() const { return events_.empty() && touched_.empty(); }
  std::vector<PendingEvent>& events() { return events_; }
  const std::vector<PendingEvent>& events() const { return events_; }
  const std::vector<EntityRef>& touched() const { return touched_; }

 private:
  std::vector<PendingEvent> events_;
  std::vector<EntityRef> touched_;
};

}  // namespace signaltty::broker
