// broker/event_hub.hpp: where published state events go: the in-memory
// ring of the last 1024, and every subscribed session's filter.
// Runs in: broker (io thread). Never: numbers or journals events (the
// pipeline did, before publish()).
#pragma once

#include <cstdint>
#include <memory>

#include "broker/event.hpp"
#include "broker/session.hpp"

namespace signaltty::broker {

class EventHub;  // defined by broker/event_hub.cpp's owner; interface below is fixed:
//   void publish(const StateEvent& ev);          // ring + fan-out; pipeline calls it after durable
//   void drop_session(std::uint64_t session_id); // connection closed
//   std::uint64_t published_head() const;         // seq of the last published state event

}  // namespace signaltty::broker
