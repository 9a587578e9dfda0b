// broker/event.hpp: a state event on its way through the broker: pending in
// a transaction (name + payload), then numbered, journaled and published.
// Runs in: broker. Never: carries pty.data (that never enters the journal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

using protocol::Json;

struct PendingEvent {
  std::string name;
  Json payload;
};

// One journal record {seq, event, payload, at}; also what subscribers get.
struct StateEvent {
  std::uint64_t seq = 0;
  std::string name;
  Json payload;
  std::string at;
};

// The events one store transition yields, in order. Typed: only declared
// events with their declared payload can be added.
class Txn {
 public:
  template <class E>
  void emit(const typename E::PayloadType& payload) {
    events_.push_back({std::string(E::name), protocol::encode(payload)});
  }
  bool empty() const { return events_.empty(); }
  std::vector<PendingEvent>& events() { return events_; }

 private:
  std::vector<PendingEvent> events_;
};

}  // namespace signaltty::broker
