// broker/audit_journal.hpp: owns audit.jsonl, its one predecessor
// audit.jsonl.1 and the coverage evidence audit-retention.json
// (docs/rules.md, Event journal): appending records, rotation at 8 MiB,
// the provability verdict, bounded reads for replay, and the read of the
// state images a restart applies.
// Runs in: broker. open() at startup; write_batch()/sync()/durable_view()
// only on the event pipeline's journal thread; publish_view()/capture()
// and the accessors on the io thread; read_records() on a worker thread.
// Never: numbers events (the pipeline does) or decides a replay's status
// (the event hub does); never reports history as provable once it was not.
//
// Usage (startup, then the pipeline):
//   SIGNALTTY_TRY(auto journal, AuditJournal::open(state_dir));
//   journal thread:  journal->write_batch(events); journal->sync();
//                    auto view = journal->durable_view();
//   io thread:       journal->publish_view(std::move(view));   // then publish
//   subscribe:       auto cap = journal->capture();           // io thread
//                    auto recs = AuditJournal::read_records(cap, from, fence);
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/audit_anchor.hpp"
#include "broker/event.hpp"
#include "common/audit_chain.hpp"
#include "common/errors.hpp"
#include "common/limits.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// Our bound on one journal line (ours, not the protocol's): a record carries at most
// one request line's worth of payload plus its envelope. Longer lines are
// not records; they make history unprovable.
inline constexpr std::size_t kJournalMaxLineBytes = 2 * limits::kMaxLineBytes;
// Our bound on a record's state image (ours): with a payload of at most one
// request line, the record stays within kJournalMaxLineBytes.
inline constexpr std::size_t kStateImageMaxBytes = limits::kMaxLineBytes / 2;

// One line of the journal as the startup replay reads it
// (broker/journal_replay.cpp).
struct ReplayLine {
  std::optional<std::uint64_t> seq;  // nullopt: the line is no record
  std::string event;
  Json state;  // the record's state image; null when it carries none
};

// audit-retention.json (docs/rules.md, Event journal), with the chain head
// (common/audit_chain.hpp).
using JournalRetention = audit::Retention;

// What a journal is opened with; the defaults are production's.
struct JournalOptions {
  // docs/rules.md, Event journal (tests rotate sooner).
  std::uint64_t rotate_bytes = limits::kJournalRotateBytes;
  // Where the chain head is anchored (broker/audit_anchor.hpp).
  AnchorSink anchor_sink = syslog_anchor_sink();
  std::chrono::milliseconds anchor_interval = kAnchorInterval;
};

// What readers may see: the files as of the last completed sync(). The fds
// stay valid across rotations (a renamed file is still the same file).
struct JournalView {
  bool provable = false;
  std::uint64_t retained_after = 0;
  std::shared_ptr<const UniqueFd> predecessor;  // null when there is no .1
  std::uint64_t predecessor_bytes = 0;
  std::shared_ptr<const UniqueFd> current;
  std::uint64_t current_bytes = 0;
};

// One replay's hold on the journal: its own fds (.1 first, then current)
// with the durable length of each at capture time.
struct JournalCapture {
  bool provable = false;
  std::uint64_t retained_after = 0;
  std::vector<std::pair<UniqueFd, std::uint64_t>> files;
};

class AuditJournal {
 public:
  // Scans both files, applies the provability rules, persists the verdict
  // (unprovable is sticky) and repairs a torn last line. Finds the chain
  // head to link the next record to; a committed head the files no longer
  // hold is recorded for good (chain_broken_at). IO_ERROR when the state
  // dir cannot be used.
  static Result<std::unique_ptr<AuditJournal>> open(const std::string& state_dir,
                                                    JournalOptions options = {});

  AuditJournal(const AuditJournal&) = delete;
  AuditJournal& operator=(const AuditJournal&) = delete;
  ~AuditJournal();

  // ---- journal thread -------------------------------------------------
  // Appends one line per event (seqs strictly increasing), rotating first
  // whenever the current file has reached the threshold. Not durable
  // until sync().
  Status write_batch(const std::vector<StateEvent>& events);
  // fdatasync of the current file, then audit-retention.json rewritten
  // durably with the new lengths: in place, one sector, one fdatasync
  // (docs/rules.md, Event journal).
  Status sync();
  // The state as of the last successful sync() (or open()).
  JournalView durable_view() const;
  // The last record written (maybe not yet synced): seq and line hash.
  const audit::ChainHead& head() const { return head_; }

