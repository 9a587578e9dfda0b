// broker/event_pipeline.cpp: the path of every state event: numbered on the
// io thread, written and synced by one journal thread in groups, published
// and completed back on the io thread, in order.
// Runs in: broker. Never: publishes what is not durable, or carries on
// after a journal or reservation write failed.
#include "broker/event_pipeline.hpp"

#include <pthread.h>

#include <cstdlib>
#include <utility>

#include <boost/asio/post.hpp>

#include "common/ids.hpp"
#include "common/log.hpp"

namespace signaltty::broker {

void stop_on_journal_failure(const Error& error) {
  log::error("journal or sequence reservation failure, stopping so no unjournaled event is "
             "published (exit " + std::to_string(kExitJournalFailure) + "): " + error.message);
  std::_Exit(kExitJournalFailure);
}

EventPipeline::EventPipeline(boost::asio::io_context& io, AuditJournal& journal,
                             SequenceReservation& seq, PublishSink publish, GroupCommit mode,
                             FatalAction on_fatal)
    : io_(io),
      strand_(boost::asio::make_strand(io)),
      journal_(journal),
      seq_(seq),
      publish_(std::move(publish)),
      mode_(mode),
      on_fatal_(std::move(on_fatal)) {
  journal_thread_ = std::thread([this] {
    ::pthread_setname_np(::pthread_self(), "journal");
    journal_loop();
  });
}

EventPipeline::~EventPipeline() {
  shutdown();
  busy_.reset();
}

// ---- io thread ----------------------------------------------------------

void EventPipeline::commit(Txn txn, std::function<void()> done) {
  commit_events(std::move(txn.events()), txn.touched(), std::move(done));
}

void EventPipeline::commit(std::vector<PendingEvent> events, std::function<void()> done) {
  commit_events(std::move(events), {}, std::move(done));
}

void EventPipeline::commit_events(std::vector<PendingEvent> events,
                                  const std::vector<EntityRef>& touched,
                                  std::function<void()> done) {
  if (events.empty() && touched.empty()) return after_durable(std::move(done));
  if (failed_) return;
  std::string state = state_of(events, touched);
  if (events.empty()) {
    if (state.empty()) return after_durable(std::move(done));
    events.push_back({std::string(kStateOnlyRecord), Json::object()});
  }
  std::vector<StateEvent> numbered;
  numbered.reserve(events.size());
  const std::string at = now_rfc3339();
  for (PendingEvent& pending : events) {
    auto n = seq_.next();
    if (!n.ok()) return fail(n.error());
    numbered.push_back({*n, std::move(pending.name), std::move(pending.payload), at, {}});
  }
  numbered.back().state = std::move(state);
  const std::uint64_t id = enqueue(std::move(numbered));
  if (in_flight_.empty() || in_flight_.back().id != id) in_flight_.push_back({id, {}});
  if (done) in_flight_.back().dones.push_back(std::move(done));
  if (!busy_) busy_.emplace(io_.get_executor());
}

// A record stays within the journal's line bound: an image that would not
// fit is left out (logged), the snapshot alone then carries its change.
std::string EventPipeline::state_of(const std::vector<PendingEvent>& events,
                                    const std::vector<EntityRef>& touched) const {
  if (!state_source_) return {};
  std::string state = state_source_(events, touched);
  if (state.size() <= kStateImageMaxBytes) return state;
  log::error("event pipeline: a state image of " + std::to_string(state.size()) +
             " bytes is past the journal's bound; journaled without it");
  return {};
}

void EventPipeline::after_durable(std::function<void()> done) {
  if (!done) return;
  if (in_flight_.empty()) return done();
  in_flight_.back().dones.push_back(std::move(done));
}

std::uint64_t EventPipeline::take_ephemeral_seq() {
  if (failed_) return seq_.head();
  auto n = seq_.next();
  if (!n.ok()) {
    fail(n.error());
    return seq_.head();
  }
  return *n;
}

std::uint64_t EventPipeline::head_seq() const { return seq_.head(); }

// Joins the group the journal thread has not taken yet, or starts one.
// Returns the group's id.
std::uint64_t EventPipeline::enqueue(std::vector<StateEvent> events) {
  std::lock_guard lock(mu_);
  if (!waiting_) waiting_.emplace(Group{++last_group_id_, {}});
  auto& queued = waiting_->events;
  queued.insert(queued.end(), std::make_move_iterator(events.begin()),
                std::make_move_iterator(events.end()));
  wake_.notify_one();
  return waiting_->id;
}

// A group is durable: readers may see its bytes, subscribers its events,
// then its transactions complete.
void EventPipeline::complete(Group group, JournalView view) {
  journal_.publish_view(std::move(view));
  for (StateEvent& ev : group.events) {
    if (ev.name == kStateOnlyRecord) continue;
    std::string().swap(ev.state);  // journal-only; the ring keeps no images
    publish_(ev);
  }
  if (in_flight_.empty() || in_flight_.front().id != group.id)
    return fail(Error{ErrorCode::Internal, "event pipeline: group completed out of order"});
  Completions completions = std::move(in_flight_.front());
  in_flight_.pop_front();
  if (in_flight_.empty()) busy_.reset();
  for (auto& done : completions.dones) done();
}

void EventPipeline::fail(const Error& error) {
  if (failed_.exchange(true)) return;
  on_fatal_(error);
}

// ---- journal thread -----------------------------------------------------

void EventPipeline::journal_loop() {
  for (;;) {
    Group group;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return waiting_.has_value() || stopping_; });
      if (!waiting_) return;  // stopping, and everything queued is written
      group = std::move(*waiting_);
      waiting_.reset();
    }
    if (Status st = write_group(group); !st.ok()) return fail(st.error());
    boost::asio::post(strand_, [this, alive = std::weak_ptr<int>(alive_), group = std::move(group),
                                view = journal_.durable_view()]() mutable {
      if (alive.expired()) return;
      complete(std::move(group), std::move(view));
    });
  }
}

// GroupCommit::On: one write and one sync for the whole group.
// GroupCommit::Off: a write and a sync per event (the benchmark's baseline).
Status EventPipeline::write_group(const Group& group) {
  if (mode_ == GroupCommit::On) {
    SIGNALTTY_RETURN_IF_ERROR(journal_.write_batch(group.events));
    SIGNALTTY_RETURN_IF_ERROR(journal_.sync());
    ++fsync_count_;
  } else {
    for (const StateEvent& ev : group.events) {
      SIGNALTTY_RETURN_IF_ERROR(journal_.write_batch({ev}));
      SIGNALTTY_RETURN_IF_ERROR(journal_.sync());
      ++fsync_count_;
    }
  }
  events_journaled_ += group.events.size();
  return {};
}

void EventPipeline::shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (journal_thread_.joinable()) journal_thread_.join();
}

}  // namespace signaltty::broker
