// ptyhost/glyph_widths.hpp: GlyphWidths, the columns libvterm's state gives
// a character drawn on its own, learned from libvterm itself and cached.
// Runs in: ptyhost, for the terminal model's fast text path (terminal.cpp),
// which writes characters into the grid without libvterm and must move the
// cursor exactly as libvterm would have.
// Never: decides a width itself. vterm.h (0.1.4) declares no width call, so
// a character is written once into a private one-row VTermState and its
// width read from the cursor; the answer is kept in a small direct-mapped
// table. Both are made on the first non-ASCII character: an ASCII-only pane
// carries neither.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

struct VTerm;
struct VTermState;

namespace signaltty::ptyhost {

class GlyphWidths {
 public:
  GlyphWidths();
  ~GlyphWidths();
  GlyphWidths(const GlyphWidths&) = delete;
  GlyphWidths& operator=(const GlyphWidths&) = delete;

  // 1 or 2 when libvterm draws `cp` as a glyph of its own that many
  // columns wide; 0 for anything else (combining and zero-width
  // characters, controls, what moves the cursor otherwise).
  int simple_width(char32_t cp) {
    if (slots_ && cp != 0) {
      const Slot& slot = (*slots_)[cp % kSlots];
      if (slot.cp == cp) return slot.width;
    }
    return learn(cp);
  }
  std::size_t memory_bytes() const;

  static constexpr std::size_t kSlots = 1024;

 private:
  struct Slot {
    char32_t cp = 0;  // 0: empty (U+0000 is never asked: it is a control)
    std::int8_t width = 0;
  };
  struct VTermDeleter {
    void operator()(VTerm* vt) const;
  };
  int learn(char32_t cp);
  int probe(char32_t cp);

  std::unique_ptr<std::array<Slot, kSlots>> slots_;
  std::unique_ptr<VTerm, VTermDeleter> vt_;
  VTermState* state_ = nullptr;
};

}  // namespace signaltty::ptyhost
