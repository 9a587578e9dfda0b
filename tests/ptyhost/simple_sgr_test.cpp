// tests/ptyhost/simple_sgr_test.cpp: apply_simple_sgr (ptyhost/simple_sgr.hpp)
// against libvterm itself: wherever it takes an SGR, the pen it gives is the
// one libvterm's screen draws with after the same SGR, from the same pen.
#include "ptyhost/simple_sgr.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ptyhost/line_render.hpp"
#include "tests/ptyhost/vt_test_support.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string sgr_text(const Pen& pen) {
  std::string out;
  append_sgr(out, pen);
  return out;
}

// The pen libvterm's screen draws an X with, after `start` then `seq`.
Pen libvterm_pen(const Pen& start, const std::string& seq) {
  testing::ScreenOracle oracle(10, 2);
  oracle.feed(sgr_text(start) + seq + "X");
  return oracle.screen_row(0).cells[0].pen;
}

std::string describe(const Pen& pen) { return sgr_text(pen); }

// Pens to start from: the default, and one with every attribute and both
// colours set, so that each parameter has something to turn off.
std::vector<Pen> start_pens() {
  Pen full;
  full.attrs = attr::kBold | attr::kItalic | attr::kBlink | attr::kReverse | attr::kStrike |
               (2u << attr::kUnderlineShift) | (3u << attr::kFontShift);
  full.fg = Color::rgb(1, 2, 3);
  full.bg = Color::indexed(200);
  return {Pen{}, full};
}

void expect_agrees(const std::string& seq, int& taken) {
  for (const Pen& start : start_pens()) {
    const std::optional<Pen> ours = apply_simple_sgr(seq, start);
    if (!ours) continue;
    ++taken;
    EXPECT_EQ(describe(*ours), describe(libvterm_pen(start, seq)))
        << "SGR " << seq.substr(1) << " from " << describe(start).substr(1);
  }
}

TEST(SimpleSgr, EverySingleParameterItTakesAgreesWithLibvterm) {
  int taken = 0;
  for (int v = 0; v <= 110; ++v) expect_agrees("\x1b[" + std::to_string(v) + "m", taken);
  expect_agrees("\x1b[m", taken);
  expect_agrees("\x1b[;m", taken);
  expect_agrees("\x1b[1;m", taken);
  expect_agrees("\x1b[;1m", taken);
  EXPECT_GT(taken, 100);
}

TEST(SimpleSgr, ExtendedColoursAgreeWithLibvterm) {
  int taken = 0;
  for (const char* seq : {"\x1b[38;5;0m", "\x1b[38;5;7m", "\x1b[38;5;15m", "\x1b[38;5;208m",
                          "\x1b[48;5;255m", "\x1b[38;2;0;0;0m", "\x1b[48;2;255;128;1m",
                          "\x1b[1;38;5;9;48;2;10;20;30;4m", "\x1b[38;5;1;38;5;2m"})
    expect_agrees(seq, taken);
  EXPECT_EQ(taken, 18);
}

// Random lists of parameters, from the handled ones and the others.
TEST(SimpleSgr, RandomParameterListsAgreeWithLibvterm) {
  std::mt19937 rng(11);
  const std::vector<std::string> pieces = {
      "0", "1", "3", "4", "5", "7", "9", "12", "21", "22", "23", "24", "25", "27", "29", "31",
      "39", "44", "49", "93", "105", "38;5;77", "48;2;9;8;7", "", "2", "8", "28", "53", "38;5",
      "38;2;1;2", "48;5;300", "38;2;1;2;256"};
  int taken = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string seq = "\x1b[";
    for (int k = 1 + static_cast<int>(rng() % 5); k > 0; --k) {
      seq += pieces[rng() % pieces.size()];
      if (k > 1) seq += ';';
    }
    seq += 'm';
    expect_agrees(seq, taken);
  }
  EXPECT_GT(taken, 1000);
}

TEST(SimpleSgr, LeavesEverythingElseToLibvterm) {
  const Pen pen;
  for (const char* seq : {"\x1b[4:3m", "\x1b[?1m", "\x1b[>1m", "\x1b[1 m", "\x1b[1\nm", "\x1b[1H",
                          "\x1b]0;t\x07", "\x1b[", "\x1b[1000m", "\x1b[38m", "\x1b[38;5m",
                          "\x1b[38;5;256m", "\x1b[38;2;1;2m", "\x1b[38;3;1m", "\x1b[2m", "\x1b[8m",
                          "\x1b[1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1m"})
    EXPECT_FALSE(apply_simple_sgr(seq, pen).has_value()) << seq + 1;
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::ptyhost
