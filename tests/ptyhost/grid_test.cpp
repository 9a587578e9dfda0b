// tests/ptyhost/grid_test.cpp: Grid's cell writes, erases, scrolls and
// resizes, and row rendering.
#include "ptyhost/grid.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string text_of(const Grid& grid, int r) {
  std::string out;
  render_row(grid.row(r), TextStyle::Plain, out);
  return out;
}

void put(Grid& grid, int r, int c, std::string_view text, const Pen& pen = {}) {
  grid.put_ascii(r, c, std::span<const char>(text.data(), text.size()), pen);
}

TEST(Grid, WideGlyphMarksItsRightHalf) {
  Grid grid(2, 6, Pen{});
  const char32_t wide[] = {U'世'};
  grid.put_glyph(0, 1, wide, 2, Pen{});
  EXPECT_EQ(grid.row(0).cells[1].ch, U'世');
  EXPECT_EQ(grid.row(0).cells[2].ch, kWideTail);
  EXPECT_EQ(text_of(grid, 0), " 世");
}

TEST(Grid, OverwrittenWideHalfRendersAsSpace) {
  Grid grid(1, 6, Pen{});
  const char32_t wide[] = {U'世'};
  grid.put_glyph(0, 0, wide, 2, Pen{});
  put(grid, 0, 1, "x");
  EXPECT_EQ(text_of(grid, 0), " x");
}

TEST(Grid, CombiningMarksStayWithTheirCell) {
  Grid grid(1, 4, Pen{});
  const char32_t glyph[] = {U'e', 0x301};
  grid.put_glyph(0, 0, glyph, 1, Pen{});
  EXPECT_EQ(text_of(grid, 0), "e\xcc\x81");
  put(grid, 0, 0, "a");
  EXPECT_EQ(text_of(grid, 0), "a");
  EXPECT_TRUE(grid.row(0).marks.empty());
}

// put_char and put_ascii write what put_glyph writes, on rows with marks
// and without: the cells, their pens and which cells keep marks.
TEST(Grid, CharAndAsciiWritesAreGlyphWrites) {
  const Pen pen{Color::indexed(3), Color::rgb(1, 2, 3), attr::kBold};
  const char32_t marked[] = {U'e', 0x301};
  for (const bool with_marks : {false, true}) {
    for (int c = 0; c < 6; ++c) {
      for (const char32_t ch : {U'x', U'é', U'世'}) {
        const int width = ch == U'世' ? 2 : 1;
        if (c + width > 6) continue;
        Grid glyphs(1, 6, Pen{});
        Grid chars(1, 6, Pen{});
        for (Grid* grid : {&glyphs, &chars}) {
          const char32_t wide[] = {U'日'};
          grid->put_glyph(0, 1, wide, 2, Pen{});
          if (with_marks) {
            grid->put_glyph(0, 3, marked, 1, Pen{});
            grid->put_glyph(0, 4, marked, 1, Pen{});
          }
        }
        glyphs.put_glyph(0, c, std::span<const char32_t>(&ch, 1), width, pen);
        if (ch == U'x') put(chars, 0, c, "x", pen);
        else chars.put_char(0, c, ch, width, pen);
        const Row& want = glyphs.row(0);
        const Row& got = chars.row(0);
        for (int k = 0; k < 6; ++k) {
          EXPECT_EQ(std::memcmp(&want.cells[k], &got.cells[k], sizeof(Cell)), 0)
              << "col " << c << " cell " << k << " marks " << with_marks;
          EXPECT_EQ(want.marks_at(k) != nullptr, got.marks_at(k) != nullptr) << c << " " << k;
        }
        EXPECT_EQ(text_of(glyphs, 0), text_of(chars, 0));
      }
    }
  }
}

TEST(Grid, EraseTakesTheWholePenAndSkipsProtectedWhenSelective) {
  Grid grid(1, 4, Pen{});
  Pen guarded;
  guarded.attrs = attr::kProtected;
  put(grid, 0, 0, "ab");
  const char32_t c[] = {U'c'};
  grid.put_glyph(0, 2, c, 1, guarded);
  Pen red;
  red.bg = Color::indexed(1);
  red.attrs = attr::kBold;
  grid.erase(Rect{0, 1, 0, 4}, red, EraseMode::SkipProtected);
  EXPECT_EQ(grid.row(0).cells[0].ch, 0u);
  EXPECT_EQ(grid.row(0).cells[0].pen, red);
  EXPECT_EQ(grid.row(0).cells[2].ch, U'c');
}

