// ptyhost/vt_snapshot.cpp: paints grids as replayable VT bytes.
// Runs in: ptyhost. Never: relies on the client's tab stops, charsets or
// autowrap while painting: every row starts with an absolute CUP and text
// modes are only restored after the last glyph.
#include "ptyhost/vt_snapshot.hpp"

#include <vector>

#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr char32_t kPlaceholderWide = U'\u4E00';  // any wide glyph: makes a tail cell

bool is_wide_head(const Cell& cell) {
  return cell.width == 2 && cell.ch != kWideTail && cell.ch != 0;
}

bool is_lone_mark(const Cell& cell) {
  return cell.width == 0 && cell.ch != 0 && cell.ch != kWideTail;
}

bool is_default_blank(const Cell& cell) {
  return cell.ch == 0 && cell.pen.is_default() && !(cell.flags & kCellHasMarks);
}

Pen without_protection(Pen pen) {
  pen.attrs &= static_cast<std::uint16_t>(~attr::kProtected);
  return pen;
}

void append_csi(std::string& out, int a, char final) {
  out += "\x1b[" + std::to_string(a) + final;
}

void append_csi(std::string& out, int a, int b, char final) {
  out += "\x1b[" + std::to_string(a) + ';' + std::to_string(b) + final;
}

// Replays cells onto a terminal fresh from RIS, tracking where its cursor is.
class Painter {
 public:
  explicit Painter(std::string& out) : out_(out) {}

  void paint(const Grid& grid) {
    for (int r = 0; r < grid.rows(); ++r) paint_row(grid.row(r), r, grid.cols());
  }
  void move_to(int row, int col) {
    if (row == row_ && col == col_) return;
    append_csi(out_, row + 1, col + 1, 'H');
    row_ = row;
    col_ = col;
  }
  void set_pen(const Pen& pen) {
    const Pen plain = without_protection(pen);
    if (plain != pen_) {
      append_sgr(out_, plain);
      pen_ = plain;
    }
    const bool wanted = (pen.attrs & attr::kProtected) != 0;
    if (wanted != protected_) out_ += wanted ? "\x1b[1\"q" : "\x1b[0\"q";
    protected_ = wanted;
  }
  void put_glyph(const Row& row, int c, int cols) {
    const Cell& cell = row.cells[c];
    set_pen(cell.pen);
    append_utf8(out_, cell.ch);
    if (cell.flags & kCellHasMarks)
      if (const Marks* marks = row.marks_at(c))
        for (char32_t mark : *marks)
          if (mark != 0) append_utf8(out_, mark);
    col_ = c + cell.width >= cols ? -1 : c + cell.width;  // -1: waiting to wrap
  }
  void forget_cursor() { row_ = col_ = -1; }

 private:
  void paint_row(const Row& row, int r, int cols);
  void paint_erased_run(const Row& row, int r, int& c, int cols);
  void paint_last_column_wide(const Row& row, int r, int cols);
  void paint_leading_tail(int r);
  void paint_lone_marks(const Row& row, int r, int cols);
  void erase_one(int r, int c) {
    move_to(r, c);
    set_pen(Pen{});
    out_ += "\x1b[X";
  }

  std::string& out_;
  Pen pen_;
  bool protected_ = false;
  int row_ = 0;
  int col_ = 0;
};

// A row is painted in two passes. First what must exist before its left
// neighbour is written: a tail whose head was overwritten is made by writing
// a wide glyph one cell to its left (right to left, so that neighbouring
// orphans nest), and combining marks that stand alone. Then every cell left
// to right; a cell that held a helper glyph is painted even when blank.
void Painter::paint_row(const Row& row, int r, int cols) {
  std::vector<bool> must_paint(static_cast<std::size_t>(cols), false);
  if (cols > 1 && row.cells[0].ch == kWideTail) paint_leading_tail(r);
  for (int c = cols - 1; c >= 1; --c) {
    if (row.cells[c].ch != kWideTail || is_wide_head(row.cells[c - 1])) continue;
    move_to(r, c - 1);
    set_pen(Pen{});
    append_utf8(out_, kPlaceholderWide);
    col_ = c + 1 >= cols ? -1 : c + 1;
    must_paint[c - 1] = true;
  }
  paint_lone_marks(row, r, cols);
  bool cover_next = false;
  for (int c = 0; c < cols; ++c) {
    const Cell& cell = row.cells[c];
    const bool forced = cover_next || must_paint[c];
    cover_next = false;
    if (cell.ch == kWideTail || is_lone_mark(cell)) continue;
    if (is_default_blank(cell)) {
      if (forced) erase_one(r, c);
      continue;
    }
    if (cell.ch == 0) {
      paint_erased_run(row, r, c, cols);
      continue;
    }
    if (is_wide_head(cell) && c == cols - 1) {
      paint_last_column_wide(row, r, cols);
      continue;
    }
    move_to(r, c);
    put_glyph(row, c, cols);
    cover_next = is_wide_head(cell) && (c + 1 >= cols || row.cells[c + 1].ch != kWideTail);
  }
}

// A combining mark libvterm could not join to a glyph sits alone in its cell
// with no width. Written right after the glyph to its left, libvterm would
// join them, so these go before the row's other cells.
void Painter::paint_lone_marks(const Row& row, int r, int cols) {
  for (int c = 0; c < cols; ++c) {
    if (!is_lone_mark(row.cells[c])) continue;
    move_to(r, c);
    put_glyph(row, c, cols);
  }
}

// A tail in column 0 (left by DCH) is a wide glyph written there and
// shifted left by DCH, before anything else of the row is painted.
void Painter::paint_leading_tail(int r) {
  move_to(r, 0);
  set_pen(Pen{});
  append_utf8(out_, kPlaceholderWide);
  forget_cursor();
  move_to(r, 0);
  out_ += "\x1b[P";
}

// Erased cells keep their pen: ECH erases with the current pen and leaves
// the cursor in place.
void Painter::paint_erased_run(const Row& row, int r, int& c, int cols) {
  int end = c + 1;
  while (end < cols && row.cells[end].ch == 0 && row.cells[end].pen == row.cells[c].pen) ++end;
  move_to(r, c);
  set_pen(row.cells[c].pen);
  append_csi(out_, end - c, 'X');
  c = end - 1;
}

// A wide head in the last column (pushed there by ICH) is written one cell
// to the left and shifted right by ICH; the cell it leaves is painted again.
void Painter::paint_last_column_wide(const Row& row, int r, int cols) {
  if (cols < 2) return;
  move_to(r, cols - 2);
  put_glyph(row, cols - 1, cols);
  forget_cursor();
  move_to(r, cols - 2);
  out_ += "\x1b[@";
  const Cell& left = row.cells[cols - 2];
  if (left.ch == kWideTail && cols >= 3 && is_wide_head(row.cells[cols - 3])) {
    move_to(r, cols - 3);
    put_glyph(row, cols - 3, cols);
  } else if (left.ch != 0 && left.ch != kWideTail) {
    put_glyph(row, cols - 2, cols);
  } else if (!is_default_blank(left)) {
    set_pen(left.pen);
    out_ += "\x1b[X";
  } else {
    erase_one(r, cols - 2);
  }
}

void append_margins(std::string& out, const TerminalModes& modes, int rows, int cols) {
  if (modes.scroll_top != 0 || modes.scroll_bottom != rows)
    append_csi(out, modes.scroll_top + 1, modes.scroll_bottom, 'r');
  if (modes.lr_margin_mode) {
    out += "\x1b[?69h";
    if (modes.margin_left != 0 || modes.margin_right != cols)
      append_csi(out, modes.margin_left + 1, modes.margin_right, 's');
  }
  if (modes.origin) out += "\x1b[?6h";
}

// CUP under DECOM is relative to the margins and clamped into them.
void append_origin_cup(std::string& out, const TerminalModes& modes, int row, int col) {
  if (modes.origin) {
    row -= modes.scroll_top;
    if (modes.lr_margin_mode) col -= modes.margin_left;
  }
  append_csi(out, std::max(row, 0) + 1, std::max(col, 0) + 1, 'H');
}

bool reachable_by_cup(const TerminalModes& modes, int row, int col) {
  if (!modes.origin) return true;
  const bool inside_cols = !modes.lr_margin_mode || (col >= modes.margin_left && col < modes.margin_right);
  return row >= modes.scroll_top && row < modes.scroll_bottom && inside_cols;
}

// Writes the glyph at (row, col) again so that the cursor ends where
// writing it left the cursor; returns the pen it leaves set.
Pen rewrite_glyph(std::string& out, const SnapshotInput& in, const Grid& screen, int row, int col) {
  append_origin_cup(out, in.modes, row, col);
  Painter painter(out);
  painter.put_glyph(screen.row(row), col, screen.cols());
  return screen.row(row).cells[col].pen;
}

bool is_glyph(const Cell& cell) { return cell.ch != 0 && cell.ch != kWideTail; }

enum class CursorPlan { Cup, RewriteGlyph, RestoreSaved };

// A cursor waiting to wrap sits on the glyph it just wrote; a cursor that
// text moved past a DECOM margin sits right after it: both are rebuilt by
// writing that glyph again. A cursor DECRC left outside DECOM margins is
// put back by DECRC when the saved slot matches it. Any other cursor is a
// CUP. `glyph_col` is the glyph to rewrite.
CursorPlan plan_cursor(const SnapshotInput& in, const Grid& screen, int& glyph_col) {
  const int row = in.cursor.row;
  const int col = in.cursor.col;
  glyph_col = col;
  if (row < 0 || row >= screen.rows() || col < 0) return CursorPlan::Cup;  // clamped by the CUP
  const Row& under = screen.row(row);
  if (in.pending_wrap && in.modes.autowrap && col < screen.cols() && is_glyph(under.cells[col]))
    return CursorPlan::RewriteGlyph;
  if (reachable_by_cup(in.modes, row, col)) return CursorPlan::Cup;
  if (in.saved && in.saved->pos == in.cursor && in.saved->pen == in.pen &&
      in.saved->visible == in.modes.cursor_visible && in.saved->style == in.modes.cursor_style)
    return CursorPlan::RestoreSaved;
  if (col > 0 && col <= screen.cols()) {
    int start = col - 1;
    if (under.cells[start].ch == kWideTail && start > 0) --start;
    const Cell& cell = under.cells[start];
    glyph_col = start;
    if (is_glyph(cell) && start + std::max<int>(cell.width, 1) == col) return CursorPlan::RewriteGlyph;
  }
  return CursorPlan::Cup;
}

void append_modes(std::string& out, const TerminalModes& modes) {
  if (!modes.autowrap) out += "\x1b[?7l";
  if (modes.app_cursor_keys) out += "\x1b[?1h";
  if (modes.app_keypad) out += "\x1b=";
  if (modes.bracketed_paste) out += "\x1b[?2004h";
  if (modes.mouse == MouseTracking::Click) out += "\x1b[?1000h";
  if (modes.mouse == MouseTracking::Drag) out += "\x1b[?1002h";
  if (modes.mouse == MouseTracking::Motion) out += "\x1b[?1003h";
  if (modes.mouse_encoding == MouseEncoding::Utf8) out += "\x1b[?1005h";
  if (modes.mouse_encoding == MouseEncoding::Sgr) out += "\x1b[?1006h";
  if (modes.mouse_encoding == MouseEncoding::Urxvt) out += "\x1b[?1015h";
  if (modes.focus_events) out += "\x1b[?1004h";
  if (modes.reverse_video) out += "\x1b[?5h";
  if (modes.cursor_style != 1) out += "\x1b[" + std::to_string(modes.cursor_style) + " q";
  if (!modes.cursor_visible) out += "\x1b[?25l";
}

void append_titles(std::string& out, std::string_view title, std::string_view icon_name) {
  if (!icon_name.empty()) out.append("\x1b]1;").append(icon_name).append("\x07");
  if (!title.empty()) out.append("\x1b]2;").append(title).append("\x07");
}

void append_cursor_look(std::string& out, bool visible, int style) {
  out += visible ? "\x1b[?25h" : "\x1b[?25l";
  out += "\x1b[" + std::to_string(style) + " q";
}

}  // namespace

std::string build_snapshot(const SnapshotInput& in) {
  std::string out = "\x1b" "c";
  Painter painter(out);
  painter.paint(*in.main);
  if (in.saved) {
    painter.move_to(in.saved->pos.row, in.saved->pos.col);
    painter.set_pen(in.saved->pen);
    append_cursor_look(out, in.saved->visible, in.saved->style);
    out += "\x1b" "7";
  }
  if (in.alt != nullptr) {
    painter.set_pen(Pen{});
    out += "\x1b[?1047h";
    painter.paint(*in.alt);
  }
  painter.set_pen(Pen{});
  const Grid& screen = in.alt != nullptr ? *in.alt : *in.main;
  append_margins(out, in.modes, screen.rows(), screen.cols());
  append_modes(out, in.modes);
  if (in.saved) append_cursor_look(out, in.modes.cursor_visible, in.modes.cursor_style);
  // libvterm clamps the cursor into DECOM margins after every CSI, so a
  // cursor placed outside them by text or DECRC goes last among CSIs.
  int glyph_col = 0;
  const CursorPlan plan = plan_cursor(in, screen, glyph_col);
  Pen left;
  if (plan == CursorPlan::RewriteGlyph) left = rewrite_glyph(out, in, screen, in.cursor.row, glyph_col);
  if (plan == CursorPlan::Cup) append_origin_cup(out, in.modes, in.cursor.row, in.cursor.col);
  if (without_protection(left) != without_protection(in.pen))
    append_sgr(out, without_protection(in.pen));
  if (((left.attrs & attr::kProtected) != 0) != in.protect)
    out += in.protect ? "\x1b[1\"q" : "\x1b[0\"q";
  out += in.text_modes;
  if (plan == CursorPlan::RestoreSaved) out += "\x1b" "8";
  append_titles(out, in.title, in.icon_name);
  out += in.pending;
  return out;
}

}  // namespace signaltty::ptyhost
