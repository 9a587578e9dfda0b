// tests/broker/audit_journal_test.cpp: audit.jsonl, its .1 and the
// retention evidence: record shape, rotation, the provability rules and
// replay reads bounded by captured lengths.
#include "broker/audit_journal.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/audit_verify.hpp"
#include "common/io_fault.hpp"
#include "common/limits.hpp"
#include "common/protocol/events.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;

// A directory of this test's own (tests/broker/temp_dir.hpp).
struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("signaltty-journal") {}
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void append_raw(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// Seq of the first record in a file (0 when missing): changes on rotation.
std::uint64_t first_seq_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return 0;
  return protocol::Json::parse(line)["seq"].get<std::uint64_t>();
}

StateEvent event(std::uint64_t seq, std::size_t filler_bytes = 0) {
  StateEvent ev;
  ev.seq = seq;
  ev.name = std::string(protocol::ev::NotificationCreated::name);
  ev.payload = {{"n", seq}, {"filler", std::string(filler_bytes, 'x')}};
  ev.at = "2026-01-01T00:00:00.000Z";
  return ev;
}

std::vector<StateEvent> events(std::uint64_t first, std::uint64_t last, std::size_t filler = 0) {
  std::vector<StateEvent> out;
  for (auto s = first; s <= last; ++s) out.push_back(event(s, filler));
  return out;
}

JournalRetention retention_in(const TempDir& dir) {
  auto j = protocol::Json::parse(slurp(dir.file("audit-retention.json")));
  auto r = protocol::decode<JournalRetention>(j);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : JournalRetention{};
}

std::unique_ptr<AuditJournal> open_ok(const TempDir& dir) {
  auto j = AuditJournal::open(dir.path());
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  return j.ok() ? std::move(j).value() : nullptr;
}

void write_and_sync(AuditJournal& journal, const std::vector<StateEvent>& evs) {
  ASSERT_TRUE(journal.write_batch(evs).ok());
  ASSERT_TRUE(journal.sync().ok());
}

std::vector<std::uint64_t> seqs_of(const std::vector<StateEvent>& evs) {
  std::vector<std::uint64_t> out;
  for (const auto& e : evs) out.push_back(e.seq);
  return out;
}

// A record of ~1 MiB: nine of them cross the 8 MiB threshold.
constexpr std::size_t kBigFiller = 1u << 20;
// Bounds every write-until-rotated loop: a journal that stops rotating (or
// writing) fails the test instead of filling the disk.
constexpr int kRotateTries = 64;
bool rotated(const TempDir& dir) {
  return stdfs::exists(dir.file("audit.jsonl.1")) || ::testing::Test::HasFatalFailure();
}

TEST(AuditJournal, FreshDirectoryIsProvableAndEmpty) {
  TempDir dir;
  auto journal = open_ok(dir);
  ASSERT_TRUE(journal);
  EXPECT_TRUE(journal->history_provable());
  EXPECT_EQ(journal->max_seq(), 0u);
  EXPECT_EQ(journal->retained_after(), 0u);
  auto r = retention_in(dir);
  EXPECT_TRUE(r.known_complete);
  EXPECT_FALSE(r.predecessor);
  EXPECT_EQ(r.current_bytes, 0u);
}

TEST(AuditJournal, AppendsOneRecordLinePerEventAndRecordsItsLength) {
  TempDir dir;
  auto journal = open_ok(dir);
  write_and_sync(*journal, events(1, 3));
  const std::string text = slurp(dir.file("audit.jsonl"));
  auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("{\"seq\":1,\"event\":\"notification.created\",\"payload\":{", 0), 0u);
  auto rec = protocol::Json::parse(lines[2]);
  EXPECT_EQ(rec["seq"], 3);
  EXPECT_EQ(rec["payload"]["n"], 3);
  EXPECT_EQ(rec["at"], "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(retention_in(dir).current_bytes, text.size());
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("audit.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(AuditJournal, ReopenKeepsHistoryProvableAndFindsTheHighestSeq) {
  TempDir dir;
  write_and_sync(*open_ok(dir), events(5, 9));
  auto journal = open_ok(dir);
  EXPECT_TRUE(journal->history_provable());
  EXPECT_EQ(journal->max_seq(), 9u);
}

TEST(AuditJournal, RefusesSeqsThatDoNotIncrease) {
  TempDir dir;
  auto journal = open_ok(dir);
  write_and_sync(*journal, events(1, 2));
  auto st = journal->write_batch({event(2)});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::Internal);
}

