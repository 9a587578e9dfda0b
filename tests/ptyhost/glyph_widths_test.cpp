// tests/ptyhost/glyph_widths_test.cpp: GlyphWidths answers what libvterm's
// own screen does with a character written alone, for characters of every
// kind and across cache collisions.
#include "ptyhost/glyph_widths.hpp"

#include <gtest/gtest.h>
#include <vterm.h>

#include <memory>
#include <string>
#include <vector>

#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

struct VTermFree {
  void operator()(VTerm* vt) const { vterm_free(vt); }
};

// The oracle: a VTermScreen (not a bare state, as GlyphWidths probes) of
// one row; the character written after a plain glyph and a carriage return
// at column 0. 1 or 2 when the cell holds it as its first character with
// that width and the cursor moved past it; else 0.
int screen_width(char32_t cp) {
  std::unique_ptr<VTerm, VTermFree> vt(vterm_new(1, 8));
  vterm_set_utf8(vt.get(), 1);
  VTermScreen* screen = vterm_obtain_screen(vt.get());
  vterm_screen_reset(screen, 1);
  std::string bytes = "a\r";
  append_utf8(bytes, cp);
  vterm_input_write(vt.get(), bytes.data(), bytes.size());
  VTermScreenCell cell;
  vterm_screen_get_cell(screen, VTermPos{0, 0}, &cell);
  VTermPos cursor;
  vterm_state_get_cursorpos(vterm_obtain_state(vt.get()), &cursor);
  if (cell.chars[0] != cp || cell.chars[1] != 0 || cursor.row != 0 || cursor.col != cell.width) return 0;
  return cell.width == 1 || cell.width == 2 ? cell.width : 0;
}

TEST(GlyphWidths, KnownCharacters) {
  GlyphWidths widths;
  EXPECT_EQ(widths.simple_width(U'é'), 1);
  EXPECT_EQ(widths.simple_width(U'Ω'), 1);
  EXPECT_EQ(widths.simple_width(U'─'), 1);
  EXPECT_EQ(widths.simple_width(U'世'), 2);
  EXPECT_EQ(widths.simple_width(U'데'), 2);
  EXPECT_EQ(widths.simple_width(U'ｱ'), 1);       // halfwidth katakana
  EXPECT_EQ(widths.simple_width(0x0301), 0);     // combining acute
  EXPECT_EQ(widths.simple_width(0x200B), 0);     // zero width space
  EXPECT_EQ(widths.simple_width(0xFE0F), 0);     // variation selector
  EXPECT_EQ(widths.simple_width(0x0085), 0);     // a C1 code point
  EXPECT_EQ(widths.simple_width(0), 0);
}

TEST(GlyphWidths, AgreesWithVTermScreenAcrossUnicodeAndCacheCollisions) {
  GlyphWidths widths;
  std::vector<char32_t> sample;
  for (char32_t cp = 0xA0; cp < 0x3400; cp += 7) sample.push_back(cp);
  for (char32_t cp = 0x3400; cp < 0x110000; cp += 389) {
    if (cp >= 0xD800 && cp < 0xE000) continue;
    sample.push_back(cp);
  }
  // Pairs that share a cache slot, asked in turn.
  for (char32_t cp = 0x4E00; cp < 0x4E00 + 8 * GlyphWidths::kSlots; cp += GlyphWidths::kSlots) {
    sample.push_back(cp);
    sample.push_back(cp + 0x300 - 0x4E00 + 0x80);  // a combining mark in the same slot
  }
  std::size_t mismatches = 0;
  std::size_t wide = 0;
  std::size_t none = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass answers from the cache
    for (char32_t cp : sample) {
      const int expected = screen_width(cp);
      const int got = widths.simple_width(cp);
      if (got != expected) {
        ++mismatches;
        ADD_FAILURE() << "U+" << std::hex << static_cast<unsigned>(cp) << ": " << got << " vs " << expected;
        if (mismatches > 10) return;
      }
      wide += pass == 0 && expected == 2;
      none += pass == 0 && expected == 0;
    }
  }
  EXPECT_GT(wide, 10u);  // the sample reaches wide and
  EXPECT_GT(none, 10u);  // non-glyph characters
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::ptyhost
