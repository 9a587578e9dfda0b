// ptyhost/grid.hpp: Grid, one screen's worth of cells (the main or the
// alternate screen), and the cell, pen and colour types it is made of.
// Runs in: ptyhost, driven by libvterm's state callbacks (terminal.cpp).
// Never: parses bytes or keeps history; rows that leave the screen are the
// rendered ring's (rendered_ring.hpp).
//
// Rows are reached through an index map, so scrolling a full-width region
// rotates row indices instead of moving cells. Each row carries what the
// rendered ring needs to sequence it: its seq, the hash of the content that
// seq names, and a dirty flag set by every write.
//
// Cell semantics follow libvterm's VTermScreen so the two can be compared
// cell for cell: a wide glyph's right half holds kWideTail, erased cells take
// the whole current pen, and overwriting half of a wide glyph leaves the
// other half as it was.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {

enum class ColorKind : std::uint8_t { Default, Indexed, Rgb };

struct Color {
  ColorKind kind = ColorKind::Default;
  std::uint8_t v0 = 0;  // Indexed: palette index. Rgb: red.
  std::uint8_t v1 = 0;  // Rgb: green.
  std::uint8_t v2 = 0;  // Rgb: blue.

  static constexpr Color indexed(std::uint8_t index) {
    return {ColorKind::Indexed, index, 0, 0};
  }
  static constexpr Color rgb(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    return {ColorKind::Rgb, r, g, b};
  }
  bool operator==(const Color&) const = default;
};

// Pen attribute bits.
namespace attr {
inline constexpr std::uint16_t kBold = 1u << 0;
inline constexpr std::uint16_t kItalic = 1u << 1;
inline constexpr std::uint16_t kBlink = 1u << 2;
inline constexpr std::uint16_t kReverse = 1u << 3;
inline constexpr std::uint16_t kStrike = 1u << 4;
inline constexpr std::uint16_t kConceal = 1u << 5;    // libvterm 0.1.4 never sets it
inline constexpr std::uint16_t kProtected = 1u << 6;  // DECSCA
inline constexpr int kUnderlineShift = 7;             // 0 off, 1 single, 2 double, 3 curly
inline constexpr std::uint16_t kUnderlineMask = 3u << kUnderlineShift;
inline constexpr int kFontShift = 9;                  // SGR 10..19 as 0..9
inline constexpr std::uint16_t kFontMask = 15u << kFontShift;
}  // namespace attr

struct Pen {
  Color fg;
  Color bg;
  std::uint16_t attrs = 0;

  int underline() const { return (attrs & attr::kUnderlineMask) >> attr::kUnderlineShift; }
  int font() const { return (attrs & attr::kFontMask) >> attr::kFontShift; }
  void set(std::uint16_t bit, bool on) {
    attrs = static_cast<std::uint16_t>(on ? attrs | bit : attrs & ~bit);
  }
  void set_underline(int style) { set_field(attr::kUnderlineMask, attr::kUnderlineShift, style); }
  void set_font(int font) { set_field(attr::kFontMask, attr::kFontShift, font); }
  bool is_default() const { return *this == Pen{}; }
  bool operator==(const Pen&) const = default;

 private:
  void set_field(std::uint16_t mask, int shift, int value) {
    attrs = static_cast<std::uint16_t>((attrs & ~mask) | ((value << shift) & mask));
  }
};

// The right half of a wide glyph.
inline constexpr char32_t kWideTail = 0xFFFFFFFFu;
// Cell flag: the cell's combining marks are in its row's mark list.
inline constexpr std::uint8_t kCellHasMarks = 1u << 0;

struct Cell {
  char32_t ch = 0;  // 0: never written or erased
  Pen pen;
  std::uint8_t width = 1;  // columns the glyph advanced: 0 for a lone combining mark
  std::uint8_t flags = 0;

  bool operator==(const Cell&) const = default;
};
static_assert(sizeof(Cell) == 16, "cells stay compact");

using Marks = std::array<char32_t, limits::kMaxCombiningMarks>;  // 0-padded

struct MarkEntry {
  int col = 0;
  Marks marks{};
  bool operator==(const MarkEntry&) const = default;
};

struct Row {
  std::vector<Cell> cells;
  std::vector<MarkEntry> marks;    // only for cells flagged kCellHasMarks
  std::uint64_t seq = 0;           // 0: no seq assigned yet
  std::uint64_t content_hash = 0;  // hash of the content `seq` named when first rewritten
  bool dirty = false;              // written since the last reconcile

  const Marks* marks_at(int col) const;
};

// Half-open cell rectangle: rows [top, bottom), columns [left, right).
struct Rect {
  int top = 0;
  int bottom = 0;
  int left = 0;
  int right = 0;
};

enum class EraseMode { All, SkipProtected };

class Grid {
 public:
  Grid(int rows, int cols, const Pen& fill);

  int rows() const { return static_cast<int>(order_.size()); }
  int cols() const { return cols_; }
  Row& row(int r) { return rows_[order_[r]]; }
  const Row& row(int r) const { return rows_[order_[r]]; }

  // libvterm putglyph: `chars` is the base character then its marks.
  void put_glyph(int r, int c, std::span<const char32_t> chars, int width, const Pen& pen);
  // Writes printable ASCII left to right from (r, c); the caller keeps it
  // inside the row.
  void put_ascii(int r, int c, std::span<const char> text, const Pen& pen);
  // One character without marks, `width` 0 to 2 (put_glyph's cell and wide
  // tail); the caller keeps it inside the row.
  void put_char(int r, int c, char32_t ch, int width, const Pen& pen);
  void erase(Rect rect, const Pen& pen, EraseMode mode);
  // libvterm scrollrect: content moves up by `down` (negative: down) and left
  // by `right` (negative: right); vacated cells are erased with `fill`.
  void scroll(Rect rect, int down, int right, const Pen& fill);
  // Keeps the top-left corner; new cells are blank with `fill`.
  void resize(int rows, int cols, const Pen& fill);

  // True when no cell shows a character (blank cells are 0 or space).
  bool row_is_blank(int r) const;
  // Index of the last row that is not blank, or -1.
  int last_nonblank_row() const;
  std::uint64_t hash_row(int r) const { return hash_of(row(r)); }
  static std::uint64_t hash_of(const Row& row);
  std::size_t memory_bytes() const;

 private:
  // Marks a row written; the first write after a reconcile keeps the hash
  // of what the row's seq named, so an identical repaint can keep it.
  static void touch(Row& row);
  void clear_row(Row& row, const Pen& fill);
  void set_cell(Row& row, int c, const Cell& cell);
  void scroll_rows(Rect rect, int down, const Pen& fill);
  void move_cells(Rect rect, int down, int right, const Pen& fill);

  int cols_;
  std::vector<Row> rows_;
  std::vector<int> order_;  // screen row -> index into rows_
};

// Removes the mark entry of `col` if it has one.
void drop_marks(Row& row, int col);
void store_marks(Row& row, int col, const Marks& marks);

}  // namespace signaltty::ptyhost