TEST(AuditJournal, RotatesPastThresholdKeepingOnePredecessor) {
  TempDir dir;
  auto journal = open_ok(dir);
  std::uint64_t seq = 0;
  std::uint64_t first_generation_max = 0;
  // First generation: records until the file crosses the threshold.
  for (int n = 0; n < kRotateTries && !rotated(dir); ++n) {
    first_generation_max = seq;
    write_and_sync(*journal, {event(++seq, kBigFiller)});
  }
  auto r1 = retention_in(dir);
  EXPECT_TRUE(r1.predecessor);
  EXPECT_EQ(r1.retained_after, 0u) << "nothing was discarded by the first rotation";
  EXPECT_EQ(r1.predecessor_bytes, stdfs::file_size(dir.file("audit.jsonl.1")));
  EXPECT_GE(r1.predecessor_bytes, limits::kJournalRotateBytes);
  EXPECT_LT(r1.predecessor_bytes, limits::kJournalRotateBytes + 2 * kBigFiller)
      << "a file exceeds the threshold by at most the crossing record";

  // Second generation: the first .1 is discarded.
  const std::uint64_t second_generation_first = seq;
  while (first_seq_of(dir.file("audit.jsonl.1")) == 1)
    write_and_sync(*journal, {event(++seq, kBigFiller)});
  auto r2 = retention_in(dir);
  EXPECT_EQ(r2.retained_after, first_generation_max);
  EXPECT_EQ(r2.predecessor_bytes, stdfs::file_size(dir.file("audit.jsonl.1")));
  EXPECT_EQ(r2.current_bytes, stdfs::file_size(dir.file("audit.jsonl")));
  EXPECT_TRUE(r2.known_complete);
  EXPECT_FALSE(stdfs::exists(dir.file("audit.jsonl.2")));
  EXPECT_EQ(first_seq_of(dir.file("audit.jsonl.1")), second_generation_first);
  EXPECT_EQ(journal->durable_view().retained_after, first_generation_max);

  auto reopened = open_ok(dir);
  EXPECT_TRUE(reopened->history_provable());
  EXPECT_EQ(reopened->retained_after(), first_generation_max);
  EXPECT_EQ(reopened->max_seq(), seq);
}

TEST(AuditJournal, LegacyJournalWithoutRetentionIsUnprovable) {
  TempDir dir;
  append_raw(dir.file("audit.jsonl"), AuditJournal::encode_record(event(3)) + "\n" +
                                          AuditJournal::encode_record(event(7)) + "\n");
  auto journal = open_ok(dir);
  EXPECT_FALSE(journal->history_provable());
  EXPECT_EQ(journal->max_seq(), 7u);
  EXPECT_EQ(journal->retained_after(), 7u);
  auto r = retention_in(dir);
  EXPECT_FALSE(r.known_complete);
  EXPECT_EQ(r.retained_after, 7u);
}

TEST(AuditJournal, EmptyJournalNextToAReservationIsUnprovable) {
  TempDir dir;
  append_raw(dir.file("event-sequence.json"), "8192\n");
  auto journal = open_ok(dir);
  EXPECT_FALSE(journal->history_provable());
}

TEST(AuditJournal, TornLastLineGetsANewlineAndMakesHistoryUnprovable) {
  TempDir dir;
  write_and_sync(*open_ok(dir), events(1, 2));
  append_raw(dir.file("audit.jsonl"), "{\"seq\":3,\"ev");
  auto journal = open_ok(dir);
  EXPECT_FALSE(journal->history_provable());
  EXPECT_EQ(slurp(dir.file("audit.jsonl")).back(), '\n');
  write_and_sync(*journal, events(3, 4));
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(protocol::Json::parse(lines[3])["seq"], 3) << "appends start on a fresh line";
}

