// tests/ptyhost/rendered_ring_test.cpp: the rendered ring's reads as
// docs/rules.md "Rendered ring" and "Reads" describe them.
#include "ptyhost/rendered_ring.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <random>

#include "ptyhost/terminal.hpp"
#include "tests/ptyhost/vt_test_support.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string lines(int first, int last) {
  std::string out;
  for (int i = first; i <= last; ++i) out += "line " + std::to_string(i) + "\r\n";
  return out;
}

std::string joined(int first, int last) {
  std::string out;
  for (int i = first; i <= last; ++i) out += (i == first ? "" : "\n") + ("line " + std::to_string(i));
  return out;
}

RenderedRead read_new(const Terminal& terminal, std::uint64_t after) {
  return terminal.rendered(after, limits::kReadMaxLines, TextStyle::Plain);
}

TEST(RenderedRing, LinesScrolledOffTheTopEnterHistoryInOrder) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed(lines(1, 5));
  EXPECT_EQ(terminal.scrollback_len(), 3u);
  EXPECT_EQ(terminal.tail(100, TextStyle::Plain).text, joined(1, 5));
  const RenderedRead read = read_new(terminal, 0);
  EXPECT_EQ(read.text, joined(1, 5));
  EXPECT_EQ(read.seq, 1u);
  EXPECT_EQ(read.next_seq, 5u);
  EXPECT_FALSE(read.dropped);
  EXPECT_FALSE(read.truncated);
}

TEST(RenderedRing, RepaintTakesFreshSeqWithoutGrowingHistory) {
  Terminal terminal({.cols = 20, .rows = 5});
  terminal.feed("header\r\n|");
  const std::uint64_t cursor = terminal.head_seq();
  for (const char* frame : {"\r/", "\r-", "\r\\", "\r|"}) {
    terminal.feed(frame);
    const RenderedRead read = read_new(terminal, cursor);
    EXPECT_EQ(read.text, std::string(frame + 1));
    EXPECT_EQ(terminal.scrollback_len(), 0u);
  }
  EXPECT_EQ(terminal.head_seq(), cursor + 4);
  EXPECT_EQ(read_new(terminal, terminal.head_seq()).text, "");
}

TEST(RenderedRing, IdenticalRepaintKeepsItsSeq) {
  Terminal terminal({.cols = 20, .rows = 5});
  terminal.feed("\x1b[H\x1b[2Kstatus: ok\r\nbody");
  const std::uint64_t head = terminal.head_seq();
  terminal.feed("\x1b[H\x1b[2Kstatus: ok\x1b[2;5H");
  EXPECT_EQ(terminal.head_seq(), head);
  EXPECT_EQ(read_new(terminal, head).text, "");
}

TEST(RenderedRing, ScrolledRowKeepsItsSeq) {
  Terminal terminal({.cols = 20, .rows = 2});
  terminal.feed("first\r\nsecond");
  const std::uint64_t head = terminal.head_seq();
  terminal.feed("\r\nthird");
  const RenderedRead read = read_new(terminal, head);
  EXPECT_EQ(read.text, "third");
  EXPECT_EQ(terminal.ring().history().front().seq, 1u);
}

TEST(RenderedRing, TrailingBlankRowsArePaddingNotLines) {
  Terminal terminal({.cols = 20, .rows = 10});
  terminal.feed("only line\r\n\r\n\r\n");
  EXPECT_EQ(terminal.tail(100, TextStyle::Plain).text, "only line");
  EXPECT_EQ(terminal.head_seq(), 1u);
  terminal.feed("later");
  EXPECT_EQ(terminal.tail(100, TextStyle::Plain).text, "only line\n\n\nlater");
  EXPECT_EQ(read_new(terminal, 1).text, "\n\nlater");
}

TEST(RenderedRing, CarriageReturnOverwritesAreResolved) {
  Terminal terminal({.cols = 30, .rows = 4});
  terminal.feed("progress 10%\rprogress 55%\rprogress 99%\r\ndone");
  EXPECT_EQ(terminal.tail(10, TextStyle::Plain).text, "progress 99%\ndone");
}

