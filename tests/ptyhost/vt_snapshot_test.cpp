// tests/ptyhost/vt_snapshot_test.cpp: the attach snapshot replays into a
// fresh Terminal and into a plain VTermScreen (the oracle) cell for cell,
// with cursor, modes and title.
#include "ptyhost/vt_snapshot.hpp"

#include <gtest/gtest.h>

#include <random>

#include "ptyhost/terminal.hpp"
#include "tests/ptyhost/vt_test_support.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::ScreenOracle;

// Replays `source`'s snapshot into a new Terminal and a VTermScreen and
// expects both to show what `source` shows.
void expect_snapshot_replays(Terminal& source, const std::string& context) {
  const std::string snapshot = source.snapshot_vt();
  Terminal replay(source.size());
  replay.feed(snapshot);
  ScreenOracle oracle(source.size().cols, source.size().rows);
  oracle.feed(snapshot);
  EXPECT_EQ(testing::grid_diff(replay.screen(), source.screen()), "") << context;
  EXPECT_EQ(oracle.diff(source.screen()), "") << context;
  EXPECT_EQ(replay.cursor(), source.cursor()) << context;
  EXPECT_EQ(oracle.cursor(), source.cursor()) << context;
  EXPECT_EQ(replay.alt_screen_active(), source.alt_screen_active()) << context;
  EXPECT_EQ(replay.modes(), source.modes()) << context;
  EXPECT_EQ(replay.title(), source.title()) << context;
  EXPECT_EQ(replay.icon_name(), source.icon_name()) << context;
}

TEST(VtSnapshot, StartsWithAFullReset) {
  Terminal terminal({.cols = 10, .rows = 3});
  EXPECT_EQ(terminal.snapshot_vt().substr(0, 2), "\x1b" "c");
}

TEST(VtSnapshot, AgentFixturesReplayCellForCell) {
  const auto fixtures = testing::agent_fixtures();
  ASSERT_EQ(fixtures.missing, std::vector<std::string>{}) << "agent captures missing";
  for (const auto& path : fixtures.captures) {
    const std::string raw = testing::read_file(path);
    for (const std::string& bytes : {raw, testing::capture_as_screen(raw)}) {
      Terminal terminal({.cols = 120, .rows = 40});
      terminal.feed(bytes);
      expect_snapshot_replays(terminal, path.string());
    }
  }
}

TEST(VtSnapshot, RandomStreamsReplayCellForCell) {
  testing::StreamMix mix;  // no double-width lines: a snapshot does not carry them
  mix.lr_margins = false;   // see StreamMix::lr_margins
  for (std::uint32_t seed = 1; seed <= 80; ++seed) {
    std::mt19937 rng(seed);
    const TerminalSize size{static_cast<int>(10 + rng() % 120), static_cast<int>(3 + rng() % 40)};
    Terminal terminal(size);
    for (int round = 0; round < 4; ++round) {
      terminal.feed(testing::random_vt_stream(rng, 120, mix));
      expect_snapshot_replays(terminal, "seed " + std::to_string(seed) + " round " +
                                            std::to_string(round));
      if (HasFailure()) return;
    }
  }
}

TEST(VtSnapshot, MainScreenUnderTheAlternateScreenComesBack) {
  Terminal terminal({.cols = 30, .rows = 6});
  terminal.feed("\x1b[33mshell\x1b[0m $ top\r\n");
  terminal.feed("\x1b[?1049h\x1b[H\x1b[7m PID USER \x1b[0m\x1b[3;5Hload 0.1");
  Terminal replay(terminal.size());
  replay.feed(terminal.snapshot_vt());
  EXPECT_EQ(testing::grid_diff(replay.screen(), terminal.screen()), "");
  terminal.feed("\x1b[?1049l");
  replay.feed("\x1b[?1049l");
  EXPECT_EQ(testing::grid_diff(replay.screen(), terminal.screen()), "");
  EXPECT_EQ(replay.cursor(), terminal.cursor());
}

TEST(VtSnapshot, SequenceCutByTheLastChunkEndsTheSnapshot) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed("ab\x1b]2;hal");
  const std::string snapshot = terminal.snapshot_vt();
  EXPECT_TRUE(snapshot.ends_with("\x1b]2;hal"));
  Terminal client(terminal.size());
  client.feed(snapshot);
  client.feed("f\x07" "cd");
  terminal.feed("f\x07" "cd");
  EXPECT_EQ(client.title(), "half");
  EXPECT_EQ(testing::grid_diff(client.screen(), terminal.screen()), "");
}

TEST(VtSnapshot, CursorWaitingToWrapStillWraps) {
  Terminal terminal({.cols = 10, .rows = 3});
  terminal.feed("0123456789");
  Terminal replay(terminal.size());
  replay.feed(terminal.snapshot_vt());
  terminal.feed("X");
  replay.feed("X");
  EXPECT_EQ(replay.screen_text(), "0123456789\nX");
  EXPECT_EQ(testing::grid_diff(replay.screen(), terminal.screen()), "");
}

TEST(VtSnapshot, ModesMarginsCharsetsAndPenAreRestored) {
  Terminal terminal({.cols = 40, .rows = 10});
  terminal.feed("\x1b[2;8r\x1b[?6h\x1b[3;4H\x1b[1;35;48;2;9;8;7m\x1b[?2004h\x1b[?1003h\x1b[?1015h"
                "\x1b=\x1b[?1h\x1b[?25l\x1b[6 q\x1b]1;icon\x07\x1b]2;title\x07\x1b(0\x1b[4h");
  expect_snapshot_replays(terminal, "modes");
  Terminal replay(terminal.size());
  replay.feed(terminal.snapshot_vt());
  terminal.feed("qq\r\nafter");
  replay.feed("qq\r\nafter");
  EXPECT_EQ(testing::grid_diff(replay.screen(), terminal.screen()), "");
  EXPECT_EQ(replay.cursor(), terminal.cursor());
}

TEST(VtSnapshot, OrphanedWideHalvesAreRebuilt) {
  Terminal terminal({.cols = 12, .rows = 3});
  terminal.feed("世界世界\x1b[1;2Hx\x1b[1;5Hy");  // overwrite a head's tail and a tail's head
  terminal.feed("\x1b[2;1H世界ab\x1b[2;1H\x1b[P");  // DCH leaves a tail in column 0
  terminal.feed("\x1b[3;9H世界\x1b[3;9H\x1b[@");  // ICH pushes a head into the last column
  expect_snapshot_replays(terminal, "orphans");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost
