// broker/event_hub.cpp: owns the ring of recent state events and every
// session's subscription; decides replay status, builds replays from the
// ring and the audit journal, and hands over to the live stream.
// Runs in: broker. Everything on the io thread except the journal read,
// which runs on the hub's own reader thread and posts its result back.
// Never: sends a live event at or below a subscriber's fence, lets a frame
// or live event overtake the reply or a live event overtake replay frames,
// or sends anything after refusing a replay.
#include "broker/event_hub.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <iterator>
#include <unordered_map>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include "broker/audit_journal.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"
#include "common/protocol/envelope.hpp"

namespace signaltty::broker {
namespace {

namespace p = protocol;
using p::ReplayStatus;

// Journal replays are read on a pool the hub owns rather than a shared one:
// they are rare, one thread serialises a burst of resubscribing clients (so
// they cannot pin many journal copies in memory at once), and the hub can
// be tested on its own.
constexpr std::size_t kReplayReadThreads = 1;

// Our bound (not the protocol's) on live events held back for one subscriber
// while its journal replay is read or its reply waits to go out. Past it
// the subscriber lags as if its queue were full: a replay still being read
// is refused as `truncated`, and the connection is closed either way.
constexpr std::size_t kHeldLiveEventsMax = limits::kReplayMaxEvents;

// Task events carry free JSON payloads, so the task is found by field name.
std::optional<std::string> task_of(const Json& payload) {
  if (!payload.is_object()) return std::nullopt;
  if (auto id = payload.find("task_id"); id != payload.end() && id->is_string())
    return id->get<std::string>();
  auto task = payload.find("task");
  if (task == payload.end() || !task->is_object()) return std::nullopt;
  if (auto id = task->find("id"); id != task->end() && id->is_string())
    return id->get<std::string>();
  return std::nullopt;
}

Error bad_selector(std::size_t index) {
  const std::string field = "events[" + std::to_string(index) + "]";
  Error e = bad_params(field + ": not a declared event name or glob (`*`, `agent.*`, ...)");
  e.details = {{"field", field}};
  return e;
}

// What a replay says; anything but complete carries the recovery advice.
p::ReplayInfo replay_info(ReplayStatus status, std::uint64_t requested_after,
                          std::uint64_t retained_after, std::uint64_t through) {
  p::ReplayInfo info;
  info.status = status;
  info.requested_after = requested_after;
  info.retained_after = retained_after;
  info.through = through;
  if (status != ReplayStatus::Complete)
    info.recovery = std::string(p::kRecoverySnapshotThenResubscribe);
  return info;
}

p::ReplayInfo refused(const p::ReplayInfo& info, ReplayStatus status) {
  return replay_info(status, info.requested_after, info.retained_after, info.through);
}

// `through` is the fence: the head when the replay was captured.
p::SubscribeResult replay_result(p::ReplayInfo info) {
  p::SubscribeResult result;
  result.subscribed = info.status == ReplayStatus::Complete;
  result.seq = info.through;
  result.replay = std::move(info);
  return result;
}

// A replay as it will be sent: Complete with its frames, or why not.
struct ReplayFrames {
  ReplayStatus status = ReplayStatus::Complete;
  std::vector<std::string> lines;
};

// One selected event of a replay, already encoded as its frame.
struct Frame {
  std::uint64_t seq = 0;
  std::string line;
};

// Keeps the frames in (after, through], one per seq, ascending, unless more
// than the replay cap are left.
ReplayFrames select_replay(std::vector<Frame> frames, std::uint64_t after,
                           std::uint64_t through) {
  std::erase_if(frames, [&](const Frame& f) { return f.seq <= after || f.seq > through; });
  auto by_seq = [](const Frame& a, const Frame& b) { return a.seq < b.seq; };
  auto same_seq = [](const Frame& a, const Frame& b) { return a.seq == b.seq; };
  std::stable_sort(frames.begin(), frames.end(), by_seq);
  frames.erase(std::unique(frames.begin(), frames.end(), same_seq), frames.end());
  if (frames.size() > limits::kReplayMaxEvents) return {ReplayStatus::Truncated, {}};
  ReplayFrames out;
  out.lines.reserve(frames.size());
  for (auto& f : frames) out.lines.push_back(std::move(f.line));
  return out;
}

// Reader thread: the journal's selected records in (after, through] merged
// with the ring's. The journal stops reading one record past the cap: its
// records have distinct seqs, so that many already means `truncated`. A
// read failure leaves the history unproven: `unavailable`.
ReplayFrames read_journal_replay(JournalCapture& capture, std::vector<Frame> ring_tail,
                                 const EventFilter& filter, std::uint64_t after,
                                 std::uint64_t through) {
  try {
    auto selects = [&filter](const StateEvent& ev) { return filter.selects(ev); };
    auto records =
        AuditJournal::read_records(capture, after, through, selects, limits::kReplayMaxEvents);
    if (!records.ok()) {
      log::warn("replay: journal read failed: " + records.error().message);
      return {ReplayStatus::Unavailable, {}};
    }
    const std::vector<StateEvent>& events = *records;
    if (events.size() > limits::kReplayMaxEvents) return {ReplayStatus::Truncated, {}};
    std::vector<Frame> frames = std::move(ring_tail);
    for (const StateEvent& ev : events)
      frames.push_back({ev.seq, p::encode_event(ev.name, ev.seq, ev.payload)});
    return select_replay(std::move(frames), after, through);
  } catch (const std::exception& e) {
    log::error(std::string("replay: journal read aborted: ") + e.what());
    return {ReplayStatus::Unavailable, {}};
  }
}

using AfterReply = EventHub::AfterReply;

void run_after_reply(const AfterReply& after_reply, std::function<void()> then) {
  if (after_reply) return after_reply(std::move(then));
  then();
}

enum class Phase {
  ReadingJournal,  // the reply is owed until the reader thread is done
  AwaitingReply,   // the reply is given but may not be on the session yet
  Live,
};

struct Subscriber {
  std::weak_ptr<Session> session;
  EventFilter filter;
  std::uint64_t fence = 0;
  std::uint64_t generation = 0;
  Phase phase = Phase::AwaitingReply;
  // ReadingJournal: the reply owed, its barrier and what it will say.
  Reply<p::SubscribeResult> owed_reply;
  AfterReply owed_after_reply;
  p::ReplayInfo owed_info;
  // Until Live: the replay frames, then the live events held behind them.
  std::vector<std::string> frames;
  std::vector<std::string> held;
  bool lagged = false;
};

}  // namespace

bool EventFilter::selects(const StateEvent& ev) const {
  return selects(ev.name, task_ids.empty() ? std::nullopt : task_of(ev.payload));
}

bool EventFilter::selects(std::string_view name, const std::optional<std::string>& task) const {
  const bool named = selectors.empty() ||
                     std::any_of(selectors.begin(), selectors.end(), [&](const std::string& s) {
                       return p::event_matches(s, name);
                     });
  if (!named) return false;
  if (task_ids.empty()) return true;
  return !task || std::find(task_ids.begin(), task_ids.end(), *task) != task_ids.end();
}

Result<EventFilter> make_event_filter(const p::SubscribeParams& params) {
  EventFilter filter;
  if (params.events) {
    for (std::size_t i = 0; i < params.events->size(); ++i)
      if (!p::is_event_selector((*params.events)[i])) return bad_selector(i);
    filter.selectors = *params.events;
  }
  if (params.task_ids) filter.task_ids = *params.task_ids;
  return filter;
}

struct EventHub::Impl {
  using SubscribeReply = Reply<p::SubscribeResult>;

  Impl(boost::asio::io_context& io_context, AuditJournal& audit, std::uint64_t start_head)
      : io(io_context), journal(audit), head(start_head), ring_retained_after(start_head) {}

  void publish(const StateEvent& ev);
  void subscribe(const std::shared_ptr<Session>& session, EventFilter filter,
                 std::optional<std::uint64_t> from_seq, std::uint64_t issued_head,
                 SubscribeReply reply, AfterReply after_reply);
  std::size_t open_subscribers() const;
  void drop(std::uint64_t session_id) { subscribers.erase(session_id); }

 private:
  // Keeps the event in the ring; returns its encoded frame there.
  const std::string& remember(const StateEvent& ev);
  void fan_out(const StateEvent& ev, const std::string& line);
  bool hold(Subscriber& sub, const std::string& line);
  void refuse_lagging(std::uint64_t session_id);
  std::uint64_t install(const std::shared_ptr<Session>& session, EventFilter filter, Phase phase);
  void retire(std::uint64_t session_id);
  void refuse(const std::shared_ptr<Session>& session, const SubscribeReply& reply,
              const AfterReply& after_reply, p::ReplayInfo info);
  void reply_then_release(std::uint64_t session_id, std::uint64_t generation,
                          const SubscribeReply& reply, const AfterReply& after_reply,
                          p::SubscribeResult result);
  struct LiveSubscriber {
    Subscriber* sub;
    std::shared_ptr<Session> session;
  };
  std::optional<LiveSubscriber> live_subscriber(std::uint64_t session_id,
                                                std::uint64_t generation);
  void release(std::uint64_t session_id, std::uint64_t generation);
  std::vector<Frame> ring_after(std::uint64_t after, const EventFilter& filter) const;
  void replay_from_ring(const std::shared_ptr<Session>& session, EventFilter filter,
                        std::uint64_t after, const SubscribeReply& reply,
                        const AfterReply& after_reply);
  void replay_from_journal(const std::shared_ptr<Session>& session, EventFilter filter,
                           std::uint64_t after, JournalCapture capture, SubscribeReply reply,
                           AfterReply after_reply);
  void finish_journal_replay(std::uint64_t session_id, std::uint64_t generation,
                             ReplayFrames frames);

