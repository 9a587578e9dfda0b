// tests/broker/audit_journal_snapshot_hold_test.cpp: a rotation never
// discards records that no saved snapshot reflects (decision 25;
// docs/persistence.md, "Nothing acknowledged is lost").
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/audit_journal.hpp"
#include "common/protocol/events.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("signaltty-journal-hold") {}
};

// Small files, so a few records rotate.
constexpr std::uint64_t kRotateBytes = 4096;
constexpr std::size_t kFillerBytes = 1000;

StateEvent event(std::uint64_t seq) {
  StateEvent ev;
  ev.seq = seq;
  ev.name = std::string(protocol::ev::NotificationCreated::name);
  ev.payload = {{"n", seq}, {"filler", std::string(kFillerBytes, 'x')}};
  ev.at = "2026-01-01T00:00:00.000Z";
  return ev;
}

// Seq of the first record in a file (0 when missing).
std::uint64_t first_seq_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return 0;
  return protocol::Json::parse(line)["seq"].get<std::uint64_t>();
}

void write_through(AuditJournal& journal, std::uint64_t& seq, std::uint64_t last) {
  while (seq < last) {
    ASSERT_TRUE(journal.write_batch({event(++seq)}).ok());
    ASSERT_TRUE(journal.sync().ok());
  }
}

TEST(AuditJournalSnapshotHold, RotationWaitsUntilASnapshotReflectsThePredecessor) {
  TempDir dir;
  auto opened = AuditJournal::open(dir.path(), JournalOptions{.rotate_bytes = kRotateBytes});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  AuditJournal& journal = **opened;
  journal.set_snapshot_covers(0);
  std::uint64_t seq = 0;
  write_through(journal, seq, 10);  // the first rotation discards nothing
  const std::string pred = dir.file("audit.jsonl.1");
  ASSERT_EQ(first_seq_of(pred), 1u);

  write_through(journal, seq, 30);  // a second would discard 1…: it waits
  EXPECT_EQ(first_seq_of(pred), 1u);
  EXPECT_GT(std::filesystem::file_size(dir.file("audit.jsonl")), 2 * kRotateBytes);

  journal.set_snapshot_covers(seq);  // a snapshot now reflects all of it
  write_through(journal, seq, 31);
  EXPECT_GT(first_seq_of(pred), 1u);
}

TEST(AuditJournalSnapshotHold, WithoutASnapshotGateRotationIsBySizeAlone) {
  TempDir dir;
  auto opened = AuditJournal::open(dir.path(), JournalOptions{.rotate_bytes = kRotateBytes});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  std::uint64_t seq = 0;
  write_through(**opened, seq, 30);
  EXPECT_GT(first_seq_of(dir.file("audit.jsonl.1")), 1u);
  EXPECT_LT(std::filesystem::file_size(dir.file("audit.jsonl")), 2 * kRotateBytes);
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::broker
