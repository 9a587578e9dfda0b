// broker/event_pipeline.hpp: numbers state events, appends them to the audit
// journal, makes them durable with group commit (one fsync for every
// transaction that arrived while the previous fsync ran), and only then
// publishes them to the hub and runs the transactions' completions.
// Runs in: broker; called on the io thread, fsyncs on a worker thread.
// Never: publishes an event before its journal record is synced; on a
// journal or reservation write failure it stops the process instead.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "broker/event.hpp"

namespace signaltty::broker {

class EventPipeline {
 public:
  virtual ~EventPipeline() = default;
  // Numbers `events` (in order), journals them, and after they are durable
  // publishes them to the hub, then calls `done` (e.g. sends the reply).
  // An empty `events` behaves like after_durable(done).
  virtual void commit(std::vector<PendingEvent> events, std::function<void()> done) = 0;
  // Calls `done` once every commit issued before it is durable and published
  // (immediately when nothing is in flight). Read replies use it so a reader
  // never sees state whose event could still be lost.
  virtual void after_durable(std::function<void()> done) = 0;
  // A number for an ephemeral event (pty.data): consumes a seq, never journaled.
  virtual std::uint64_t take_ephemeral_seq() = 0;
  // Highest number issued so far (state or ephemeral).
  virtual std::uint64_t head_seq() const = 0;
};

}  // namespace signaltty::broker