TEST(RenderedRing, WrappedRowsStaySeparateLines) {
  Terminal terminal({.cols = 10, .rows = 4});
  terminal.feed("0123456789abcdef");
  EXPECT_EQ(terminal.tail(10, TextStyle::Plain).text, "0123456789\nabcdef");
}

TEST(RenderedRing, TailCountsScreenRowsAndReportsTruncation) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed(lines(1, 6));
  const TailRead tail = terminal.tail(2, TextStyle::Plain);
  EXPECT_EQ(tail.text, joined(5, 6));
  EXPECT_TRUE(tail.truncated);
  EXPECT_FALSE(terminal.tail(6, TextStyle::Plain).truncated);
}

TEST(RenderedRing, TruncatedReadKeepsTheNewestLines) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed(lines(1, 10));
  const RenderedRead read = terminal.rendered(0, 3, TextStyle::Plain);
  EXPECT_EQ(read.text, joined(8, 10));
  EXPECT_TRUE(read.truncated);
  EXPECT_EQ(read.seq, 8u);
}

TEST(RenderedRing, CursorAheadOfTheHeadReadsDropped) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed(lines(1, 2));
  const RenderedRead read = read_new(terminal, terminal.head_seq() + 5);
  EXPECT_TRUE(read.dropped);
  EXPECT_EQ(read.text, "");
  EXPECT_EQ(read.seq, terminal.head_seq());
}

TEST(RenderedRing, EvictionPastTheCapDropsOlderCursors) {
  Terminal terminal({.cols = 20, .rows = 4});
  terminal.feed(lines(1, 10));
  const std::uint64_t old_cursor = terminal.head_seq();
  terminal.feed(lines(11, 6000));
  EXPECT_EQ(terminal.scrollback_len(), limits::kHistoryMaxLines);
  EXPECT_TRUE(read_new(terminal, old_cursor).dropped);
  const std::uint64_t fresh = terminal.head_seq() - 2;
  const RenderedRead recent = read_new(terminal, fresh);
  EXPECT_FALSE(recent.dropped);
  EXPECT_EQ(recent.text, joined(5999, 6000));
}

TEST(RenderedRing, ClearDropsHistoryAndEveryEarlierCursor) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed(lines(1, 8));
  const std::uint64_t before = terminal.head_seq();
  terminal.feed("\x1b[H\x1b[2J\x1b[3J");
  terminal.clear_history();
  EXPECT_EQ(terminal.scrollback_len(), 0u);
  EXPECT_EQ(terminal.tail(100, TextStyle::Plain).text, "");
  EXPECT_TRUE(read_new(terminal, before).dropped);
  EXPECT_TRUE(read_new(terminal, 0).dropped);
  const RenderedRead now = read_new(terminal, terminal.head_seq());
  EXPECT_FALSE(now.dropped);
  terminal.feed("fresh");
  EXPECT_EQ(read_new(terminal, now.next_seq).text, "fresh");
}

TEST(RenderedRing, ProgramsOwnClearLeavesHistory) {
  Terminal terminal({.cols = 20, .rows = 3});
  terminal.feed(lines(1, 6));
  terminal.feed("\x1b[H\x1b[2J\x1b[3Jafter");
  EXPECT_EQ(terminal.tail(100, TextStyle::Plain).text, joined(1, 4) + "\nafter");
}

TEST(RenderedRing, AltScreenRepaintsBumpSeqsAndAppendNothing) {
  Terminal terminal({.cols = 20, .rows = 4});
  terminal.feed("main 1\r\nmain 2");
  const std::uint64_t before = terminal.head_seq();
  terminal.feed("\x1b[?1049h\x1b[Htop\r\nbottom");
  RenderedRead read = read_new(terminal, before);
  EXPECT_EQ(read.text, "top\nbottom");
  const std::uint64_t mid = read.next_seq;
  terminal.feed("\x1b[2;1H\x1b[2Kbottom v2");
  read = read_new(terminal, mid);
  EXPECT_EQ(read.text, "bottom v2");
  for (int i = 0; i < 10; ++i) terminal.feed("\r\nscroll in alt");
  EXPECT_EQ(terminal.scrollback_len(), 0u);
  const std::uint64_t in_alt = terminal.head_seq();
  terminal.feed("\x1b[?1049l");
  EXPECT_EQ(terminal.head_seq(), in_alt);
  EXPECT_EQ(read_new(terminal, in_alt).text, "");
  EXPECT_EQ(terminal.tail(10, TextStyle::Plain).text, "main 1\nmain 2");
}

