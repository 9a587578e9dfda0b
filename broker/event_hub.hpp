// broker/event_hub.hpp: where published state events go: the in-memory
// ring of the last 1024, and every subscribed session's filter; serves
// `subscribe` (live and replay from ring + journal with the proof rules of
// docs/rules.md, Replay).
// Runs in: broker (io thread; journal reads on a worker thread).
// Never: numbers or journals events (the pipeline did, before publish()).
//
// Usage (the subscribe handler):
//   SIGNALTTY_TRY(auto filter, make_event_filter(params));
//   hub.subscribe(ctx.session, std::move(filter), params.from_seq, pipeline.head_seq(),
//                 std::move(reply),
//                 [&pipeline](std::function<void()> f) { pipeline.after_durable(std::move(f)); });
// The hub answers `reply` once (unless the session closes first), then
// writes replay frames and live events straight to the session, but only
// after `after_reply` says the reply line is queued there: the router
// answers through the pipeline's durability barrier, so a reply can be
// queued later than the call that gave it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "broker/event.hpp"
#include "broker/services.hpp"
#include "broker/session.hpp"
#include "common/protocol/methods/subscribe.hpp"

namespace signaltty::broker {

class AuditJournal;

// What one subscription selects (docs/rules.md, Events).
struct EventFilter {
  // Declared event names or globs (protocol::is_event_selector); empty
  // selects every event.
  std::vector<std::string> selectors;
  // Empty: no task filter. Otherwise an event whose payload names a task
  // (top-level `task_id`, or `task.id`) passes only if that task is listed;
  // an event that names no task is judged by the selectors alone. This is
  // how we read the protocol's "only events whose payload carries a matching
  // task_id are delivered (other events still pass the glob match)".
  std::vector<std::string> task_ids;

  bool selects(const StateEvent& ev) const;
  // The same for an event known by its name and the task its payload names.
  bool selects(std::string_view name, const std::optional<std::string>& task) const;
};

// Validates subscribe's `events` (BAD_PARAMS naming `events[i]` for an entry
// that is neither a declared event nor a glob) and builds the filter. An
// empty `events` or `task_ids` list means the same as an absent one.
Result<EventFilter> make_event_filter(const protocol::SubscribeParams& params);

// True when `event`'s payload names `pane_id` at its top level: what a
// watcher of one pane filters on before doing any work.
inline bool names_pane(const StateEvent& event, std::string_view pane_id) {
  auto it = event.payload.find("pane_id");
  return it != event.payload.end() && it->is_string() &&
         it->get_ref<const std::string&>() == pane_id;
}

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

  // Runs its argument once every reply given before the call is queued on
  // its session (in order with them); the handler passes the pipeline's
  // after_durable, the barrier the router's replies go through.
  using AfterReply = std::function<void(std::function<void()>)>;

  // Serves `subscribe` for `session`, replacing its previous subscription.
  // Without from_seq: replies {subscribed, seq: fence}; live events with
  // seq > fence follow. With from_seq: replies with `replay`, then the
  // replay frames, then live events; an incomplete replay is refused
  // (subscribed:false, no frames) and the session closed after the reply.
  // `issued_head` is the highest number ever issued (state events and
  // pty.data alike): only a from_seq above it is `cursor_ahead`.
  // A replay that needs the journal answers later, from the io thread.
  // Live events published before the reply is out wait behind it.
  void subscribe(const std::shared_ptr<Session>& session, EventFilter filter,
                 std::optional<std::uint64_t> from_seq, std::uint64_t issued_head,
                 Reply<protocol::SubscribeResult> reply, AfterReply after_reply);
  // Sessions with a subscription (live or waiting for a journal replay).
  std::size_t subscriber_count() const;

  // In-broker observers of every published state event, called after the
  // fan-out (a `wait` re-checks its pane on each). A watcher may unwatch
  // itself, or another, from inside the call.
  using Watcher = std::function<void(const StateEvent&)>;
  std::uint64_t watch(Watcher watcher);
  void unwatch(std::uint64_t token);

  // Everything subscribe needs lives behind this; see event_hub.cpp.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::map<std::uint64_t, Watcher> watchers_;
  std::uint64_t last_watch_token_ = 0;
};

}  // namespace signaltty::broker
