// broker/snapshot_store.hpp: owns snapshot.json (docs/rules.md, Snapshot):
// loading it at startup (a corrupt file is set aside, an unknown version
// refuses to start) and saving it durably, debounced, off the io thread.
// Runs in: broker. load/save_snapshot anywhere; SnapshotScheduler on the io
// thread, its file writes on its own writer thread.
// Never: discards a snapshot it cannot read (it is renamed aside or the
// broker refuses to start); never stops the server because a save failed
// (the journal holds every change since the last saved snapshot, and
// refuses to rotate them away: docs/persistence.md, "I/O faults"); never
// forgets a change whose save failed (it stays pending and is retried
// with a fresh temp file, never by syncing the failed one again).
//
// Usage:
//   SIGNALTTY_TRY(auto doc, load_snapshot(state_dir));   // nullopt: start empty
//   SnapshotScheduler snapshots(io, state_dir, [&] { return store.snapshot(); },
//                               [&] { return store.revision(); });
//   snapshots.mark_if_changed();     // after anything that may have changed the store
//   snapshots.save_now_or_retry();   // a record that must survive a crash
//   snapshots.save_now();            // orderly shutdown
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "broker/snapshot_doc.hpp"
#include "common/errors.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {

// Our bound on snapshot.json (ours, not the protocol's): far above any real model;
// a larger file is refused rather than read into memory.
inline constexpr std::size_t kSnapshotMaxBytes = 256u << 20;

// snapshot.json in `state_dir`. Missing → nullopt. Not JSON or not a
// snapshot → renamed to snapshot.corrupt-<UTC>, logged loudly, nullopt.
// A `version` other than 1 → IO_ERROR: the broker must refuse to start.
Result<std::optional<SnapshotDoc>> load_snapshot(const std::string& state_dir);

// temp (0600) → fsync → rename → fsync(dir). Stamps saved_at when empty.
// Then keeps the rotating copy in snapshots/ (snapshot_rotation.hpp) as of
// `now`; a failed copy is logged and does not fail the save.
Status save_snapshot(const std::string& state_dir, const SnapshotDoc& doc,
                     std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

class SnapshotScheduler {
 public:
  using Provider = std::function<SnapshotDoc()>;
  // A number that changes whenever the model does; equal numbers mean
  // "nothing new to save".
  using Revision = std::function<std::uint64_t()>;
  // The wall clock the rotating copies are dated by (tests inject one).
  using WallClock = std::function<std::chrono::system_clock::time_point()>;

  SnapshotScheduler(boost::asio::io_context& io, std::string state_dir, Provider provider,
                    Revision revision,
                    std::chrono::milliseconds debounce = limits::kSnapshotDebounce,
                    WallClock wall_clock = [] { return std::chrono::system_clock::now(); });
  // Waits for a write in progress; a pending (timer) save is dropped, so
  // call save_now() first at an orderly stop.
  ~SnapshotScheduler();
  SnapshotScheduler(const SnapshotScheduler&) = delete;
  SnapshotScheduler& operator=(const SnapshotScheduler&) = delete;

  // A structural change happened: save within one debounce interval. Marks
  // during that interval (or during a write) coalesce; the state saved is
  // built when the timer fires, so the latest state wins.
  void mark_dirty();
  // mark_dirty() when the model's revision differs from the last one saved:
  // any store change (one with no event too, e.g. a seen time) is flushed.
  void mark_if_changed();
  // Saves the current state now, on the calling (io) thread; cancels the
  // pending timer. Used at shutdown.
  Status save_now();
  // save_now() for a record that must survive a crash: a failure is logged
  // with its error and the change stays pending, so the debounced save
  // retries it.
  void save_now_or_retry();

  // Called after every successful save with the journal_seq the saved
  // document reflects, on the thread that wrote it (writer or io).
  using SavedSink = std::function<void(std::uint64_t journal_seq)>;
  void set_on_saved(SavedSink sink) { on_saved_ = std::move(sink); }

  // Io thread; for tests and server.status.
  std::uint64_t saves_completed() const { return saves_completed_; }
  std::uint64_t saves_failed() const { return saves_failed_; }

 private:
  void on_timer();
  // Any thread: writes unless a newer generation already landed.
  Status write_generation(std::uint64_t generation, const SnapshotDoc& doc);
  void write_finished(std::uint64_t generation, std::uint64_t revision, const Status& status);

  boost::asio::io_context& io_;
  const std::string state_dir_;
  Provider provider_;
  Revision revision_;
  const std::chrono::milliseconds debounce_;
  const WallClock wall_clock_;
  SavedSink on_saved_;
  boost::asio::steady_timer timer_;

  // Io thread.
  bool armed_ = false;
  std::uint64_t timer_generation_ = 0;  // a stale expiry is ignored
  bool writing_ = false;
  bool dirty_while_writing_ = false;
  std::uint64_t next_generation_ = 0;
  std::uint64_t recorded_generation_ = 0;
  std::optional<std::uint64_t> saved_revision_;
  std::uint64_t saves_completed_ = 0;
  std::uint64_t saves_failed_ = 0;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> busy_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);

  // Writer thread and save_now(): only the newest generation may land.
  std::mutex write_mu_;
  std::uint64_t written_generation_ = 0;
  boost::asio::thread_pool writer_{1};
};

}  // namespace signaltty::broker