TEST(RenderedRing, LeavingAltScreenRestoresTheMainGridExactly) {
  Terminal terminal({.cols = 30, .rows = 5});
  terminal.feed("\x1b[31mred\x1b[0m plain\r\n\x1b[44mblue bg\x1b[0m");
  std::string before_snapshot = terminal.screen_text(TextStyle::Ansi);
  Grid main_before = terminal.main_screen();
  terminal.feed("\x1b[?1049h\x1b[H\x1b[2Jfull screen app\x1b[5;1Hstatus");
  terminal.feed("\x1b[?1049l");
  EXPECT_EQ(testing::grid_diff(terminal.screen(), main_before), "");
  EXPECT_EQ(terminal.screen_text(TextStyle::Ansi), before_snapshot);
}

TEST(RenderedRing, TopAnchoredScrollRegionFeedsHistory) {
  Terminal terminal({.cols = 20, .rows = 6});
  terminal.feed("top 1\r\ntop 2\r\ntop 3\r\ntop 4\x1b[5;1Hfooter\x1b[6;1Hstatus\x1b[1;4r\x1b[4;1H");
  for (int i = 1; i <= 3; ++i) terminal.feed("\r\nchat " + std::to_string(i));
  EXPECT_EQ(terminal.scrollback_len(), 3u);
  EXPECT_EQ(terminal.tail(100, TextStyle::Plain).text,
            "top 1\ntop 2\ntop 3\ntop 4\nchat 1\nchat 2\nchat 3\nfooter\nstatus");
}

TEST(RenderedRing, LowerScrollRegionNeverFeedsHistory) {
  Terminal terminal({.cols = 20, .rows = 6});
  terminal.feed("pinned header\x1b[2;6r\x1b[6;1H");
  for (int i = 1; i <= 10; ++i) terminal.feed("\r\nrow " + std::to_string(i));
  EXPECT_EQ(terminal.scrollback_len(), 0u);
  EXPECT_EQ(terminal.screen_text(), "pinned header\nrow 6\nrow 7\nrow 8\nrow 9\nrow 10");
}

TEST(RenderedRing, AnsiStyleKeepsColoursAndResetsAtLineEnd) {
  Terminal terminal({.cols = 20, .rows = 2});
  terminal.feed("\x1b[1;31merr\x1b[0m ok\r\n\x1b[32mgreen\r\nnext");
  const TailRead tail = terminal.tail(10, TextStyle::Ansi);
  EXPECT_EQ(tail.text,
            "\x1b[0;1;31merr\x1b[0m ok\n\x1b[0;32mgreen\x1b[0m\n\x1b[0;32mnext\x1b[0m");
  EXPECT_EQ(terminal.tail(10, TextStyle::Plain).text, "err ok\ngreen\nnext");
}

TEST(RenderedRing, FullHistoryOf120ColumnLinesStaysUnderThreeMebibytes) {
  std::mt19937 rng(5);
  const std::size_t heap_before = mallinfo2().uordblks;
  auto terminal = std::make_unique<Terminal>(TerminalSize{120, 40});
  std::string coloured;
  while (terminal->scrollback_len() < limits::kHistoryMaxLines) {
    coloured = "\x1b[2m12:00:01\x1b[0m \x1b[1;32mINFO\x1b[0m \x1b[36m[svc]\x1b[0m ";
    while (coloured.size() < 150) coloured += "word" + std::to_string(rng() % 1000) + " ";
    terminal->feed(coloured + "\r\n");
  }
  const std::size_t heap = mallinfo2().uordblks - heap_before;
  const std::size_t ring = terminal->ring().memory_bytes();
  RecordProperty("ring_bytes", std::to_string(ring));
  RecordProperty("terminal_heap_bytes", std::to_string(heap));
  std::printf("history 5000 lines: ring %zu bytes, whole terminal heap %zu bytes\n", ring, heap);
  EXPECT_LT(ring, 3u << 20);
  EXPECT_LT(heap, 4u << 20);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost
