// tests/broker/sequence_reservation_test.cpp: event-sequence.json: blocks
// reserved durably before issuance, restart above the ceiling, refusal of
// a reservation that cannot be trusted.
#include "broker/sequence_reservation.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/limits.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
constexpr std::uint64_t kBlock = limits::kSeqReservationBlock;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (stdfs::temp_directory_path() / "signaltty-seq-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    stdfs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string sequence_file() const { return path_ + "/event-sequence.json"; }

 private:
  std::string path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::uint64_t stored(const TempDir& dir) { return std::stoull(slurp(dir.sequence_file())); }

TEST(SequenceReservation, FreshStartReservesOneBlockAndIssuesFromOne) {
  TempDir dir;
  auto seq = SequenceReservation::open(dir.path(), 0);
  ASSERT_TRUE(seq.ok()) << seq.error().message;
  EXPECT_EQ(seq->head(), 0u);
  EXPECT_EQ(stored(dir), kBlock);
  auto n = seq->next();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1u);
  EXPECT_EQ(seq->head(), 1u);
}

TEST(SequenceReservation, MissingFileStartsAboveTheJournalMaximum) {
  TempDir dir;
  auto seq = SequenceReservation::open(dir.path(), 57);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(seq->head(), 57u);
  EXPECT_EQ(*seq->next(), 58u);
  EXPECT_EQ(stored(dir), 57 + kBlock);
}

TEST(SequenceReservation, RestartContinuesAboveTheReservedCeiling) {
  TempDir dir;
  std::uint64_t last_issued = 0;
  {
    auto seq = SequenceReservation::open(dir.path(), 0);
    ASSERT_TRUE(seq.ok());
    for (int i = 0; i < 3; ++i) last_issued = *seq->next();
  }
  const std::uint64_t old_ceiling = stored(dir);
  auto seq = SequenceReservation::open(dir.path(), last_issued);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(seq->head(), old_ceiling) << "unused numbers of the previous run are skipped";
  EXPECT_GT(*seq->next(), old_ceiling);
  EXPECT_EQ(stored(dir), old_ceiling + kBlock);
}

TEST(SequenceReservation, ReservesTheNextBlockBeforeIssuingPastIt) {
  TempDir dir;
  auto seq = SequenceReservation::open(dir.path(), 0);
  ASSERT_TRUE(seq.ok());
  for (std::uint64_t i = 1; i <= kBlock; ++i) ASSERT_EQ(*seq->next(), i);
  EXPECT_EQ(stored(dir), kBlock) << "the block is not renewed before it is used up";
  EXPECT_EQ(*seq->next(), kBlock + 1);
  EXPECT_EQ(stored(dir), 2 * kBlock);
  EXPECT_EQ(seq->reserved(), 2 * kBlock);
}

TEST(SequenceReservation, CorruptReservationFailsStartup) {
  for (const char* text : {"abc", "-5", "1.5", "", "\"12\"", "[1]", "12 13"}) {
    TempDir dir;
    put(dir.sequence_file(), text);
    auto seq = SequenceReservation::open(dir.path(), 0);
    ASSERT_FALSE(seq.ok()) << "accepted: " << text;
    EXPECT_EQ(seq.error().code, ErrorCode::IoError);
    EXPECT_EQ(slurp(dir.sequence_file()), text) << "a refused reservation is left as it was";
  }
}

TEST(SequenceReservation, CeilingBelowTheJournalMaximumFailsStartup) {
  TempDir dir;
  put(dir.sequence_file(), "10\n");
  auto seq = SequenceReservation::open(dir.path(), 20);
  ASSERT_FALSE(seq.ok());
  EXPECT_NE(seq.error().message.find("20"), std::string::npos);
}

TEST(SequenceReservation, FailedReservationWriteIssuesNothing) {
  TempDir dir;
  auto seq = SequenceReservation::open(dir.path(), 0);
  ASSERT_TRUE(seq.ok());
  for (std::uint64_t i = 1; i <= kBlock; ++i) ASSERT_TRUE(seq->next().ok());
  // A non-empty directory in its place: the rename of the new ceiling fails.
  stdfs::remove(dir.sequence_file());
  stdfs::create_directory(dir.sequence_file());
  put(dir.sequence_file() + "/occupied", "x");
  auto n = seq->next();
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, ErrorCode::IoError);
  EXPECT_EQ(seq->head(), kBlock);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
