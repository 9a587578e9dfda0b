// ptyhost/glyph_widths.cpp: GlyphWidths.
// Runs in: ptyhost.
#include "ptyhost/glyph_widths.hpp"

#include <vterm.h>

#include <string>

#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost {
namespace {

// Wide enough for a double-width glyph with room to spare: the probe never
// reaches the last column, so it never wraps or waits to.
constexpr int kProbeCols = 8;

}  // namespace

void GlyphWidths::VTermDeleter::operator()(VTerm* vt) const { vterm_free(vt); }

GlyphWidths::GlyphWidths() = default;
GlyphWidths::~GlyphWidths() = default;

int GlyphWidths::learn(char32_t cp) {
  if (cp == 0) return 0;
  if (!slots_) slots_ = std::make_unique<std::array<Slot, kSlots>>();
  Slot& slot = (*slots_)[cp % kSlots];
  if (slot.cp != cp) {
    slot.cp = cp;
    slot.width = static_cast<std::int8_t>(probe(cp));
  }
  return slot.width;
}

// "a" first, then home: libvterm joins a combining character written at
// the cursor to the glyph it drew just before only when the cursor is right
// after that glyph, so the probed character is never joined (and libvterm's
// buffer of joined characters does not grow from probe to probe). Its width
// is where it leaves the cursor.
int GlyphWidths::probe(char32_t cp) {
  if (!vt_) {
    vt_.reset(vterm_new(1, kProbeCols));
    vterm_set_utf8(vt_.get(), 1);
    state_ = vterm_obtain_state(vt_.get());
    vterm_state_reset(state_, 1);
  }
  std::string bytes = "a\x1b[H";
  append_utf8(bytes, cp);
  vterm_input_write(vt_.get(), bytes.data(), bytes.size());
  VTermPos pos;
  vterm_state_get_cursorpos(state_, &pos);
  const int width = pos.row == 0 && (pos.col == 1 || pos.col == 2) ? pos.col : 0;
  vterm_input_write(vt_.get(), "\x1b[H", 3);
  return width;
}

std::size_t GlyphWidths::memory_bytes() const {
  // libvterm's own allocation for the probe is not visible from here; its
  // 4 KiB buffers dominate it.
  return (slots_ ? sizeof(*slots_) : 0) + (vt_ ? 2 * 4096 : 0);
}

}  // namespace signaltty::ptyhost
