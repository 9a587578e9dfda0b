// tests/ptyhost/rendered_ring_test.cpp: the rendered ring's reads as
// docs/rules.md "Rendered ring" and "Reads" describe them.
#include "ptyhost/rendered_ring.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <random>

#include "ptyhost/compact_row.hpp"
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

std::string render(const Row& row, TextStyle style) {
  std::string out;
  render_row(row, style, out);
  return out;
}

// Mixed output: the realistic log stream (colours, CR progress bars,
// compiler lines, cursor-up repaints) with long lines of wide characters,
// accents, box drawing, tabs and 256/RGB colours that wrap.
std::string mixed_output(std::mt19937& rng, std::size_t bytes) {
  static constexpr const char* kPieces[] = {"世界", "日本語", "데이터", "héllo", "naïve", "┌──┐",
                                            "│", "═══", "word", "\t", "0x7f3a", "ｱｲｳ"};
  std::string out;
  while (out.size() < bytes) {
    if (rng() % 3 != 0) {
      out += testing::realistic_log_stream(rng, 4096);
      continue;
    }
    for (int lines = 1 + static_cast<int>(rng() % 20); lines > 0; --lines) {
      const std::size_t target = 40 + rng() % 400;
      const std::size_t start = out.size();
      while (out.size() - start < target) {
        switch (rng() % 6) {
          case 0: out += "\x1b[38;5;" + std::to_string(rng() % 256) + "m"; break;
          case 1:
            out += "\x1b[48;2;" + std::to_string(rng() % 256) + ";" + std::to_string(rng() % 256) + ";" +
                   std::to_string(rng() % 256) + "m";
            break;
          case 2: out += "\x1b[" + std::to_string(rng() % 2 ? 1 : 4) + "m"; break;
          default: break;
        }
        out += kPieces[rng() % std::size(kPieces)];
        out += ' ';
        if (rng() % 10 == 0) out += "\x1b[0m";
      }
      out += rng() % 2 ? "\x1b[0m\r\n" : "\r\n";
    }
  }
  return out;
}

// The last `lines` lines an independent libvterm screen shows and scrolled
// off (down to its last non-blank row), each rendered in `style`.
std::vector<std::string> oracle_tail(const testing::ScreenOracle& oracle, std::size_t lines,
                                     TextStyle style) {
  std::vector<Row> rows(oracle.scrollback().begin(), oracle.scrollback().end());
  std::vector<Row> screen;
  std::size_t content = 0;
  for (int r = 0; r < oracle.rows(); ++r) {
    screen.push_back(oracle.screen_row(r));
    const auto& cells = screen.back().cells;
    if (std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return c.ch != 0 && c.ch != U' '; }))
      content = screen.size();
  }
  rows.insert(rows.end(), screen.begin(), screen.begin() + static_cast<std::ptrdiff_t>(content));
  std::vector<std::string> out;
  for (std::size_t i = rows.size() > lines ? rows.size() - lines : 0; i < rows.size(); ++i)
    out.push_back(render(rows[i], style));
  return out;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\x1b' ? std::string("\\e") : std::string(1, c);
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t nl = text.find('\n', from);
    out.push_back(text.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) return out;
    from = nl + 1;
  }
}

// "" when equal; else where and how the first difference shows.
std::string first_difference(const std::vector<std::string>& ours,
                             const std::vector<std::string>& theirs) {
  if (ours.size() != theirs.size())
    return std::to_string(ours.size()) + " lines vs the oracle's " + std::to_string(theirs.size());
  for (std::size_t i = 0; i < ours.size(); ++i)
    if (ours[i] != theirs[i])
      return "line " + std::to_string(i) + " of " + std::to_string(ours.size()) + ":\n  ours:   " +
             escaped(ours[i]) + "\n  oracle: " + escaped(theirs[i]);
  return "";
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

// History keeps rows in compact form; a row decoded from it reads exactly
// as the row did, in both styles, whatever a random stream left in it.
TEST(RenderedRing, CompactRowsReadAsTheRowsTheyWere) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    Terminal terminal({.cols = 37, .rows = 9});
    terminal.feed(testing::random_vt_stream(rng, 400, testing::StreamMix{}));
    for (const Grid* grid : {&terminal.main_screen(), &terminal.screen()}) {
      for (int r = 0; r < grid->rows(); ++r) {
        const std::string bytes(encode_row(grid->row(r)));
        Row decoded;
        ASSERT_TRUE(decode_row(bytes, decoded)) << "seed " << seed << " row " << r;
        for (TextStyle style : {TextStyle::Plain, TextStyle::Ansi})
          ASSERT_EQ(render(decoded, style), render(grid->row(r), style)) << "seed " << seed << " row " << r;
      }
    }
  }
  Row row;
  EXPECT_FALSE(decode_row(std::string_view("\x01\x02", 2), row));  // a cut pen
  EXPECT_FALSE(decode_row(std::string_view("\x00\x00", 2), row));  // a run of no cells
  EXPECT_FALSE(decode_row("\x7f", row));                              // no such op
  EXPECT_FALSE(decode_row(std::string_view("\x02\x41\0\0\0\x03\0", 7), row));  // width 3
}

// The tail of a pane after 20 MB of mixed output, fed in chunks of every
// size as PTY reads come, equals line for line (text and colours) what a
// second libvterm screen fed the same bytes shows and scrolled off.
TEST(RenderedRing, TailAfterTwentyMegabytesMatchesLibvtermScrollback) {
  constexpr int kCols = 120;
  constexpr int kRows = 40;
  std::mt19937 rng(20);
  const std::string stream = mixed_output(rng, 20u << 20);
  Terminal terminal({.cols = kCols, .rows = kRows});
  testing::ScreenOracle oracle(kCols, kRows);
  oracle.keep_scrollback(limits::kHistoryMaxLines + kRows);
  oracle.feed(stream);
  for (std::size_t at = 0; at < stream.size();) {
    const std::size_t n = std::min<std::size_t>(stream.size() - at, 1 + rng() % (64u << 10));
    terminal.feed(std::string_view(stream).substr(at, n));
    at += n;
  }
  ASSERT_EQ(terminal.scrollback_len(), limits::kHistoryMaxLines);
  for (TextStyle style : {TextStyle::Plain, TextStyle::Ansi}) {
    for (int round = 0; round < 2; ++round) {  // the second read comes from the render cache
      const TailRead tail = terminal.tail(limits::kReadMaxLines, style);
      EXPECT_FALSE(tail.truncated && split_lines(tail.text).size() < limits::kReadMaxLines);
      EXPECT_EQ(first_difference(split_lines(tail.text), oracle_tail(oracle, limits::kReadMaxLines, style)), "")
          << (style == TextStyle::Ansi ? "ansi" : "plain") << " read " << round;
    }
  }
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
