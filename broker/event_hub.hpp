// broker/event_hub.hpp: where published state events go: the in-memory
// ring of the last 1024, and every subscribed session's filter; serves
// `subscribe` (live and replay from ring + journal with the proof rules of
// persistence.md, Replay).
// Runs in: broker (io thread; journal reads on a worker thread).
// Never: numbers or journals events (the pipeline did, before publish()).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>

#include <boost/asio/io_context.hpp>

#include "broker/event.hpp"
#include "broker/session.hpp"

namespace signaltty::broker {

class AuditJournal;

class EventHub {
 public:
  // start_head: the sequence head at startup (nothing below it is in the ring).
  EventHub(boost::asio::io_context& io, AuditJournal& journal, std::uint64_t start_head);
  ~EventHub();
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // Ring + fan-out. The pipeline calls it, in seq order, once durable.
  void publish(const StateEvent& ev);
  // The connection closed: forget its subscription.
  void drop_session(std::uint64_t session_id);
  // Seq of the last published state event (the subscribe handoff fence).
  std::uint64_t published_head() const;
  // Seq of the last event evicted from the ring (= head at startup).
  std::uint64_t ring_retained_after() const;

  // Everything subscribe needs lives behind this; see event_hub.cpp.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace signaltty::broker
