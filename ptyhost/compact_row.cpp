// ptyhost/compact_row.cpp: encode_row / decode_row.
// Runs in: ptyhost. Never: allocates per cell; the encoder writes into a
// buffer sized for the row's worst case and appends it once.
#include "ptyhost/compact_row.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/limits.hpp"
#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr unsigned char kOpBlank = 0x00;
constexpr unsigned char kOpPen = 0x01;
constexpr unsigned char kOpCell = 0x02;
constexpr std::size_t kMaxBlankRun = 255;
constexpr std::size_t kWorstCellBytes =
    1 + sizeof(Pen) + 1 + sizeof(char32_t) + 2 + sizeof(Marks);

bool plain_ascii(const Cell& cell) {
  return cell.flags == 0 && cell.width == 1 && cell.ch >= 0x20 && cell.ch < 0x7f;
}
bool never_written(const Cell& cell) { return cell.flags == 0 && cell.width == 1 && cell.ch == 0; }

// Pen has no padding (static_assert in grid.hpp: Cell is 16 bytes), so its
// bytes compare as its fields do.
bool same_pen(const Pen& a, const Pen& b) { return std::memcmp(&a, &b, sizeof(Pen)) == 0; }

// The row without its tail of never-written cells in the default pen: the
// encoder would cut them anyway (a default pen does not show when blank),
// and most rows are mostly such a tail. Compared eight bytes at a time, four
// cells per step, which the compiler turns into a few vector compares.
std::size_t untrimmed_cells(const Row& row) {
  static constexpr Cell kBlank{};
  std::uint64_t blank[2];
  std::memcpy(blank, &kBlank, sizeof blank);
  const Cell* const cells = row.cells.data();
  std::size_t n = row.cells.size();
  const auto differs = [&](std::size_t i) {
    std::uint64_t words[2];
    std::memcpy(words, cells + i, sizeof words);
    return ((words[0] ^ blank[0]) | (words[1] ^ blank[1])) != 0;
  };
  while (n >= 4) {
    if (differs(n - 1) || differs(n - 2) || differs(n - 3) || differs(n - 4)) break;
    n -= 4;
  }
  while (n > 0 && !differs(n - 1)) --n;
  return n;
}

// The end of the run of cells equal to *from, stopping at `limit`. Blank
// runs are long (the rest of a row erased in a background colour), so it
// first takes blocks of cells that each equal the cell before them, one
// memcmp of the block against itself shifted by a cell; then four cells per
// step, as untrimmed_cells compares.
const Cell* end_of_same_cells(const Cell* from, const Cell* limit) {
  constexpr std::ptrdiff_t kBlockCells = 8;
  const Cell* c = from + 1;
  while (limit - c >= kBlockCells && std::memcmp(c - 1, c, kBlockCells * sizeof(Cell)) == 0)
    c += kBlockCells;
  std::uint64_t want[2];
  std::memcpy(want, from, sizeof want);
  const auto differs = [&](const Cell* cell) {
    std::uint64_t words[2];
    std::memcpy(words, cell, sizeof words);
    return ((words[0] ^ want[0]) | (words[1] ^ want[1])) != 0;
  };
  while (limit - c >= 4 && !(differs(c) || differs(c + 1) || differs(c + 2) || differs(c + 3)))
    c += 4;
  while (c < limit && !differs(c)) ++c;
  return c;
}

}  // namespace

static_assert(std::endian::native == std::endian::little, "the ASCII run test reads ch as the low word");

// One forward pass: every cell is encoded, and the output is cut after the
// last cell an Ansi read shows. A blank run never straddles that cut: its
// cells are identical, so either all of them show or none does. Written
// into a buffer kept for the next row.
std::string_view encode_row(const Row& row) {
  static thread_local std::vector<char> buffer;
  const std::size_t cells = untrimmed_cells(row);
  if (buffer.size() < cells * kWorstCellBytes) buffer.resize(cells * kWorstCellBytes);
  char* const base = buffer.data();
  char* p = base;
  char* shown_end = p;
  Pen current;
  bool current_shows_blank = false;
  const Cell* cell = row.cells.data();
  const Cell* const end = cell + cells;
  while (cell < end) {
    if (!same_pen(cell->pen, current)) {
      *p++ = static_cast<char>(kOpPen);
      std::memcpy(p, &cell->pen, sizeof(Pen));
      p += sizeof(Pen);
      current = cell->pen;
      current_shows_blank = pen_shows_when_blank(current);
    }
    if (plain_ascii(*cell)) {
      // A run of ASCII cells in the current pen. A cell belongs to it when
      // everything but its character equals `proto`'s: two word compares.
      const Cell proto{0, current, 1, 0};
      std::uint64_t want[2];
      std::memcpy(want, &proto, sizeof want);
      const std::uint64_t want_high = want[0] >> 32;  // little-endian: ch is the low word
      char* const run_start = p;
      for (;;) {
        *p++ = static_cast<char>(cell->ch);
        if (++cell == end) break;
        std::uint64_t words[2];
        std::memcpy(words, cell, sizeof words);
        const auto ch = static_cast<std::uint32_t>(words[0]);
        if (words[1] != want[1] || (words[0] >> 32) != want_high || ch - 0x20u >= 0x5fu) break;
      }
      // Shown through the run's last character that is not a space.
      if (current_shows_blank) {
        shown_end = p;
      } else {
        char* last = p;
        while (last > run_start && last[-1] == ' ') --last;
        if (last > run_start) shown_end = last;
      }
      continue;
    }
    if (never_written(*cell)) {
      const Cell* const limit = cell + std::min<std::size_t>(kMaxBlankRun, static_cast<std::size_t>(end - cell));
      const Cell* const run_end = end_of_same_cells(cell, limit);
      *p++ = static_cast<char>(kOpBlank);
      *p++ = static_cast<char>(run_end - cell);
      cell = run_end;
      if (current_shows_blank) shown_end = p;
      continue;
    }
    *p++ = static_cast<char>(kOpCell);
    std::memcpy(p, &cell->ch, sizeof(char32_t));
    p += sizeof(char32_t);
    *p++ = static_cast<char>(cell->width);
    *p++ = static_cast<char>(cell->flags);
    if (cell->flags & kCellHasMarks) {
      const Marks* marks = row.marks_at(static_cast<int>(cell - row.cells.data()));
      const Marks none{};
      std::memcpy(p, marks != nullptr ? marks : &none, sizeof(Marks));
      p += sizeof(Marks);
    }
    // As shown_cells: 0 and space are blank (a space's marks too) unless the pen shows.
    if ((cell->ch != 0 && cell->ch != U' ') || current_shows_blank) shown_end = p;
    ++cell;
  }
  return {base, static_cast<std::size_t>(shown_end - base)};
}

bool decode_row(std::string_view bytes, Row& row) {
  const auto max_cells = static_cast<std::size_t>(signaltty::limits::kPaneColsMax);
  row.cells.clear();
  row.marks.clear();
  Pen current;
  std::size_t i = 0;
  const auto take = [&](void* into, std::size_t n) {
    if (bytes.size() - i < n) return false;
    std::memcpy(into, bytes.data() + i, n);
    i += n;
    return true;
  };
  while (i < bytes.size()) {
    const auto op = static_cast<unsigned char>(bytes[i++]);
    if (op >= 0x20 && op < 0x7f) {
      if (row.cells.size() >= max_cells) return false;
      row.cells.push_back(Cell{op, current, 1, 0});
    } else if (op == kOpBlank) {
      unsigned char run = 0;
      if (!take(&run, 1) || run == 0 || row.cells.size() + run > max_cells) return false;
      row.cells.insert(row.cells.end(), run, Cell{0, current, 1, 0});
    } else if (op == kOpPen) {
      if (!take(&current, sizeof(Pen))) return false;
    } else if (op == kOpCell) {
      Cell cell{0, current, 1, 0};
      if (!take(&cell.ch, sizeof(char32_t)) || !take(&cell.width, 1) || !take(&cell.flags, 1))
        return false;
      if (row.cells.size() >= max_cells || cell.width > 2 || (cell.flags & ~kCellHasMarks) != 0)
        return false;
      if (cell.flags & kCellHasMarks) {
        MarkEntry entry;
        entry.col = static_cast<int>(row.cells.size());
        if (!take(&entry.marks, sizeof(Marks))) return false;
        row.marks.push_back(entry);
      }
      row.cells.push_back(cell);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace signaltty::ptyhost