  // ---- io thread -------------------------------------------------------
  // The pipeline hands over the view of a group it is about to publish.
  void publish_view(JournalView view);
  // Duplicates the published fds; cheap. On fd exhaustion the capture is
  // marked unprovable (and logged) rather than failing the subscribe.
  JournalCapture capture() const;
  bool history_provable() const;
  std::uint64_t retained_after() const;
  // Highest seq found in the journal when it was opened (0 when empty).
  std::uint64_t max_seq() const { return max_seq_at_open_; }

  // ---- any thread ------------------------------------------------------
  // The highest seq a durable snapshot.json reflects (decision 25). Once
  // this was called, a rotation that would discard a .1 holding records
  // above it waits, the current file growing past the threshold, until a
  // snapshot reflects them: until then the journal is their only copy.
  void set_snapshot_covers(std::uint64_t seq) { snapshot_covers_.store(seq); }

  // ---- worker thread ---------------------------------------------------
  // Records with after_seq < seq <= through_seq, ascending, read up to the
  // captured lengths. A line that does not parse is an error in a provable
  // capture and skipped in an unprovable one. State-only records
  // (kStateOnlyRecord) are no events and are never returned.
  static Result<std::vector<StateEvent>> read_records(JournalCapture& capture,
                                                      std::uint64_t after_seq,
                                                      std::uint64_t through_seq);
  // Same, keeping only records `keep` accepts and stopping after
  // max_kept + 1 of them (so a caller can tell "more than max_kept").
  using RecordFilter = std::function<bool(const StateEvent&)>;
  static Result<std::vector<StateEvent>> read_records(JournalCapture& capture,
                                                      std::uint64_t after_seq,
                                                      std::uint64_t through_seq,
                                                      const RecordFilter& keep,
                                                      std::size_t max_kept);

  // Startup (before anything is appended): every complete line of the
  // captured files, .1 first, in file order, except records with
  // seq <= after_seq (found without parsing the whole line). A line that is
  // no record is visited with seq nullopt; a torn last line is not visited.
  using ReplayVisitor = std::function<void(ReplayLine line)>;
  static Status for_each_replay_line(JournalCapture& capture, std::uint64_t after_seq,
                                     const ReplayVisitor& visit);

  // The record line (without '\n') before its chain link: its state
  // image, when it has one, as a fifth member `state`. The journal adds
  // `prev` (audit::link_record) as the last member.
  static std::string encode_record(const StateEvent& ev);

 private:
  AuditJournal(std::string state_dir, JournalRetention retention, std::uint64_t max_seq,
               std::uint64_t rotate_bytes);

  Status flush_pending();
  Status rotate_if_full();
  bool rotation_would_lose_changes();
  Status rotate();
  Result<std::uint64_t> read_back_predecessor() const;
  // The whole evidence file replaced (open) or its one sector rewritten
  // in place (every sync and rotation).
  Status replace_retention();
  enum class EvidenceSync { Yes, No };
  Error put_back_evidence(const JournalRetention& before, Error failed, EvidenceSync sync);
  Status write_retention();
  JournalView durable_snapshot() const;
  std::string path(const char* name) const;

  const std::string state_dir_;
  // Journal thread (and open()).
  JournalRetention retention_;
  std::shared_ptr<UniqueFd> current_fd_;
  std::shared_ptr<UniqueFd> predecessor_fd_;
  UniqueFd retention_fd_;  // audit-retention.json, kept open for in-place rewrites
  std::uint64_t current_bytes_ = 0;  // written, maybe not yet synced
  std::uint64_t last_seq_ = 0;
  audit::ChainHead head_;  // the last record written
  audit::ChainHead predecessor_last_;  // the last record of .1
  const std::uint64_t rotate_bytes_;
  std::unique_ptr<HeadAnchor> anchor_;
  std::string pending_;  // lines not yet written to the current file
  bool unsynced_ = false;
  bool rotation_held_ = false;  // logged once per hold
  // kNoSnapshotGate until set_snapshot_covers() (unit tests rotate freely).
  static constexpr std::uint64_t kNoSnapshotGate = UINT64_MAX;
  std::atomic<std::uint64_t> snapshot_covers_{kNoSnapshotGate};
  JournalView synced_;
  const std::uint64_t max_seq_at_open_;
  // Io thread.
  JournalView published_;
};

}  // namespace signaltty::broker