 public:
  boost::asio::io_context& io;
  AuditJournal& journal;
  std::uint64_t head;
  std::uint64_t ring_retained_after;

 private:
  // What a replay needs of each recent event: its frame, already encoded,
  // and what a filter reads (name, task). Not the payload as a JSON tree
  // nor the state image: a frame is a fraction of their memory.
  struct RingEntry {
    std::uint64_t seq = 0;
    std::string name;
    std::optional<std::string> task;
    std::string line;
  };
  std::deque<RingEntry> ring;
  std::unordered_map<std::uint64_t, Subscriber> subscribers;
  std::uint64_t next_generation = 1;
  // Deferred work (reader results, reply barriers) runs only while this is
  // alive: the hub may be gone by then.
  std::shared_ptr<const bool> lifetime = std::make_shared<const bool>(true);
  // Declared last: destroyed (stopped and joined) first.
  boost::asio::thread_pool readers{kReplayReadThreads};
};

// ---- publishing --------------------------------------------------------------

void EventHub::Impl::publish(const StateEvent& ev) {
  if (ev.seq <= head) {
    log::error("event hub: published seq " + std::to_string(ev.seq) + " is not above head " +
               std::to_string(head) + "; dropped");
    return;
  }
  // A copy: a send may re-enter the hub, and the ring may move on meanwhile.
  const std::string line = remember(ev);
  fan_out(ev, line);
}

const std::string& EventHub::Impl::remember(const StateEvent& ev) {
  head = ev.seq;
  ring.push_back(RingEntry{ev.seq, ev.name, task_of(ev.payload),
                           p::encode_event(ev.name, ev.seq, ev.payload)});
  if (ring.size() > limits::kEventRingSize) {
    ring_retained_after = ring.front().seq;
    ring.pop_front();
  }
  return ring.back().line;
}

// Sends after the walk: a send that closes its session may drop_session().
void EventHub::Impl::fan_out(const StateEvent& ev, const std::string& line) {
  std::vector<std::shared_ptr<Session>> targets;
  std::vector<std::uint64_t> lagging;
  for (auto it = subscribers.begin(); it != subscribers.end();) {
    auto session = it->second.session.lock();
    if (!session || session->closed()) {
      it = subscribers.erase(it);
      continue;
    }
    Subscriber& sub = it->second;
    if (ev.seq > sub.fence && sub.filter.selects(ev)) {
      if (sub.phase == Phase::Live) targets.push_back(std::move(session));
      else if (!hold(sub, line)) lagging.push_back(it->first);
    }
    ++it;
  }
  for (const auto& session : targets) session->send(line);
  for (auto id : lagging) refuse_lagging(id);
}

// False when the subscriber just went past the hold cap: it is marked
// lagging and keeps nothing more (release() then closes its session).
bool EventHub::Impl::hold(Subscriber& sub, const std::string& line) {
  if (sub.lagged) return true;
  if (sub.held.size() < kHeldLiveEventsMax) {
    sub.held.push_back(line);
    return true;
  }
  sub.lagged = true;
  sub.held.clear();
  sub.frames.clear();
  return false;
}

// A replay still being read is refused now; one whose reply is already
// given is closed by release() once that reply is out.
void EventHub::Impl::refuse_lagging(std::uint64_t session_id) {
  auto it = subscribers.find(session_id);
  if (it == subscribers.end() || it->second.phase != Phase::ReadingJournal) return;
  SubscribeReply reply = std::exchange(it->second.owed_reply, nullptr);
  AfterReply after_reply = std::exchange(it->second.owed_after_reply, nullptr);
  const p::ReplayInfo info = it->second.owed_info;
  auto session = it->second.session.lock();
  log::warn("subscribe: session " + std::to_string(session_id) +
            " lagged past the live events held during its replay; closing it");
  if (!session) {
    subscribers.erase(it);
    return;
  }
  refuse(session, reply, after_reply, refused(info, ReplayStatus::Truncated));
}

// ---- subscriptions -----------------------------------------------------------

// The session's previous subscription ends; a replay it still owed a reply
// is answered as superseded, before anything of the new one is sent.
void EventHub::Impl::retire(std::uint64_t session_id) {
  auto it = subscribers.find(session_id);
  if (it == subscribers.end()) return;
  SubscribeReply owed = std::move(it->second.owed_reply);
  subscribers.erase(it);
  if (!owed) return;
  Error e = bad_params("subscribe: superseded by a later subscribe on this connection");
  e.details = {{"superseded", true}};
  owed(std::move(e));
}

std::uint64_t EventHub::Impl::install(const std::shared_ptr<Session>& session,
                                      EventFilter filter, Phase phase) {
  const std::uint64_t id = session->session_id();
  retire(id);
  Subscriber sub;
  sub.session = session;
  sub.filter = std::move(filter);
  sub.fence = head;
  sub.generation = next_generation++;
  sub.phase = phase;
  const std::uint64_t generation = sub.generation;
  subscribers.insert_or_assign(id, std::move(sub));
  return generation;
}

// Refused: no subscription, no frames; the session closes once the reply
// is out.
void EventHub::Impl::refuse(const std::shared_ptr<Session>& session, const SubscribeReply& reply,
                            const AfterReply& after_reply, p::ReplayInfo info) {
  retire(session->session_id());
  reply(replay_result(std::move(info)));
  run_after_reply(after_reply, [weak = std::weak_ptr<Session>(session)] {
    if (auto s = weak.lock()) s->close_after_flush();
  });
}

void EventHub::Impl::reply_then_release(std::uint64_t session_id, std::uint64_t generation,
                                        const SubscribeReply& reply,
                                        const AfterReply& after_reply,
                                        p::SubscribeResult result) {
  reply(std::move(result));
  run_after_reply(after_reply, [this, session_id, generation,
                                alive = std::weak_ptr<const bool>(lifetime)] {
    if (!alive.expired()) release(session_id, generation);
  });
}

// The subscription of this generation and its session, unless it was
// replaced or dropped meanwhile; one whose session closed is forgotten.
std::optional<EventHub::Impl::LiveSubscriber> EventHub::Impl::live_subscriber(
    std::uint64_t session_id, std::uint64_t generation) {
  auto it = subscribers.find(session_id);
  if (it == subscribers.end() || it->second.generation != generation) return std::nullopt;
  auto session = it->second.session.lock();
  if (!session || session->closed()) {
    subscribers.erase(it);
    return std::nullopt;
  }
  return LiveSubscriber{&it->second, std::move(session)};
}

// The reply is on the session: replay frames, then the held live events
// (all above the fence, so never a duplicate), then live.
void EventHub::Impl::release(std::uint64_t session_id, std::uint64_t generation) {
  auto live = live_subscriber(session_id, generation);
  if (!live) return;
  Subscriber& sub = *live->sub;
  if (sub.lagged) {
    subscribers.erase(session_id);
    log::warn("subscribe: session " + std::to_string(session_id) +
              " lagged past the live events held behind its reply; closing it");
    live->session->close_after_flush();
    return;
  }
  std::vector<std::string> frames = std::exchange(sub.frames, {});
  std::vector<std::string> held = std::exchange(sub.held, {});
  sub.phase = Phase::Live;
  for (auto& line : frames) live->session->send(std::move(line));
  for (auto& line : held) live->session->send(std::move(line));
}

std::vector<Frame> EventHub::Impl::ring_after(std::uint64_t after,
                                              const EventFilter& filter) const {
  std::vector<Frame> out;
  for (const auto& entry : ring)
    if (entry.seq > after && filter.selects(entry.name, entry.task))
      out.push_back({entry.seq, entry.line});
  return out;
}

// ---- replay --------------------------------------------------------------------

// Status order of docs/rules.md "Replay": cursor_ahead, complete (journal
// or ring), history_lost, unavailable. The fence and the capture (ring
// copy, journal files and their proof) are taken here, in one io-thread turn.
// Only a cursor above every number ever issued is ahead: one between the
// published head and `issued_head` names numbers that pty.data consumed
// (never state events) or state events not yet published (none of which a
// client can have seen), so its replay is complete and empty, through the
// published head.
void EventHub::Impl::subscribe(const std::shared_ptr<Session>& session, EventFilter filter,
                               std::optional<std::uint64_t> from_seq, std::uint64_t issued_head,
                               SubscribeReply reply, AfterReply after_reply) {
  if (!from_seq) {
    const std::uint64_t generation = install(session, std::move(filter), Phase::AwaitingReply);
    return reply_then_release(session->session_id(), generation, reply, after_reply,
                              p::SubscribeResult{true, head, std::nullopt});
  }
  const std::uint64_t after = *from_seq;
  if (after > std::max(head, issued_head))
    return refuse(session, reply, after_reply,
                  replay_info(ReplayStatus::CursorAhead, after, ring_retained_after, head));
  if (after >= ring_retained_after)
    return replay_from_ring(session, std::move(filter), after, reply, after_reply);
  JournalCapture capture = journal.capture();
  if (capture.provable && after >= capture.retained_after)
    return replay_from_journal(session, std::move(filter), after, std::move(capture),
                               std::move(reply), std::move(after_reply));
  const auto status = capture.provable ? ReplayStatus::HistoryLost : ReplayStatus::Unavailable;
  const std::uint64_t retained = capture.provable
                                     ? std::min(capture.retained_after, ring_retained_after)
                                     : ring_retained_after;
  refuse(session, reply, after_reply, replay_info(status, after, retained, head));
}

void EventHub::Impl::replay_from_ring(const std::shared_ptr<Session>& session, EventFilter filter,
                                      std::uint64_t after, const SubscribeReply& reply,
                                      const AfterReply& after_reply) {
  auto info = replay_info(ReplayStatus::Complete, after, ring_retained_after, head);
  ReplayFrames frames = select_replay(ring_after(after, filter), after, head);
  if (frames.status != ReplayStatus::Complete)
    return refuse(session, reply, after_reply, refused(info, frames.status));
  const std::uint64_t id = session->session_id();
  const std::uint64_t generation = install(session, std::move(filter), Phase::AwaitingReply);
  info.returned = frames.lines.size();
  subscribers.at(id).frames = std::move(frames.lines);
  reply_then_release(id, generation, reply, after_reply, replay_result(std::move(info)));
}

void EventHub::Impl::replay_from_journal(const std::shared_ptr<Session>& session,
                                         EventFilter filter, std::uint64_t after,
                                         JournalCapture capture, SubscribeReply reply,
                                         AfterReply after_reply) {
  const std::uint64_t id = session->session_id();
  const std::uint64_t through = head;
  std::vector<Frame> tail = ring_after(after, filter);
  const std::uint64_t generation = install(session, filter, Phase::ReadingJournal);
  Subscriber& sub = subscribers.at(id);
  sub.owed_reply = std::move(reply);
  sub.owed_after_reply = std::move(after_reply);
  sub.owed_info = replay_info(ReplayStatus::Complete, after,
                              std::min(capture.retained_after, ring_retained_after), through);
  boost::asio::post(readers, [this, io_context = &io, id, generation, after, through,
                              filter = std::move(filter), tail = std::move(tail),
                              capture = std::move(capture),
                              alive = std::weak_ptr<const bool>(lifetime)]() mutable {
    ReplayFrames frames = read_journal_replay(capture, std::move(tail), filter, after, through);
    boost::asio::post(*io_context, [this, id, generation, alive,
                                    frames = std::move(frames)]() mutable {
      if (!alive.expired()) finish_journal_replay(id, generation, std::move(frames));
    });
  });
}

// Back on the io thread, unless the subscription was dropped or replaced
// meanwhile: refuse, or reply and release the frames behind the reply.
void EventHub::Impl::finish_journal_replay(std::uint64_t session_id, std::uint64_t generation,
                                           ReplayFrames frames) {
  auto live = live_subscriber(session_id, generation);
  if (!live) return;
  Subscriber& sub = *live->sub;
  const std::shared_ptr<Session> session = live->session;
  SubscribeReply reply = std::exchange(sub.owed_reply, nullptr);
  AfterReply after_reply = std::exchange(sub.owed_after_reply, nullptr);
  p::ReplayInfo info = sub.owed_info;
  if (frames.status != ReplayStatus::Complete)
    return refuse(session, reply, after_reply, refused(info, frames.status));
  sub.phase = Phase::AwaitingReply;
  sub.frames = std::move(frames.lines);
  info.returned = sub.frames.size();
  reply_then_release(session_id, generation, reply, after_reply, replay_result(std::move(info)));
}

std::size_t EventHub::Impl::open_subscribers() const {
  auto open = [](const auto& entry) {
    auto session = entry.second.session.lock();
    return session && !session->closed();
  };
  return static_cast<std::size_t>(std::count_if(subscribers.begin(), subscribers.end(), open));
}

// ---- EventHub ----------------------------------------------------------------

EventHub::EventHub(boost::asio::io_context& io, AuditJournal& journal, std::uint64_t start_head)
    : impl_(std::make_unique<Impl>(io, journal, start_head)) {}

EventHub::~EventHub() = default;

void EventHub::publish(const StateEvent& ev) {
  impl_->publish(ev);
  std::vector<std::uint64_t> tokens;
  for (const auto& [token, watcher] : watchers_) tokens.push_back(token);
  for (std::uint64_t token : tokens) {
    auto it = watchers_.find(token);
    if (it == watchers_.end()) continue;  // unwatched by an earlier watcher
    Watcher watcher = it->second;         // a copy: it may unwatch itself
    watcher(ev);
  }
}

std::uint64_t EventHub::watch(Watcher watcher) {
  watchers_.emplace(++last_watch_token_, std::move(watcher));
  return last_watch_token_;
}

void EventHub::unwatch(std::uint64_t token) { watchers_.erase(token); }

void EventHub::drop_session(std::uint64_t session_id) { impl_->drop(session_id); }

std::uint64_t EventHub::published_head() const { return impl_->head; }

std::uint64_t EventHub::ring_retained_after() const { return impl_->ring_retained_after; }

void EventHub::subscribe(const std::shared_ptr<Session>& session, EventFilter filter,
                         std::optional<std::uint64_t> from_seq, std::uint64_t issued_head,
                         Reply<protocol::SubscribeResult> reply, AfterReply after_reply) {
  impl_->subscribe(session, std::move(filter), from_seq, issued_head, std::move(reply),
                   std::move(after_reply));
}

std::size_t EventHub::subscriber_count() const { return impl_->open_subscribers(); }

}  // namespace signaltty::broker