TEST(Grid, FullWidthScrollRotatesRowsKeepingTheirIdentity) {
  Grid grid(3, 4, Pen{});
  put(grid, 0, 0, "aaaa");
  put(grid, 1, 0, "bbbb");
  put(grid, 2, 0, "cccc");
  grid.row(1).seq = 7;
  grid.scroll(Rect{0, 3, 0, 4}, 1, 0, Pen{});
  EXPECT_EQ(text_of(grid, 0), "bbbb");
  EXPECT_EQ(grid.row(0).seq, 7u);
  EXPECT_EQ(text_of(grid, 1), "cccc");
  EXPECT_EQ(text_of(grid, 2), "");
  EXPECT_EQ(grid.row(2).seq, 0u);
  grid.scroll(Rect{0, 3, 0, 4}, -1, 0, Pen{});
  EXPECT_EQ(text_of(grid, 0), "");
  EXPECT_EQ(text_of(grid, 1), "bbbb");
}

TEST(Grid, SidewaysScrollMovesCellsAndMarks) {
  Grid grid(1, 6, Pen{});
  put(grid, 0, 0, "abcdef");
  const char32_t glyph[] = {U'x', 0x301};
  grid.put_glyph(0, 3, glyph, 1, Pen{});
  grid.scroll(Rect{0, 1, 1, 6}, 0, -2, Pen{});  // ICH 2 at column 1
  EXPECT_EQ(text_of(grid, 0), "a  bcx\xcc\x81");
  grid.scroll(Rect{0, 1, 1, 6}, 0, 3, Pen{});  // DCH 3 at column 1
  EXPECT_EQ(text_of(grid, 0), "acx\xcc\x81");
}

TEST(Grid, ResizeKeepsTopLeftCorner) {
  Grid grid(3, 4, Pen{});
  put(grid, 0, 0, "abcd");
  put(grid, 2, 0, "wxyz");
  grid.resize(2, 6, Pen{});
  EXPECT_EQ(grid.rows(), 2);
  EXPECT_EQ(text_of(grid, 0), "abcd");
  grid.resize(4, 2, Pen{});
  EXPECT_EQ(text_of(grid, 0), "ab");
  EXPECT_EQ(grid.last_nonblank_row(), 0);
}

TEST(Grid, HashChangesWithContentOnly) {
  Grid grid(2, 4, Pen{});
  put(grid, 0, 0, "ab");
  put(grid, 1, 0, "ab");
  EXPECT_EQ(grid.hash_row(0), grid.hash_row(1));
  Pen bold;
  bold.attrs = attr::kBold;
  put(grid, 1, 0, "a", bold);
  EXPECT_NE(grid.hash_row(0), grid.hash_row(1));
}

TEST(LineRender, AnsiKeepsColouredBlanksAndResetsAtEnd) {
  Grid grid(1, 8, Pen{});
  Pen blue;
  blue.bg = Color::indexed(4);
  put(grid, 0, 0, "ok");
  grid.erase(Rect{0, 1, 2, 5}, blue, EraseMode::All);
  std::string ansi;
  render_row(grid.row(0), TextStyle::Ansi, ansi);
  EXPECT_EQ(ansi, "ok\x1b[0;44m   \x1b[0m");
  std::string plain;
  append_plain_from_ansi(ansi, plain);
  EXPECT_EQ(plain, "ok");
}

TEST(LineRender, SgrCoversEveryAttributeAndColourForm) {
  Pen pen;
  pen.attrs = attr::kBold | attr::kItalic | attr::kBlink | attr::kReverse | attr::kStrike |
              (2u << attr::kUnderlineShift) | (3u << attr::kFontShift);
  pen.fg = Color::indexed(9);
  pen.bg = Color::rgb(1, 2, 3);
  std::string sgr;
  append_sgr(sgr, pen);
  EXPECT_EQ(sgr, "\x1b[0;1;3;4:2;5;7;9;13;91m\x1b[48;2;1;2;3m");
  pen = Pen{};
  pen.fg = Color::indexed(200);
  sgr.clear();
  append_sgr(sgr, pen);
  EXPECT_EQ(sgr, "\x1b[0m\x1b[38;5;200m");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost
