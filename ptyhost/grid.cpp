// ptyhost/grid.cpp: cell writes, erases and scrolls of one screen.
// Runs in: ptyhost, inside libvterm callbacks. Never: allocates per glyph;
// only scrolls of partial-width regions copy cells.
#include "ptyhost/grid.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

namespace signaltty::ptyhost {
namespace {

Cell blank_cell(const Pen& fill) {
  Cell cell;
  cell.pen = fill;
  cell.pen.attrs &= static_cast<std::uint16_t>(~attr::kProtected);
  return cell;
}

bool is_blank(const Cell& cell) { return cell.ch == 0 || cell.ch == U' '; }

std::uint64_t mix(std::uint64_t h, std::uint64_t word) {
  h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

Rect clamp_rect(Rect rect, int rows, int cols) {
  rect.top = std::clamp(rect.top, 0, rows);
  rect.bottom = std::clamp(rect.bottom, rect.top, rows);
  rect.left = std::clamp(rect.left, 0, cols);
  rect.right = std::clamp(rect.right, rect.left, cols);
  return rect;
}

}  // namespace

const Marks* Row::marks_at(int col) const {
  for (const MarkEntry& entry : marks)
    if (entry.col == col) return &entry.marks;
  return nullptr;
}

void drop_marks(Row& row, int col) {
  auto it = std::find_if(row.marks.begin(), row.marks.end(),
                         [col](const MarkEntry& e) { return e.col == col; });
  if (it != row.marks.end()) row.marks.erase(it);
  row.cells[col].flags &= static_cast<std::uint8_t>(~kCellHasMarks);
}

void store_marks(Row& row, int col, const Marks& marks) {
  for (MarkEntry& entry : row.marks) {
    if (entry.col != col) continue;
    entry.marks = marks;
    row.cells[col].flags |= kCellHasMarks;
    return;
  }
  row.marks.push_back(MarkEntry{col, marks});
  row.cells[col].flags |= kCellHasMarks;
}

Grid::Grid(int rows, int cols, const Pen& fill) : cols_(cols) {
  rows_.resize(rows);
  order_.resize(rows);
  std::iota(order_.begin(), order_.end(), 0);
  for (Row& row : rows_) row.cells.assign(cols, blank_cell(fill));
}

void Grid::touch(Row& row) {
  if (row.dirty) return;
  if (row.seq != 0) row.content_hash = hash_of(row);
  row.dirty = true;
}

void Grid::set_cell(Row& row, int c, const Cell& cell) {
  if (row.cells[c].flags & kCellHasMarks) drop_marks(row, c);
  row.cells[c] = cell;
  row.cells[c].flags &= static_cast<std::uint8_t>(~kCellHasMarks);
}

void Grid::put_glyph(int r, int c, std::span<const char32_t> chars, int width,
                     const Pen& pen) {
  if (r < 0 || r >= rows() || c < 0 || c >= cols_ || chars.empty()) return;
  put_char(r, c, chars[0], std::clamp(width, 0, 2), pen);
  if (chars.size() > 1 && chars[0] != 0) {
    Marks marks{};
    for (std::size_t i = 1; i < chars.size() && i <= marks.size(); ++i) marks[i - 1] = chars[i];
    store_marks(row(r), c, marks);
  }
}

void Grid::put_ascii(int r, int c, std::span<const char> text, const Pen& pen) {
  Row& row = this->row(r);
  touch(row);
  Cell* cell = row.cells.data() + c;
  if (!row.marks.empty()) {
    for (std::size_t k = 0; k < text.size(); ++k)
      if (cell[k].flags & kCellHasMarks) drop_marks(row, c + static_cast<int>(k));
  }
  Cell written{0, pen, 1, 0};
  for (char ch : text) {
    written.ch = static_cast<unsigned char>(ch);
    *cell++ = written;
  }
}

// A cell's marks go before it is overwritten; a row without marks (nearly
// every row) needs no look.
void Grid::put_char(int r, int c, char32_t ch, int width, const Pen& pen) {
  Row& row = this->row(r);
  touch(row);
  Cell* const cell = row.cells.data() + c;
  const bool tail = width == 2 && c + 1 < cols_;
  if (!row.marks.empty()) {
    if (cell[0].flags & kCellHasMarks) drop_marks(row, c);
    if (tail && (cell[1].flags & kCellHasMarks)) drop_marks(row, c + 1);
  }
  cell[0] = Cell{ch, pen, static_cast<std::uint8_t>(width), 0};
  if (tail) cell[1].ch = kWideTail;
}

static_assert(std::is_trivially_copyable_v<Cell>);

// Every scroll clears a row: one cell, then copies doubling what is done
// (a few wide memcpy calls instead of a store per cell).
void Grid::clear_row(Row& row, const Pen& fill) {
  const std::size_t n = row.cells.size();
  if (n > 0) {
    Cell* const cells = row.cells.data();
    cells[0] = blank_cell(fill);
    for (std::size_t done = 1; done < n;) {
      const std::size_t step = std::min(done, n - done);
      std::memcpy(static_cast<void*>(cells + done), cells, step * sizeof(Cell));
      done += step;
    }
  }
  row.marks.clear();
  row.seq = 0;
  row.content_hash = 0;
  row.dirty = true;
}

void Grid::erase(Rect rect, const Pen& pen, EraseMode mode) {
  rect = clamp_rect(rect, rows(), cols_);
  const Cell blank = blank_cell(pen);
  for (int r = rect.top; r < rect.bottom; ++r) {
    Row& row = this->row(r);
    touch(row);
    for (int c = rect.left; c < rect.right; ++c) {
      if (mode == EraseMode::SkipProtected && (row.cells[c].pen.attrs & attr::kProtected)) continue;
      set_cell(row, c, blank);
    }
  }
}

void Grid::scroll(Rect rect, int down, int right, const Pen& fill) {
  rect = clamp_rect(rect, rows(), cols_);
  if (rect.top == rect.bottom || rect.left == rect.right) return;
  if (right == 0 && rect.left == 0 && rect.right == cols_) {
    scroll_rows(rect, down, fill);
    return;
  }
  move_cells(rect, down, right, fill);
}

void Grid::scroll_rows(Rect rect, int down, const Pen& fill) {
  const int height = rect.bottom - rect.top;
  const int n = std::min(std::abs(down), height);
  if (n == 0) return;
  auto first = order_.begin() + rect.top;
  auto last = order_.begin() + rect.bottom;
  if (down > 0) {
    std::rotate(first, first + n, last);
    for (int r = rect.bottom - n; r < rect.bottom; ++r) clear_row(row(r), fill);
  } else {
    std::rotate(first, last - n, last);
    for (int r = rect.top; r < rect.top + n; ++r) clear_row(row(r), fill);
  }
}

// Partial-width or sideways scroll: copy the rectangle out, then write every
// destination cell from its source (or blank when the source lies outside).
void Grid::move_cells(Rect rect, int down, int right, const Pen& fill) {
  const int height = rect.bottom - rect.top;
  const int width = rect.right - rect.left;
  std::vector<Cell> source(static_cast<std::size_t>(height) * width);
  std::vector<std::pair<int, MarkEntry>> source_marks;
  for (int rr = 0; rr < height; ++rr) {
    const Row& row = this->row(rect.top + rr);
    std::copy_n(row.cells.begin() + rect.left, width, source.begin() + rr * width);
    for (const MarkEntry& entry : row.marks)
      if (entry.col >= rect.left && entry.col < rect.right)
        source_marks.emplace_back(rr, MarkEntry{entry.col - rect.left, entry.marks});
  }
  const Cell blank = blank_cell(fill);
  for (int rr = 0; rr < height; ++rr) {
    Row& row = this->row(rect.top + rr);
    touch(row);
    for (int cc = 0; cc < width; ++cc) {
      const int sr = rr + down;
      const int sc = cc + right;
      const bool inside = sr >= 0 && sr < height && sc >= 0 && sc < width;
      set_cell(row, rect.left + cc, inside ? source[sr * width + sc] : blank);
    }
  }
  for (const auto& [rr, entry] : source_marks) {
    const int dr = rr - down;
    const int dc = entry.col - right;
    if (dr < 0 || dr >= height || dc < 0 || dc >= width) continue;
    store_marks(row(rect.top + dr), rect.left + dc, entry.marks);
  }
}

void Grid::resize(int new_rows, int new_cols, const Pen& fill) {
  std::vector<Row> resized(new_rows);
  const int kept_rows = std::min(new_rows, rows());
  for (int r = 0; r < kept_rows; ++r) resized[r] = std::move(row(r));
  for (int r = 0; r < new_rows; ++r) {
    Row& row = resized[r];
    if (r >= kept_rows) {
      row.cells.assign(new_cols, blank_cell(fill));
      continue;
    }
    if (new_cols == cols_) continue;
    touch(row);
    // Exactly new_cols: a growing resize() would double the capacity, and
    // an idle pane's rows stay at their width (a quarter more per row for
    // a default-sized pane widened to 120 columns).
    if (new_cols > cols_) row.cells.reserve(new_cols);
    row.cells.resize(new_cols, blank_cell(fill));
    if (new_cols < cols_) row.cells.shrink_to_fit();
    std::erase_if(row.marks, [new_cols](const MarkEntry& e) { return e.col >= new_cols; });
  }
  rows_ = std::move(resized);
  order_.resize(new_rows);
  std::iota(order_.begin(), order_.end(), 0);
  cols_ = new_cols;
}

bool Grid::row_is_blank(int r) const {
  const std::vector<Cell>& cells = row(r).cells;
  return std::all_of(cells.begin(), cells.end(), is_blank);
}

int Grid::last_nonblank_row() const {
  for (int r = rows() - 1; r >= 0; --r)
    if (!row_is_blank(r)) return r;
  return -1;
}

std::uint64_t Grid::hash_of(const Row& row) {
  std::uint64_t h = 0x84222325CBF29CE4ull;
  for (const Cell& cell : row.cells) {
    std::uint64_t words[2];
    std::memcpy(words, &cell, sizeof words);
    h = mix(mix(h, words[0]), words[1]);
  }
  for (const MarkEntry& entry : row.marks) {
    h = mix(h, static_cast<std::uint64_t>(entry.col));
    for (char32_t cp : entry.marks) h = mix(h, cp);
  }
  return h;
}

std::size_t Grid::memory_bytes() const {
  std::size_t bytes = sizeof(*this) + order_.capacity() * sizeof(int);
  for (const Row& row : rows_)
    bytes += sizeof(Row) + row.cells.capacity() * sizeof(Cell) +
             row.marks.capacity() * sizeof(MarkEntry);
  return bytes;
}

}  // namespace signaltty::ptyhost
