// tests/ptyhost/line_arena_test.cpp: LineArena (ptyhost/line_arena.hpp): a
// FIFO of lines in shared chunks keeps every line's bytes and seq, frees a
// chunk once its last line is gone, and holds no more than its cap.
#include "ptyhost/line_arena.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string line_bytes(std::uint64_t seq, std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<char>((seq * 31 + i) & 0xff);
  return out;
}

// Against a deque of strings, through many chunk turnovers, lines of every
// size from empty to longer than a chunk.
TEST(LineArena, KeepsEveryLineInOrderThroughChunkTurnover) {
  constexpr std::size_t kCap = 300;
  LineArena arena(kCap);
  std::deque<std::pair<std::uint64_t, std::string>> model;
  std::mt19937 rng(7);
  for (std::uint64_t seq = 1; seq <= 20000; ++seq) {
    const std::size_t size = seq % 997 == 0 ? LineArena::kChunkBytes + 123 : rng() % 700;
    if (arena.full()) {
      ASSERT_EQ(model.size(), kCap);
      arena.pop_front();
      model.pop_front();
    }
    std::string bytes = line_bytes(seq, size);
    arena.push(seq, bytes);
    model.emplace_back(seq, std::move(bytes));
    if (seq % 1000 == 0 || seq % 997 == 0) {
      ASSERT_EQ(arena.size(), model.size());
      for (std::size_t i = 0; i < model.size(); ++i) {
        ASSERT_EQ(arena[i].seq, model[i].first) << "line " << i << " at seq " << seq;
        ASSERT_EQ(arena[i].bytes, model[i].second) << "line " << i << " at seq " << seq;
      }
    }
  }
  // 300 lines of at most 700 bytes (and one longer line) span a handful of
  // chunks, not the 20000 lines' worth that went through.
  EXPECT_LE(arena.memory_bytes(), 6 * LineArena::kChunkBytes + kCap * 32 + 2 * LineArena::kChunkBytes);
}

TEST(LineArena, AViewStaysValidWhileNewerLinesArrive) {
  LineArena arena(5000);
  arena.push(1, "the first line");
  const std::string_view first = arena.front().bytes;
  for (std::uint64_t seq = 2; seq < 3000; ++seq) arena.push(seq, line_bytes(seq, 100));
  EXPECT_EQ(first, "the first line");
  EXPECT_EQ(arena.front().bytes.data(), first.data());
}

TEST(LineArena, PoppingEverythingFreesAllButTheNewestChunk) {
  LineArena arena(5000);
  for (std::uint64_t seq = 1; seq <= 4000; ++seq) arena.push(seq, line_bytes(seq, 200));
  const std::size_t full = arena.memory_bytes();
  while (!arena.empty()) arena.pop_front();
  EXPECT_LT(arena.memory_bytes(), full / 5);
  EXPECT_LE(arena.memory_bytes(), LineArena::kChunkBytes + 5000 * 32);
  // Usable again, from the start of its one chunk.
  arena.push(4001, "again");
  ASSERT_EQ(arena.size(), 1u);
  EXPECT_EQ(arena.front().seq, 4001u);
  EXPECT_EQ(arena.front().bytes, "again");
}

TEST(LineArena, ClearForgetsEveryLineAndChunk) {
  LineArena arena(10);
  for (std::uint64_t seq = 1; seq <= 10; ++seq) arena.push(seq, line_bytes(seq, 50));
  EXPECT_TRUE(arena.full());
  arena.clear();
  EXPECT_TRUE(arena.empty());
  EXPECT_EQ(arena.memory_bytes(), 0u);
  arena.push(11, "");
  arena.push(12, "twelve");
  ASSERT_EQ(arena.size(), 2u);
  EXPECT_EQ(arena[0].bytes, "");
  EXPECT_EQ(arena[1].seq, 12u);
  EXPECT_EQ(arena[1].bytes, "twelve");
}

TEST(LineArena, PushingIntoAFullArenaIsABug) {
  LineArena arena(2);
  arena.push(1, "a");
  arena.push(2, "b");
  EXPECT_DEATH(arena.push(3, "c"), "line cap");
  EXPECT_DEATH((void)arena[2], "past the end");
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::ptyhost
