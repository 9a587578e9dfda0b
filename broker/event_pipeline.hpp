// broker/event_pipeline.hpp: numbers state events, appends them to the audit
// journal, makes them durable with group commit (one fsync for every
// transaction that arrived while the previous fsync ran), and only then
// publishes them and runs the transactions' completions. A transaction's
// last record also carries the state image of what it touched (decision
// 25; docs/rules.md (Persistence), "Journal replay").
// Runs in: broker; called on the io thread, writes and fsyncs on its own
// journal thread, completions come back on the io thread.
// Never: publishes an event before its journal record is synced; on a
// journal or reservation write failure it stops the process instead.
//
// Usage (broker/server.cpp):
//   EventPipeline pipeline(io, *journal, seq,
//                          [&hub](const StateEvent& ev) { hub.publish(ev); },
//                          config.group_commit);
//   pipeline.commit(std::move(txn), [reply] { reply(...); });
//   ...
//   pipeline.shutdown();   // drains queued groups, joins the thread
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "broker/audit_journal.hpp"
#include "broker/config.hpp"
#include "broker/event.hpp"
#include "broker/sequence_reservation.hpp"
#include "common/errors.hpp"

namespace signaltty::broker {

// Exit status when the journal or the reservation cannot be written
// (EX_SOFTWARE): the broker stops rather than publish an unjournaled event.
inline constexpr int kExitJournalFailure = 70;

// The production fatal action: log the error, then _Exit(kExitJournalFailure).
[[noreturn]] void stop_on_journal_failure(const Error& error);

class EventPipeline {
 public:
  using PublishSink = std::function<void(const StateEvent&)>;
  using FatalAction = std::function<void(const Error&)>;
  // The encoded state image of a transaction (broker/state_image.hpp),
  // asked on the io thread when it is committed; "" for none.
  using StateSource = std::function<std::string(const std::vector<PendingEvent>& events,
                                                const std::vector<EntityRef>& touched)>;

  // `publish` runs on the io thread, in seq order, once an event is
  // durable. `on_fatal` is called (from whichever thread failed) instead of
  // publishing; after it nothing more is journaled or published.
  EventPipeline(boost::asio::io_context& io, AuditJournal& journal, SequenceReservation& seq,
                PublishSink publish, GroupCommit mode,
                FatalAction on_fatal = stop_on_journal_failure);
  ~EventPipeline();
  EventPipeline(const EventPipeline&) = delete;
  EventPipeline& operator=(const EventPipeline&) = delete;

  // Where commit() takes a transaction's state image from; without one
  // (unit tests) records carry none.
  void set_state_source(StateSource source) { state_source_ = std::move(source); }

  // Numbers the transaction's events (in order), journals them with its
  // state image on the last one, and after they are durable publishes
  // them, then calls `done` (e.g. sends the reply). Completions run in
  // commit order. A transaction with touches but no event is journaled as
  // one state-only record (kStateOnlyRecord), never published. An empty
  // one behaves like after_durable(done). Not to be called after
  // shutdown(): nothing would journal it.
  void commit(Txn txn, std::function<void()> done);
  // The same for bare events (no touches).
  void commit(std::vector<PendingEvent> events, std::function<void()> done);
  // Calls `done` once every commit issued before it is durable and published
  // (immediately when nothing is in flight). Read replies use it so a reader
  // never sees state whose event could still be lost.
  void after_durable(std::function<void()> done);
  // A number for an ephemeral event (pty.data): consumes a seq, never
  // journaled. After a fatal reservation failure it returns head_seq().
  std::uint64_t take_ephemeral_seq();
  // Highest number issued so far (state or ephemeral).
  std::uint64_t head_seq() const;

  // Writes and syncs every queued group, then joins the journal thread.
  // Their completions run on the io thread if it runs on while the
  // pipeline exists; destroying the pipeline drops them.
  void shutdown();

  // For the benchmark: journal syncs done, and events journaled.
  std::uint64_t fsync_count() const { return fsync_count_.load(); }
  std::uint64_t events_journaled() const { return events_journaled_.load(); }

 private:
  // Events committed while the journal thread was busy: one fsync for all.
  struct Group {
    std::uint64_t id = 0;
    std::vector<StateEvent> events;
  };
  // The io thread's side of a group: its completions, in call order.
  struct Completions {
    std::uint64_t id = 0;
    std::vector<std::function<void()>> dones;
  };

  void commit_events(std::vector<PendingEvent> events, const std::vector<EntityRef>& touched,
                     std::function<void()> done);
  std::string state_of(const std::vector<PendingEvent>& events,
                       const std::vector<EntityRef>& touched) const;
  std::uint64_t enqueue(std::vector<StateEvent> events);
  void journal_loop();
  Status write_group(const Group& group);
  void complete(Group group, JournalView view);
  void fail(const Error& error);

  boost::asio::io_context& io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  AuditJournal& journal_;
  SequenceReservation& seq_;
  PublishSink publish_;
  const GroupCommit mode_;
  FatalAction on_fatal_;
  StateSource state_source_;

  // Io thread.
  std::deque<Completions> in_flight_;
  std::uint64_t last_group_id_ = 0;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> busy_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);

  // Shared with the journal thread.
  std::mutex mu_;
  std::condition_variable wake_;
  std::optional<Group> waiting_;  // the group being formed
  bool stopping_ = false;
  std::atomic<bool> failed_{false};

  std::atomic<std::uint64_t> fsync_count_{0};
  std::atomic<std::uint64_t> events_journaled_{0};
  std::thread journal_thread_;
};

}  // namespace signaltty::broker
