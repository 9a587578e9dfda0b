// tests/cli/output_cursor_test.cpp: the offset rules an attach
// client applies to pty.data chunks (docs/rules.md, "Attach / detach").
#include "cli/output_cursor.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(OutputOffsets, ChunkEndingAtOrBeforeTheSnapshotIsSkipped) {
  EXPECT_EQ(place_chunk(100, 100, "0123456789").action, ChunkAction::Skip);
  EXPECT_EQ(place_chunk(100, 50, "0123456789").action, ChunkAction::Skip);
}

TEST(OutputOffsets, ChunkStraddlingTheSnapshotIsTrimmedToItsNewBytes) {
  ChunkVerdict verdict = place_chunk(100, 105, "0123456789");  // bytes [95, 105)
  EXPECT_EQ(verdict.action, ChunkAction::Write);
  EXPECT_EQ(verdict.bytes, "56789");
}

TEST(OutputOffsets, ChunkStartingAtTheSnapshotIsWrittenWhole) {
  ChunkVerdict verdict = place_chunk(100, 110, "0123456789");
  EXPECT_EQ(verdict.action, ChunkAction::Write);
  EXPECT_EQ(verdict.bytes, "0123456789");
}

TEST(OutputOffsets, ChunkStartingPastTheSnapshotIsAGap) {
  EXPECT_EQ(place_chunk(100, 111, "0123456789").action, ChunkAction::Gap);
}

TEST(OutputOffsets, AChunkLongerThanItsEndOffsetDoesNotUnderflow) {
  ChunkVerdict verdict = place_chunk(0, 3, "0123456789");
  EXPECT_EQ(verdict.action, ChunkAction::Write);
  EXPECT_EQ(verdict.bytes, "789");
}

TEST(OutputOffsets, EmptyChunkPastTheSnapshotIsAGap) {
  EXPECT_EQ(place_chunk(5, 6, "").action, ChunkAction::Gap);
  EXPECT_EQ(place_chunk(5, 5, "").action, ChunkAction::Skip);
}

TEST(OutputOffsets, OffsetsNearTheTopOfTheRangeStillCompare) {
  const auto top = std::numeric_limits<std::uint64_t>::max();
  ChunkVerdict verdict = place_chunk(top - 2, top, "abcd");
  EXPECT_EQ(verdict.action, ChunkAction::Write);
  EXPECT_EQ(verdict.bytes, "cd");
}

TEST(OutputCursor, AdvancesOnlyOnWrites) {
  OutputCursor cursor;
  cursor.reset(10);
  EXPECT_EQ(cursor.accept(10, "0123456789").action, ChunkAction::Skip);
  EXPECT_EQ(cursor.covered(), 10u);
  EXPECT_EQ(cursor.accept(12, "89AB").bytes, "AB");
  EXPECT_EQ(cursor.covered(), 12u);
  EXPECT_EQ(cursor.accept(14, "CD").bytes, "CD");
  EXPECT_EQ(cursor.accept(20, "XY").action, ChunkAction::Gap);
  EXPECT_EQ(cursor.covered(), 14u) << "a gap does not move the cursor";
}

TEST(OutputCursor, ReplayingTheSameChunkTwiceWritesItOnce) {
  OutputCursor cursor;
  cursor.reset(0);
  EXPECT_EQ(cursor.accept(4, "abcd").action, ChunkAction::Write);
  EXPECT_EQ(cursor.accept(4, "abcd").action, ChunkAction::Skip);
}

TEST(OutputCursor, AFreshSnapshotMovesTheCursorEitherWay) {
  OutputCursor cursor;
  cursor.reset(50);
  cursor.reset(20);
  EXPECT_EQ(cursor.covered(), 20u);
  EXPECT_EQ(cursor.accept(25, "vwxyz").bytes, "vwxyz");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
