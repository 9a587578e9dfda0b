// broker/journal_replay.cpp: applies the journal's state images after the
// snapshot's journal_seq (decision 25; docs/rules.md (Persistence),
// "Journal replay").
// Runs in: broker (startup). Never: fails the start because of what the
// journal holds; never applies a record out of seq order.
#include "broker/journal_replay.hpp"

#include <string>
#include <utility>

#include "broker/store.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

void skip(JournalReplayReport& report, std::uint64_t seq, const std::string& event,
          const std::string& why) {
  ++report.skipped;
  log::warn("journal replay: record " + std::to_string(seq) + " (" + event +
            ") skipped: " + why);
}

// One record: its image decoded and applied, all or nothing.
void apply_line(ReplayLine line, std::uint64_t& last_seq, Store& store,
                JournalReplayReport& report) {
  if (!line.seq) {
    ++report.not_records;
    return;
  }
  const std::uint64_t seq = *line.seq;
  if (seq <= last_seq)
    return skip(report, seq, line.event, "not above the previous record " + std::to_string(last_seq));
  last_seq = seq;
  if (line.state.is_null()) return;
  auto image = protocol::decode<StateImage>(line.state, "state");
  if (!image.ok()) return skip(report, seq, line.event, image.error().message);
  if (Status applied = store.apply_state_image(std::move(image).value()); !applied.ok())
    return skip(report, seq, line.event, applied.error().message);
  ++report.applied;
  report.last_applied_seq = seq;
}

}  // namespace

JournalReplayReport replay_journal(JournalCapture capture, std::uint64_t after_seq, Store& store) {
  JournalReplayReport report;
  if (capture.retained_after > after_seq)
    log::warn("journal replay: the journal no longer holds records " +
              std::to_string(after_seq + 1) + " to " + std::to_string(capture.retained_after) +
              "; their changes are lost unless the snapshot has them");
  std::uint64_t last_seq = after_seq;
  Status read = AuditJournal::for_each_replay_line(capture, after_seq, [&](ReplayLine line) {
    apply_line(std::move(line), last_seq, store, report);
  });
  if (!read.ok()) log::error("journal replay: reading the journal failed: " + read.error().message);
  if (report.applied > 0) store.repair_after_replay();
  if (report.not_records > 0)
    log::warn("journal replay: " + std::to_string(report.not_records) +
              " journal lines are no records; skipped");
  log::info("journal replay: " + std::to_string(report.applied) + " records applied after seq " +
            std::to_string(after_seq) + ", " + std::to_string(report.skipped) + " skipped");
  return report;
}

}  // namespace signaltty::broker
