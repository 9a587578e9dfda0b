// broker/journal_replay.hpp: the startup replay of decision 25: the state
// images of the journal's records after the snapshot's journal_seq are
// applied to the store restored from the snapshot, so every change a
// client got `ok` for is in the restored model (docs/rules.md
// (Persistence), "Journal replay").
// Runs in: broker (startup: after the snapshot loads, before ptyhosts are
// adopted and before the socket accepts).
// Never: stops the broker: a line that is no record, or a record whose
// image does not decode or fit, is logged (with its seq) and skipped.
//
// Usage (broker/server.cpp):
//   JournalReplayReport r = replay_journal(*journal, snapshot_journal_seq, store);
//   if (r.applied > 0) snapshots.mark_dirty();
#pragma once

#include <cstdint>

#include "broker/audit_journal.hpp"

namespace signaltty::broker {

class Store;

struct JournalReplayReport {
  std::uint64_t applied = 0;         // records whose image is in the store now
  std::uint64_t skipped = 0;         // records with an image that could not be applied
  std::uint64_t not_records = 0;     // lines that are no record
  std::uint64_t last_applied_seq = 0;
};

// Applies, in seq order, the state image of every record of `capture`
// (.1 then current) with a seq above `after_seq`; records without an image
// (all but the last of a transaction, or written by an older broker) are
// passed over. Seqs must increase: a record at or below the last one seen
// is skipped. Ends with the store's repairs when anything was applied.
JournalReplayReport replay_journal(JournalCapture capture, std::uint64_t after_seq, Store& store);

}  // namespace signaltty::broker
