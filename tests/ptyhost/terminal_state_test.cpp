// tests/ptyhost/terminal_state_test.cpp: the live-upgrade blob restores a
// Terminal that reads, snapshots and goes on exactly like the original.
#include <gtest/gtest.h>

#include <random>

#include "ptyhost/terminal.hpp"
#include "tests/ptyhost/vt_test_support.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::unique_ptr<Terminal> round_trip(Terminal& terminal) {
  auto restored = Terminal::deserialize(terminal.serialize());
  EXPECT_TRUE(restored.ok()) << (restored.ok() ? "" : restored.error().message);
  return restored.ok() ? std::move(restored).value() : nullptr;
}

void expect_same(Terminal& a, Terminal& b, const std::string& context) {
  EXPECT_EQ(testing::grid_diff(a.screen(), b.screen()), "") << context;
  EXPECT_EQ(testing::grid_diff(a.main_screen(), b.main_screen()), "") << context;
  EXPECT_EQ(a.cursor(), b.cursor()) << context;
  EXPECT_EQ(a.alt_screen_active(), b.alt_screen_active()) << context;
  EXPECT_EQ(a.screen_text(TextStyle::Ansi), b.screen_text(TextStyle::Ansi)) << context;
  EXPECT_EQ(a.tail(5000, TextStyle::Ansi).text, b.tail(5000, TextStyle::Ansi).text) << context;
  for (std::uint64_t after : {std::uint64_t{0}, a.head_seq() / 2, a.head_seq()}) {
    const RenderedRead x = a.rendered(after, 5000, TextStyle::Plain);
    const RenderedRead y = b.rendered(after, 5000, TextStyle::Plain);
    EXPECT_EQ(x.text, y.text) << context;
    EXPECT_EQ(x.seq, y.seq) << context;
    EXPECT_EQ(x.next_seq, y.next_seq) << context;
    EXPECT_EQ(x.dropped, y.dropped) << context;
  }
  EXPECT_EQ(a.scrollback_len(), b.scrollback_len()) << context;
  EXPECT_EQ(a.title(), b.title()) << context;
  EXPECT_EQ(a.modes(), b.modes()) << context;
  EXPECT_EQ(a.snapshot_vt(), b.snapshot_vt()) << context;
}

// Streams whose state a restore carries: no DECSC saved cursor, custom tab
// stops or double-width lines.
testing::StreamMix carried_mix() {
  testing::StreamMix mix;
  mix.saved_cursor = false;
  mix.tab_stops = false;
  mix.double_width = false;
  return mix;
}

TEST(TerminalState, RoundTripKeepsReadsAndSnapshot) {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    Terminal terminal({.cols = static_cast<int>(20 + rng() % 100), .rows = static_cast<int>(4 + rng() % 30)});
    terminal.feed(testing::random_vt_stream(rng, 600, testing::StreamMix{}));
    auto restored = round_trip(terminal);
    ASSERT_TRUE(restored);
    expect_same(terminal, *restored, "seed " + std::to_string(seed));
  }
}

TEST(TerminalState, RestoredTerminalGoesOnLikeTheOriginal) {
  for (std::uint32_t seed = 200; seed < 260; ++seed) {
    std::mt19937 rng(seed);
    const TerminalSize size{static_cast<int>(20 + rng() % 100), static_cast<int>(4 + rng() % 30)};
    Terminal original(size);
    original.feed(testing::random_vt_stream(rng, 500, carried_mix()));
    auto restored = round_trip(original);
    ASSERT_TRUE(restored);
    const std::string more = testing::random_vt_stream(rng, 500, testing::StreamMix{});
    original.feed(more);
    restored->feed(more);
    expect_same(original, *restored, "seed " + std::to_string(seed));
    if (HasFailure()) return;
  }
}