TEST(AuditJournal, UnprovableIsStickyAcrossAppendsAndRestarts) {
  TempDir dir;
  write_and_sync(*open_ok(dir), events(1, 2));
  append_raw(dir.file("audit.jsonl"), "{\"torn");
  write_and_sync(*open_ok(dir), events(3, 3));
  auto journal = open_ok(dir);
  EXPECT_FALSE(journal->history_provable());
  EXPECT_FALSE(retention_in(dir).known_complete);
  write_and_sync(*journal, events(4, 4));
  EXPECT_FALSE(journal->durable_view().provable);
  EXPECT_FALSE(open_ok(dir)->history_provable());
}

TEST(AuditJournal, TruncatedFileMakesHistoryUnprovable) {
  TempDir dir;
  write_and_sync(*open_ok(dir), events(1, 3));
  const std::string text = slurp(dir.file("audit.jsonl"));
  auto lines = lines_of(text);
  stdfs::resize_file(dir.file("audit.jsonl"), text.size() - lines.back().size() - 1);
  EXPECT_FALSE(open_ok(dir)->history_provable());
}

// Each sync rewrites the evidence in place: the same inode, one 512-byte
// sector, still a plain JSON object for any reader.
TEST(AuditJournal, EvidenceIsOneSectorRewrittenInPlace) {
  TempDir dir;
  auto journal = open_ok(dir);
  struct stat before {};
  ASSERT_EQ(::stat(dir.file("audit-retention.json").c_str(), &before), 0);
  write_and_sync(*journal, events(1, 2));
  write_and_sync(*journal, events(3, 3));
  struct stat after {};
  ASSERT_EQ(::stat(dir.file("audit-retention.json").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_size, 512);
  EXPECT_EQ(after.st_mode & 0777, 0600u);
  const std::string text = slurp(dir.file("audit-retention.json"));
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(retention_in(dir).current_bytes, slurp(dir.file("audit.jsonl")).size());
  EXPECT_TRUE(open_ok(dir)->history_provable());
}

// A rewrite torn anywhere in the object (new head, old tail) never reads
// as provable; only the padding may be torn without changing the content.
TEST(AuditJournal, TornEvidenceRewriteMakesHistoryUnprovable) {
  TempDir dir;
  auto journal = open_ok(dir);
  write_and_sync(*journal, events(1, 1));
  const std::string old_text = slurp(dir.file("audit-retention.json"));
  write_and_sync(*journal, events(2, 9, 100));
  journal.reset();
  const std::string new_text = slurp(dir.file("audit-retention.json"));
  ASSERT_EQ(old_text.size(), new_text.size());
  const std::size_t object_end = new_text.find_last_not_of(" \n") + 1;
  int torn_checked = 0;
  for (std::size_t keep = 0; keep < object_end; ++keep) {
    const std::string torn = new_text.substr(0, keep) + old_text.substr(keep);
    if (torn == new_text) continue;
    std::ofstream(dir.file("audit-retention.json"), std::ios::binary | std::ios::trunc) << torn;
    EXPECT_FALSE(open_ok(dir)->history_provable()) << "torn after byte " << keep;
    ++torn_checked;
  }
  EXPECT_GT(torn_checked, 0);
}

TEST(AuditJournal, MissingPredecessorMakesHistoryUnprovable) {
  TempDir dir;
  {
    auto journal = open_ok(dir);
    std::uint64_t seq = 0;
    for (int n = 0; n < kRotateTries && !rotated(dir); ++n)
      write_and_sync(*journal, {event(++seq, kBigFiller)});
  }
  stdfs::remove(dir.file("audit.jsonl.1"));
  EXPECT_FALSE(open_ok(dir)->history_provable());
}

TEST(AuditJournal, RotationStopsWhenAProvablePredecessorNoLongerReadsBack) {
  TempDir dir;
  auto journal = open_ok(dir);
  std::uint64_t seq = 0;
  for (int n = 0; n < kRotateTries && !rotated(dir); ++n)
    write_and_sync(*journal, {event(++seq, kBigFiller)});
  append_raw(dir.file("audit.jsonl.1"), "garbage\n");
  Status st;
  for (int i = 0; i < 64 && st.ok(); ++i) st = journal->write_batch({event(++seq, kBigFiller)});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::IoError);
  EXPECT_FALSE(stdfs::exists(dir.file("audit.jsonl.2")));
}

TEST(AuditJournal, ReadRecordsStopsAtTheCapturedLengths) {
  TempDir dir;
  auto journal = open_ok(dir);
  write_and_sync(*journal, events(1, 10));
  journal->publish_view(journal->durable_view());
  JournalCapture cap = journal->capture();
  write_and_sync(*journal, events(11, 15));  // durable, but not in the capture
  EXPECT_TRUE(cap.provable);
  auto recs = AuditJournal::read_records(cap, 3, 100);
  ASSERT_TRUE(recs.ok());
  EXPECT_EQ(seqs_of(*recs), (std::vector<std::uint64_t>{4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ((*recs)[0].name, protocol::ev::NotificationCreated::name);
  EXPECT_EQ((*recs)[0].payload["n"], 4);
}

TEST(AuditJournal, ReadRecordsHonoursTheThroughFenceAndFilter) {
  TempDir dir;
  auto journal = open_ok(dir);
  write_and_sync(*journal, events(1, 20));
  journal->publish_view(journal->durable_view());
  JournalCapture cap = journal->capture();
  auto even = [](const StateEvent& e) { return e.seq % 2 == 0; };
  auto recs = AuditJournal::read_records(cap, 0, 12, even, 3);
  ASSERT_TRUE(recs.ok());
  EXPECT_EQ(seqs_of(*recs), (std::vector<std::uint64_t>{2, 4, 6, 8})) << "max_kept + 1";
  JournalCapture cap2 = journal->capture();
  auto all = AuditJournal::read_records(cap2, 15, 18);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(seqs_of(*all), (std::vector<std::uint64_t>{16, 17, 18}));
}

TEST(AuditJournal, CaptureReadsBothGenerationsEvenAfterALaterRotation) {
  TempDir dir;
  auto journal = open_ok(dir);
  std::uint64_t seq = 0;
  for (int n = 0; n < kRotateTries && !rotated(dir); ++n)
    write_and_sync(*journal, {event(++seq, kBigFiller)});
  write_and_sync(*journal, {event(++seq)});
  journal->publish_view(journal->durable_view());
  JournalCapture cap = journal->capture();
  ASSERT_EQ(cap.files.size(), 2u);
  const std::uint64_t captured_head = seq;
  // Two more rotations discard every file the capture holds.
  for (int rotations = 0; rotations < 2;) {
    auto before = first_seq_of(dir.file("audit.jsonl.1"));
    write_and_sync(*journal, {event(++seq, kBigFiller)});
    if (first_seq_of(dir.file("audit.jsonl.1")) != before) ++rotations;
  }
  auto recs = AuditJournal::read_records(cap, 0, captured_head);
  ASSERT_TRUE(recs.ok()) << recs.error().message;
  ASSERT_EQ(recs->size(), captured_head);
  EXPECT_EQ(recs->front().seq, 1u);
  EXPECT_EQ(recs->back().seq, captured_head);
}

// ---- a rotation never discards what no saved snapshot reflects ---------
// (decision 25; docs/persistence.md, "Nothing acknowledged is lost")

// Small files, so a few records of kHoldFiller bytes rotate.
constexpr std::uint64_t kHoldRotateBytes = 4096;
constexpr std::size_t kHoldFiller = 1000;

std::unique_ptr<AuditJournal> open_small(const TempDir& dir) {
  auto j = AuditJournal::open(dir.path(), JournalOptions{.rotate_bytes = kHoldRotateBytes});
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  return j.ok() ? std::move(j).value() : nullptr;
}

void write_through(AuditJournal& journal, std::uint64_t& seq, std::uint64_t last) {
  while (seq < last && !::testing::Test::HasFatalFailure())
    write_and_sync(journal, {event(++seq, kHoldFiller)});
}

TEST(AuditJournalSnapshotHold, RotationWaitsUntilASnapshotReflectsThePredecessor) {
  TempDir dir;
  auto journal = open_small(dir);
  ASSERT_TRUE(journal);
  journal->set_snapshot_covers(0);
  std::uint64_t seq = 0;
  write_through(*journal, seq, 10);  // the first rotation discards nothing
  const std::string pred = dir.file("audit.jsonl.1");
  ASSERT_EQ(first_seq_of(pred), 1u);

  write_through(*journal, seq, 30);  // a second would discard 1…: it waits
  EXPECT_EQ(first_seq_of(pred), 1u);
  EXPECT_GT(stdfs::file_size(dir.file("audit.jsonl")), 2 * kHoldRotateBytes);

  journal->set_snapshot_covers(seq);  // a snapshot now reflects all of it
  write_through(*journal, seq, 31);
  EXPECT_GT(first_seq_of(pred), 1u);
}

TEST(AuditJournalSnapshotHold, WithoutASnapshotGateRotationIsBySizeAlone) {
  TempDir dir;
  auto journal = open_small(dir);
  ASSERT_TRUE(journal);
  std::uint64_t seq = 0;
  write_through(*journal, seq, 30);
  EXPECT_GT(first_seq_of(dir.file("audit.jsonl.1")), 1u);
  EXPECT_LT(stdfs::file_size(dir.file("audit.jsonl")), 2 * kHoldRotateBytes);
}

// ---- I/O faults at rotation (docs/persistence.md, "I/O faults") ---------

// Single synced records until the next append rotates.
std::uint64_t fill_to_threshold(const TempDir& dir, AuditJournal& journal, std::uint64_t seq) {
  for (int n = 0; n < kRotateTries && !::testing::Test::HasFatalFailure() &&
                  stdfs::file_size(dir.file("audit.jsonl")) < limits::kJournalRotateBytes;
       ++n)
    write_and_sync(journal, {event(++seq, kBigFiller)});
  return seq;
}

class RotationFault : public ::testing::TestWithParam<io_fault::Op> {
 protected:
  void TearDown() override { io_fault::disarm(); }
};

// The evidence is rewritten before the rename: a rotation that fails puts
// it back, so the restart finds the history provable and verify clean.
TEST_P(RotationFault, FailedRotationLeavesEvidenceThatMatchesTheFiles) {
  TempDir dir;
  std::uint64_t seq = 0;
  {
    auto journal = open_ok(dir);
    seq = fill_to_threshold(dir, *journal, seq);
    io_fault::arm({io_fault::Target::Journal, GetParam(), 1, EIO, io_fault::Mode::FromNOn});
    Status st = journal->write_batch({event(++seq)});
    io_fault::disarm();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("Input/output error"), std::string::npos);
  }
  EXPECT_FALSE(stdfs::exists(dir.file("audit.jsonl.1")));
  auto reopened = open_ok(dir);
  EXPECT_TRUE(reopened->history_provable());
  std::ofstream(dir.file("event-sequence.json")) << seq << "\n";
  const audit::VerifyReport report = audit::verify_state_dir(dir.path());
  EXPECT_EQ(report.outcome, audit::Outcome::Clean) << report.reason;
}

INSTANTIATE_TEST_SUITE_P(EachOp, RotationFault,
                         ::testing::Values(io_fault::Op::Write, io_fault::Op::Fsync,
                                           io_fault::Op::Rename),
                         [](const ::testing::TestParamInfo<io_fault::Op>& info) {
                           switch (info.param) {
                             case io_fault::Op::Write: return std::string("Write");
                             case io_fault::Op::Fsync: return std::string("Fsync");
                             case io_fault::Op::Rename: return std::string("Rename");
                           }
                           return std::string("Op");
                         });

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