// A cursor saved mid-feed is where libvterm's is: here right after a
// carriage return that found libvterm's cursor at column 0 already (the
// fast path had drawn the text before it without moving libvterm's).
TEST(TerminalState, CursorSavedRightAfterACarriageReturnIsCarried) {
  const std::pair<std::string, std::string> cases[] = {{"abcdefgh", "Ybcdefgh\n\n  Z"},
                                                       {"\x1b[5Gabcdefgh", "Y   abcdefgh\n\n  Z"}};
  for (const auto& [line, screen] : cases) {
    Terminal original({.cols = 40, .rows = 6});
    original.feed(line + "\r\x1b" "7\x1b[3;3HZ");
    auto restored = round_trip(original);
    ASSERT_TRUE(restored);
    original.feed("\x1b" "8Y");
    restored->feed("\x1b" "8Y");
    expect_same(original, *restored, line);
    EXPECT_EQ(original.screen_text(), screen) << line;
  }
}

TEST(TerminalState, SequenceAndCharacterCutByTheLastChunkAreCarried) {
  std::vector<std::string> cuts = {"\x1b[38;5;", "\x1b]2;tit", "\xe4\xb8", "\x1bP$q"};
  cuts.push_back("\x1b]2;" + std::string(9000, 'x'));  // a string being dropped
  for (const std::string& cut : cuts) {
    Terminal original({.cols = 30, .rows = 5});
    original.feed("before " + cut);
    auto restored = round_trip(original);
    ASSERT_TRUE(restored);
    for (Terminal* t : {&original, restored.get()}) t->feed("\x96\x07" "2m after\x1b\\ end");
    expect_same(original, *restored, "cut " + cut.substr(0, 12));
  }
}

TEST(TerminalState, HistoryWithSeqsAndDroppedFloorSurvive) {
  Terminal original({.cols = 20, .rows = 4});
  for (int i = 0; i < 6000; ++i) original.feed("line " + std::to_string(i) + "\r\n");
  original.clear_history();
  for (int i = 0; i < 50; ++i) original.feed("after " + std::to_string(i) + "\r\n");
  auto restored = round_trip(original);
  ASSERT_TRUE(restored);
  EXPECT_EQ(restored->head_seq(), original.head_seq());
  EXPECT_EQ(restored->ring().dropped_floor(), original.ring().dropped_floor());
  EXPECT_EQ(restored->ring().history(), original.ring().history());
  expect_same(original, *restored, "history");
}

// The alternate grid travels only while it is shown: a restored terminal
// shows the same alternate screen over the same main one, and goes back to
// the main screen as the original does.
TEST(TerminalState, AlternateScreenTravelsOnlyWhileShown) {
  Terminal original({.cols = 40, .rows = 8});
  original.feed("shell line\r\n$ top");
  const std::size_t main_only = original.serialize().size();
  original.feed("\x1b[?1049h\x1b[H\x1b[7m PID USER \x1b[0m\x1b[3;5H\x1b[32mload\x1b[0m");
  const std::string shown = original.serialize();
  EXPECT_GE(shown.size(), main_only + 40 * 8 * sizeof(Cell));
  auto restored = round_trip(original);
  ASSERT_TRUE(restored);
  EXPECT_TRUE(restored->alt_screen_active());
  expect_same(original, *restored, "alternate shown");
  for (Terminal* t : {&original, restored.get()}) t->feed("\x1b[?1049lback");
  expect_same(original, *restored, "after leaving");
  EXPECT_LT(original.serialize().size(), main_only + 40 * 8 * sizeof(Cell) / 4);
}

TEST(TerminalState, ForeignOrDamagedBlobsAreRejected) {
  Terminal terminal({.cols = 30, .rows = 6});
  terminal.feed("\x1b[1mhello\x1b[0m\r\nworld\x1b]2;t\x07");
  const std::string blob = terminal.serialize();
  EXPECT_FALSE(Terminal::deserialize("").ok());
  EXPECT_FALSE(Terminal::deserialize("not a terminal").ok());
  EXPECT_FALSE(Terminal::deserialize(blob.substr(0, blob.size() - 1)).ok());
  EXPECT_FALSE(Terminal::deserialize(blob + "x").ok());
  std::string other_version = blob;
  other_version[8 + 13] = 9;  // the version right after the length-prefixed magic
  const auto result = Terminal::deserialize(other_version);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadProtocol);
  std::mt19937 rng(9);
  for (int i = 0; i < 300; ++i) {
    std::string damaged = blob;
    for (int k = 0; k < 4; ++k) damaged[rng() % damaged.size()] = static_cast<char>(rng());
    (void)Terminal::deserialize(damaged);  // must not crash
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost
