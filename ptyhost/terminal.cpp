// ptyhost/terminal.cpp: feeding libvterm through VtGuard, its state
// callbacks into our grids, batch reconciliation and reads.
// Runs in: ptyhost, on the pane's output pump and on read requests.
// Never: hands libvterm a byte VtGuard has not passed, or queries libvterm
// while bytes of a feed are still queued.
#include "ptyhost/terminal.hpp"

#include <vterm.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <utility>

#include "common/limits.hpp"
#include "ptyhost/compact_row.hpp"
#include "ptyhost/line_render.hpp"
#include "ptyhost/simple_sgr.hpp"
#include "ptyhost/utf8.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr unsigned char kShiftOut = 0x0e;
constexpr unsigned char kShiftIn = 0x0f;

bool printable_ascii(char c) { return c >= 0x20 && c < 0x7f; }

Rect to_rect(VTermRect r) { return Rect{r.start_row, r.end_row, r.start_col, r.end_col}; }

Color to_color(const VTermColor& color) {
  if (color.type & VTERM_COLOR_DEFAULT_MASK) return Color{};
  if (VTERM_COLOR_IS_INDEXED(&color)) return Color::indexed(color.indexed.idx);
  return Color::rgb(color.rgb.red, color.rgb.green, color.rgb.blue);
}

void apply_pen_attr(Pen& pen, VTermAttr attr, const VTermValue& value) {
  switch (attr) {
    case VTERM_ATTR_BOLD: pen.set(attr::kBold, value.boolean); break;
    case VTERM_ATTR_ITALIC: pen.set(attr::kItalic, value.boolean); break;
    case VTERM_ATTR_BLINK: pen.set(attr::kBlink, value.boolean); break;
    case VTERM_ATTR_REVERSE: pen.set(attr::kReverse, value.boolean); break;
    case VTERM_ATTR_STRIKE: pen.set(attr::kStrike, value.boolean); break;
    case VTERM_ATTR_UNDERLINE: pen.set_underline(value.number); break;
    case VTERM_ATTR_FONT: pen.set_font(value.number); break;
    case VTERM_ATTR_FOREGROUND: pen.fg = to_color(value.color); break;
    case VTERM_ATTR_BACKGROUND: pen.bg = to_color(value.color); break;
    default: break;
  }
}

TerminalSize clamp_size(TerminalSize size) {
  return TerminalSize{std::clamp(size.cols, limits::kMinCols, signaltty::limits::kPaneColsMax),
                      std::clamp(size.rows, 1, signaltty::limits::kPaneRowsMax)};
}

MouseTracking mouse_tracking(int prop) {
  switch (prop) {
    case VTERM_PROP_MOUSE_CLICK: return MouseTracking::Click;
    case VTERM_PROP_MOUSE_DRAG: return MouseTracking::Drag;
    case VTERM_PROP_MOUSE_MOVE: return MouseTracking::Motion;
    default: return MouseTracking::Off;
  }
}

int cursor_style(int shape, bool blink) {
  const int family = shape == VTERM_PROP_CURSORSHAPE_UNDERLINE  ? 2
                     : shape == VTERM_PROP_CURSORSHAPE_BAR_LEFT ? 3
                                                                : 1;
  return family * 2 - (blink ? 1 : 0);
}

bool is_csi(std::string_view seq) { return seq.starts_with("\x1b["); }

// ESC [ ... m: an SGR, or what libvterm would take as one.
bool is_sgr(std::string_view seq) {
  return seq.size() >= 3 && seq[0] == '\x1b' && seq[1] == '[' && seq.back() == 'm';
}

bool row_is_empty(const Row& row) {
  return std::all_of(row.cells.begin(), row.cells.end(), [](const Cell& c) { return c.ch == 0; });
}

}  // namespace

// libvterm's C callbacks, forwarding to Terminal.
class VtCallbacks {
 public:
  static Terminal& self(void* user) { return *static_cast<Terminal*>(user); }

  static int putglyph(VTermGlyphInfo* info, VTermPos pos, void* user) {
    if (self(user).replaying_) return 1;
    self(user).on_glyph(info->chars, info->width, info->protected_cell, info->dwl, pos.row,
                        pos.col);
    return 1;
  }
  static int movecursor(VTermPos pos, VTermPos, int visible, void* user) {
    if (self(user).replaying_) return 1;
    self(user).on_cursor(pos.row, pos.col, visible != 0);
    return 1;
  }
  static int scrollrect(VTermRect rect, int down, int right, void* user) {
    if (self(user).replaying_) return 1;  // insert mode shifts the row first
    self(user).on_scroll(to_rect(rect), down, right);
    return 1;
  }
  static int erase(VTermRect rect, int selective, void* user) {
    Terminal& t = self(user);
    t.active().erase(to_rect(rect), t.pen_, selective ? EraseMode::SkipProtected : EraseMode::All);
    return 1;
  }
  static int initpen(void* user) {
    self(user).pen_ = Pen{};
    return 1;
  }
  static int setpenattr(VTermAttr attr, VTermValue* value, void* user) {
    apply_pen_attr(self(user).pen_, attr, *value);
    return 1;
  }
  static int settermprop(VTermProp prop, VTermValue* value, void* user);
  static int bell(void* user) {
    ++self(user).effects_.bells;
    return 1;
  }
  static int resize(int rows, int cols, VTermPos* delta, void* user) {
    self(user).on_resize(rows, cols, delta->row);
    return 1;
  }
  // As VTermScreen: a line turning double-width loses its right half.
  static int setlineinfo(int row, const VTermLineInfo* now, const VTermLineInfo* before,
                         void* user) {
    const bool changed = now->doublewidth != before->doublewidth ||
                         now->doubleheight != before->doubleheight;
    if (!changed || !now->doublewidth) return 1;
    Terminal& t = self(user);
    t.double_width_seen_ = true;
    Grid& grid = t.active();
    grid.erase(Rect{row, row + 1, grid.cols() / 2, grid.cols()}, t.pen_, EraseMode::All);
    return 1;
  }
  static void output(const char* bytes, std::size_t len, void* user) {
    Terminal& t = self(user);
    if (t.probe_output_ != nullptr) {
      t.probe_output_->append(bytes, len);
    } else if (t.reply_sink_) {
      t.reply_sink_(std::string_view(bytes, len));
    }
  }

  static constexpr VTermStateCallbacks kTable = {
      putglyph, movecursor, scrollrect, nullptr, erase, initpen,
      setpenattr, settermprop, bell, resize, setlineinfo,
  };
};

int VtCallbacks::settermprop(VTermProp prop, VTermValue* value, void* user) {
  Terminal& t = self(user);
  switch (prop) {
    case VTERM_PROP_CURSORVISIBLE: t.cursor_visible_ = value->boolean != 0; break;
    case VTERM_PROP_CURSORBLINK: t.cursor_blink_ = value->boolean != 0; break;
    case VTERM_PROP_CURSORSHAPE: t.cursor_shape_ = value->number; break;
    case VTERM_PROP_REVERSE: t.reverse_video_ = value->boolean != 0; break;
    case VTERM_PROP_MOUSE: t.mouse_ = mouse_tracking(value->number); break;
    case VTERM_PROP_ALTSCREEN: t.on_alt_screen(value->boolean != 0); break;
    case VTERM_PROP_TITLE:
      t.title_ = value->string != nullptr ? value->string : "";
      t.effects_.title_changed = true;
      break;
    case VTERM_PROP_ICONNAME: t.icon_name_ = value->string != nullptr ? value->string : ""; break;
    default: break;
  }
  return 1;
}

void Terminal::VTermDeleter::operator()(VTerm* vt) const { vterm_free(vt); }

Terminal::Terminal(TerminalSize size)
    : main_(clamp_size(size).rows, clamp_size(size).cols, Pen{}) {
  const TerminalSize clamped = clamp_size(size);
  vt_.reset(vterm_new(clamped.rows, clamped.cols));
  vterm_set_utf8(vt_.get(), 1);
  vterm_output_set_callback(vt_.get(), VtCallbacks::output, this);
  state_ = vterm_obtain_state(vt_.get());
  vterm_state_set_callbacks(state_, &VtCallbacks::kTable, this);
  vterm_state_reset(state_, 1);
  reconcile();
}

Terminal::~Terminal() = default;

TerminalSize Terminal::size() const { return TerminalSize{main_.cols(), main_.rows()}; }

CursorState Terminal::cursor() const {
  return CursorState{cursor_.row, cursor_.col, cursor_visible_};
}

void Terminal::set_reply_sink(std::function<void(std::string_view)> sink) {
  reply_sink_ = std::move(sink);
}

FeedEffects Terminal::feed(std::string_view bytes) {
  effects_ = FeedEffects{};
  input_ = bytes;
  guard_.filter(bytes, *this);
  flush();
  catch_up_vterm({});
  sync_cursor();
  input_ = {};
  reconcile();
  return effects_;
}

// Ground text: stretches of characters that are each a glyph of their own
// (printable ASCII, and UTF-8 that libvterm draws one or two columns wide)
// are drawn straight into the grid when libvterm would draw them
// unchanged; everything else goes to libvterm (queue_text).
void Terminal::vt_text(std::string_view bytes) {
  if (!is_valid_utf8(bytes)) {
    // libvterm turns ill-formed UTF-8 into U+FFFD only when what ends it
    // arrives in the same write; repaired here, the screen never depends on
    // chunking. VtGuard holds back a character cut by a chunk, so one still
    // incomplete at the end of a piece is ill-formed.
    draw_text(repair_utf8(bytes));
    return;
  }
  draw_text(bytes);
}

void Terminal::draw_text(std::string_view bytes) {
  std::size_t owed = 0;  // bytes[owed, i) are libvterm's, not yet queued
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (is_c0_or_del(c)) {
      if (c == kShiftOut || c == kShiftIn) text_modes_.note_control(c);
      ++i;
      continue;
    }
    bool high = c >= 0x80;
    const std::size_t end = control_or_end(bytes, i + 1, high);
    const bool ascii = !high;
    // In origin mode libvterm clamps the cursor into the scroll region
    // after every CSI, so the fast path's cursor move would pull a cursor
    // that DECRC put below the region back into it.
    if (end - i > limits::kFastTextMinRun && text_modes_.plain_ascii() && !text_modes_.origin())
      owed = draw_fast_text(bytes, owed, i, end, ascii);
    text_modes_.note_text();
    i = end;
  }
  queue_text(bytes, owed, bytes.size());
}

// libvterm 0.1.4 decodes a write's text that starts with a UTF-8 byte wholly
// as UTF-8, so ASCII after it escapes a non-ASCII GL charset and joins a
// combining mark differently than ASCII decoded on its own. Where a chunk
// ends would then change the screen; instead every printable ASCII byte
// after a UTF-8 byte starts a new write, so each kind meets its own decoder.
void Terminal::queue_text(std::string_view bytes, std::size_t begin, std::size_t end) {
  std::size_t from = begin;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > 0 && printable_ascii(bytes[i]) && static_cast<unsigned char>(bytes[i - 1]) >= 0x80) {
      queue(bytes.substr(from, i - from));
      flush();
      from = i;
    }
  }
  queue(bytes.substr(from, end - from));
}

// A UTF-8 character: as wide as libvterm draws it on its own, or 0.
// (libvterm decodes UTF-8: the constructor says so, and nothing unsays it.)
Terminal::SimpleChar Terminal::simple_utf8_char(std::string_view bytes, std::size_t i) {
  std::size_t length = 0;
  const char32_t cp = decode_well_formed(bytes, i, length);
  return SimpleChar{widths_.simple_width(cp), length};
}

// Draws the text run bytes[begin, end) straight into the grid where
// libvterm would draw it unchanged: stretches of characters that are each
// a glyph of their own (ASCII, and UTF-8 that libvterm gives one or two
// columns), row by row, up to but not including each row's last column;
// libvterm draws that column and the character that wraps, so wrapping
// and scrolling stay its own. libvterm's cursor and its memory of the last
// glyph (for REP and a combining mark) stay behind (lag_) until a write
// needs them. Everything not drawn is queued for libvterm in order, from
// `owed`. Returns where the bytes still owed to libvterm start.
// `ascii`: the run is all ASCII, one stretch of one-column characters.
std::size_t Terminal::draw_fast_text(std::string_view bytes, std::size_t owed, std::size_t begin,
                                     std::size_t end, bool ascii) {
  std::size_t pos = begin;
  bool wrapped_last = false;
  while (pos < end) {
    // Too short a stretch ahead (or none): libvterm's, up to the character
    // that ends it, which is libvterm's as well.
    if (ascii) {
      if (end - pos <= limits::kFastTextMinRun) break;
    } else {
      std::size_t scan = pos;
      std::size_t count = 0;
      while (scan < end && count <= limits::kFastTextMinRun) {
        const SimpleChar ch = simple_char(bytes, scan);
        if (ch.width == 0) break;
        scan += ch.bytes;
        ++count;
      }
      if (count <= limits::kFastTextMinRun) {
        if (scan == end) break;
        pos = scan + simple_char(bytes, scan).bytes;
        wrapped_last = false;
        continue;
      }
    }
    queue_text(bytes, owed, pos);
    owed = pos;
    flush();
    const CursorPos cursor = lagged_cursor();
    Grid& grid = active();
    // libvterm's line info covers its rows only; any doubt goes to libvterm.
    if (cursor.row < 0 || cursor.row >= grid.rows() || cursor.col < 0) break;
    if (vterm_state_get_lineinfo(state_, cursor.row)->doublewidth) break;
    // A glyph drawn at the end of its row leaves libvterm's cursor on it
    // with a wrap pending, which its API does not show. Where that row has
    // since lost double width (an erase, DECSWL), the cursor is short of
    // the last column and the next character still wraps first.
    if (last_glyph_.at_margin && cursor.row == last_glyph_.pos.row && cursor.col == last_glyph_.pos.col)
      break;
    const int room = std::max(grid.cols() - 1 - cursor.col, 0);
    // What fits before the row's last column.
    std::size_t fit = pos;
    std::size_t last_start = pos;
    int columns = 0;
    int last_width = 0;
    std::size_t count = 0;
    bool stretch_ended = true;
    if (ascii) {
      const auto left = end - pos;
      const auto fits = static_cast<std::size_t>(room);
      stretch_ended = left <= fits;
      count = std::min(left, fits);
      fit = pos + count;
      columns = static_cast<int>(count);
      last_start = fit - 1;
      last_width = 1;
    }
    while (!ascii && fit < end) {
      if (static_cast<unsigned char>(bytes[fit]) < 0x80) {
        // ASCII, one column a byte, taken as a block.
        const std::size_t ascii_end = ascii_run_end(bytes.substr(0, end), fit + 1);
        const auto take = std::min(ascii_end - fit, static_cast<std::size_t>(room - columns));
        if (take > 0) {
          last_start = fit + take - 1;
          last_width = 1;
          columns += static_cast<int>(take);
          fit += take;
          count += take;
        }
        if (fit < ascii_end) {
          stretch_ended = false;
          break;
        }
        continue;
      }
      const SimpleChar ch = simple_utf8_char(bytes, fit);
      if (ch.width == 0) break;
      if (columns + ch.width > room) {
        stretch_ended = false;
        break;
      }
      last_start = fit;
      last_width = ch.width;
      columns += ch.width;
      fit += ch.bytes;
      ++count;
    }
    if (count < limits::kFastTextMinRun) {
      if (stretch_ended || wrapped_last) {
        // libvterm's from here to the end of the stretch.
        for (SimpleChar ch; fit < end && (ch = simple_char(bytes, fit)).width != 0;) fit += ch.bytes;
        if (fit == end) break;
        pos = fit + simple_char(bytes, fit).bytes;
        wrapped_last = false;
        continue;
      }
      // The row is all but full: libvterm fills it and wraps, through the
      // first character on the next row; the fast path goes on from there.
      std::size_t through = pos;
      for (int wrapped = 0; through < end && wrapped < room + 2;) {
        const SimpleChar ch = simple_char(bytes, through);
        if (ch.width == 0) break;
        wrapped += ch.width;
        through += ch.bytes;
      }
      queue_text(bytes, pos, through);
      owed = pos = through;
      wrapped_last = true;
      continue;
    }
    if (ascii) grid.put_ascii(cursor.row, cursor.col, bytes.substr(pos, fit - pos), pen_);
    else put_simple(grid, cursor.row, cursor.col, bytes.substr(pos, fit - pos));
    std::size_t last_length = 1;
    const char32_t last = static_cast<unsigned char>(bytes[last_start]) < 0x80
                              ? static_cast<char32_t>(bytes[last_start])
                              : decode_well_formed(bytes, last_start, last_length);
    const CursorPos last_pos{cursor.row, cursor.col + columns - last_width};
    lag_.cols += columns;
    lag_.glyph = FastGlyph{last, last_width, last_pos};
    last_glyph_ = GlyphTrace{last_pos, last_width, false, true};
    cursor_ = on_grid(cursor.row, cursor.col + columns);
    owed = pos = fit;
    wrapped_last = false;
  }
  return owed;
}

// Writes simple characters left to right from (row, col): ASCII in runs,
// each other character as libvterm's putglyph would have.
void Terminal::put_simple(Grid& grid, int row, int col, std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t ascii_end = ascii_run_end(text, i);
    if (ascii_end > i) {
      grid.put_ascii(row, col, text.substr(i, ascii_end - i), pen_);
      col += static_cast<int>(ascii_end - i);
      i = ascii_end;
      continue;
    }
    std::size_t length = 0;
    const char32_t cp = decode_well_formed(text, i, length);
    const int width = widths_.simple_width(cp);
    grid.put_char(row, col, cp, width, pen_);
    col += width;
    i += length;
  }
}

// An SGR in the common subset (simple_sgr.hpp) changes pen_ here and never
// reaches libvterm, whose own pen then lags behind: nothing of ours reads
// it (glyphs, erases and scrolls take pen_), but libvterm saves it with the
// cursor (DECSC, 1049), restores it, reports it (DECRQSS) and applies the
// SGRs it is left with on top of it. So its pen is set to pen_ again with an
// SGR before any other sequence, where that SGR's end-of-CSI clamp would
// not move the cursor (a line feed can leave it past the end of a
// double-width row). Where it would: after a CSI, whose own clamp leaves
// nothing for it to move; not for other sequences, unless they read the
// pen. (An SGR clamps the cursor anyway; a cursor saved past the end of a
// double-width row is saved clamped, a column short of libvterm's own.)
void Terminal::vt_sequence(std::string_view bytes) {
  if (is_sgr(bytes)) {
    // What libvterm still has to do (draw text in the old pen, apply an
    // SGR of its own) it does first.
    flush();
    const std::optional<Pen> pen =
        sgr_moves_no_cursor() ? apply_simple_sgr(bytes, pen_) : std::nullopt;
    if (pen) {
      pen_ = *pen;
      vterm_pen_behind_ = true;
      return;
    }
  }
  bool pen_after = false;
  if (vterm_pen_behind_) {
    flush();
    pen_after = !sgr_moves_no_cursor() && !reads_vterm_pen(bytes);
    if (!pen_after) catch_up_vterm_pen();
  }
  if (text_modes_.saves_cursor(bytes)) {
    flush();  // the slot takes what libvterm holds right before this sequence
    saved_cursor_ = SavedCursor{cursor_, pen_, cursor_visible_,
                                cursor_style(cursor_shape_, cursor_blink_)};
  }
  const bool restores = text_modes_.restores_cursor(bytes);
  text_modes_.note_sequence(bytes);
  queue(bytes);
  if (restores) {
    flush();
    keep_cursor_on_screen();
  }
  if (pen_after && is_csi(bytes)) catch_up_vterm_pen();
}

// Sequences whose effect depends on libvterm's pen: an SGR (applied on top
// of it), a saved cursor (which keeps it) and a DCS (DECRQSS reports it).
bool Terminal::reads_vterm_pen(std::string_view bytes) const {
  return is_sgr(bytes) || text_modes_.saves_cursor(bytes) || bytes.starts_with("\x1bP");
}

// libvterm ends every CSI, SGR included, by clamping its cursor into the
// screen (into the scroll region in origin mode), and a cursor it moves
// loses its pending wrap: an SGR is only ours where that changes nothing.
bool Terminal::sgr_moves_no_cursor() {
  if (text_modes_.origin()) return false;
  const CursorPos pos = lagged_cursor();
  if (pos.row < 0 || pos.row >= main_.rows() || pos.col < 0) return false;
  const int row_width = vterm_state_get_lineinfo(state_, pos.row)->doublewidth ? main_.cols() / 2
                                                                                : main_.cols();
  return pos.col < row_width;
}

void Terminal::catch_up_vterm_pen() {
  if (!vterm_pen_behind_) return;
  vterm_pen_behind_ = false;
  flush();
  std::string sgr;
  append_sgr(sgr, pen_);  // libvterm's callbacks set pen_ to what it already is
  write_vterm(sgr);
}

// libvterm 0.1.4 puts a saved cursor back where it was saved, even where a
// resize since took that row or column away, and the next glyph or line
// attribute then reads and writes its line info out of bounds. As xterm
// does, the cursor comes back onto the screen, at its last row or column.
void Terminal::keep_cursor_on_screen() {
  VTermPos pos;
  vterm_state_get_cursorpos(state_, &pos);
  const TerminalSize size = this->size();
  if (pos.row < size.rows && pos.col < size.cols) return;
  int row = std::min(pos.row, size.rows - 1);
  int col = std::min(pos.col, size.cols - 1);
  // In origin mode CUP counts from the margins (and stops at them).
  const TerminalModes m = modes();
  if (m.origin) {
    row -= m.scroll_top;
    if (m.lr_margin_mode) col -= m.margin_left;
  }
  write_vterm("\x1b[" + std::to_string(std::max(row, 0) + 1) + ";" +
              std::to_string(std::max(col, 0) + 1) + "H");
}

// libvterm 0.1.4 loops forever on REP when its last glyph has no width, so
// such a REP is dropped. (A sequence the REP's ESC cut short came with a CAN
// that ended it, so nothing waits for the dropped bytes.)
void Terminal::vt_repeat(std::string_view bytes) {
  flush();
  if (last_glyph_.width >= 1) write_vterm(bytes);
}

void Terminal::queue(std::string_view bytes) {
  if (bytes.empty()) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(input_.data());
  const auto at = reinterpret_cast<std::uintptr_t>(bytes.data());
  if (at < begin || at + bytes.size() > begin + input_.size()) {
    flush();
    write_vterm(bytes);
    return;
  }
  if (!queued_.empty() && queued_.data() + queued_.size() == bytes.data()) {
    queued_ = std::string_view(queued_.data(), queued_.size() + bytes.size());
    return;
  }
  flush();
  queued_ = bytes;
}

void Terminal::flush() {
  if (queued_.empty()) return;
  const std::string_view bytes = queued_;
  queued_ = {};
  write_vterm(bytes);
}

void Terminal::write_vterm(std::string_view bytes) {
  const bool carriage_return_catches_up = lag_.cols != 0 && !bytes.empty() && bytes[0] == '\r';
  catch_up_vterm(bytes);
  vterm_input_write(vt_.get(), bytes.data(), bytes.size());
  // libvterm reports no move when its cursor was at column 0 already.
  if (carriage_return_catches_up) sync_cursor();
}

// What a write of `bytes` does with the last glyph libvterm remembers:
// draws a glyph of its own first (a printable character that is no
// combining mark), leaves it unread (CR, BS, HT, BEL and line feeds, none
// of which reads it or changes how it would replay, unless a line feed
// brings a double-width row under it), or may read it or change how it
// replays (everything else, and nothing at all: the end of a feed).
Terminal::GlyphNeed Terminal::glyph_need(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) return GlyphNeed::Drawn;
    switch (c) {
      case '\a':
      case '\b':
      case '\t':
      case '\r': continue;
      case '\n':
      case '\v':
      case '\f':
        if (double_width_seen_) return GlyphNeed::Read;
        continue;
      default: break;
    }
    if (c < 0x80) return GlyphNeed::Read;
    std::size_t next = i;
    const char32_t cp = decode_utf8(bytes, next);
    const bool glyph = cp != kReplacementChar && widths_.simple_width(cp) != 0;
    return glyph ? GlyphNeed::Drawn : GlyphNeed::Read;
  }
  return bytes.empty() ? GlyphNeed::Read : GlyphNeed::Unread;
}

// Brings libvterm as far up to the fast path as `next` needs: its last
// glyph (replayed, which puts its cursor right too), then its cursor (one
// CUF, or nothing before a CR, which takes it to column 0 from anywhere;
// there is no pending wrap while it lags).
void Terminal::catch_up_vterm(std::string_view next) {
  if (lag_.glyph) {
    switch (glyph_need(next)) {
      case GlyphNeed::Drawn: lag_.glyph.reset(); break;
      case GlyphNeed::Unread: break;
      case GlyphNeed::Read: replay_fast_glyph(); return;
    }
  }
  if (lag_.cols == 0) return;
  const int cols = std::exchange(lag_.cols, 0);
  if (!next.empty() && next[0] == '\r') return;
  char forward[24] = "\x1b[";
  char* end_of_number = std::to_chars(forward + 2, forward + sizeof forward - 1, cols).ptr;
  *end_of_number = 'C';
  vterm_input_write(vt_.get(), forward, static_cast<std::size_t>(end_of_number + 1 - forward));
}

// libvterm draws the fast path's last glyph where the fast path drew it,
// which makes it the glyph libvterm remembers, and its cursor goes back to
// ours. Its callbacks change nothing meanwhile: the cell may hold something
// else by now. Nothing since the fast path drew it has changed how libvterm
// draws it (the GL charset, insert and origin mode, the row's width): any
// write that could went through catch_up_vterm first.
void Terminal::replay_fast_glyph() {
  const FastGlyph glyph = *lag_.glyph;
  lag_.glyph.reset();
  const CursorPos back = lagged_cursor();
  lag_.cols = 0;
  std::string bytes;
  const auto move_to = [&bytes](CursorPos at) {
    bytes += "\x1b[";
    bytes += std::to_string(at.row + 1);
    bytes += ';';
    bytes += std::to_string(at.col + 1);
    bytes += 'H';
  };
  move_to(glyph.pos);
  append_utf8(bytes, glyph.ch);
  move_to(back);
  replaying_ = true;
  vterm_input_write(vt_.get(), bytes.data(), bytes.size());
  replaying_ = false;
}

CursorPos Terminal::lagged_cursor() const {
  VTermPos pos;
  vterm_state_get_cursorpos(state_, &pos);
  return CursorPos{pos.row, pos.col + lag_.cols};
}

void Terminal::on_glyph(const std::uint32_t* chars, int width, bool protect, bool double_width,
                        int row, int col) {
  std::array<char32_t, 1 + limits::kMaxCombiningMarks> glyph{};
  std::size_t count = 0;
  while (count < glyph.size() && chars[count] != 0) {
    glyph[count] = chars[count];
    ++count;
  }
  Pen pen = pen_;
  if (protect) pen.attrs |= attr::kProtected;
  Grid& grid = active();
  grid.put_glyph(row, col, std::span<const char32_t>(glyph.data(), std::max<std::size_t>(count, 1)),
                 width, pen);
  const int row_width = double_width ? grid.cols() / 2 : grid.cols();
  // The trace stays on the grid whatever libvterm reports, so the
  // live-upgrade blob restores.
  last_glyph_ = GlyphTrace{on_grid(row, col), width, col + width >= row_width, false};
}

// libvterm can report a cursor just off a tiny grid (row -1 after a
// resize to one row and a wide glyph); the model keeps it on the grid, so
// what it serializes always restores.
CursorPos Terminal::on_grid(int row, int col) const {
  const Grid& grid = main_;
  return CursorPos{std::clamp(row, 0, std::max(grid.rows() - 1, 0)), std::clamp(col, 0, grid.cols())};
}

// libvterm does not report every cursor move through movecursor (a cursor
// restored on leaving the alternate screen in origin mode was missed), so
// each feed ends by taking the position from libvterm itself.
void Terminal::sync_cursor() {
  VTermPos pos;
  vterm_state_get_cursorpos(state_, &pos);
  const CursorPos now = on_grid(pos.row, pos.col);
  if (now == cursor_) return;
  cursor_ = now;
  if (cursor_ != last_glyph_.pos) last_glyph_.cursor_moved = true;
}

void Terminal::on_cursor(int row, int col, bool visible) {
  cursor_ = on_grid(row, col);
  cursor_visible_ = visible;
  if (cursor_ != last_glyph_.pos) last_glyph_.cursor_moved = true;
}

void Terminal::on_scroll(Rect rect, int down, int right) {
  const bool off_the_top = down > 0 && right == 0 && !alt_active_ && rect.top == 0 &&
                           rect.left == 0 && rect.right == main_.cols();
  if (off_the_top) push_to_history(std::min(down, rect.bottom - rect.top));
  active().scroll(rect, down, right, pen_);
}

void Terminal::on_alt_screen(bool on) {
  if (on == alt_active_) return;
  reconcile();
  alt_active_ = on;
  // libvterm erases the new screen with the current pen right after this
  // callback returns.
  if (on)
    alt_.emplace(main_.rows(), main_.cols(), pen_);
  else
    alt_.reset();
}

// As VTermScreen: when rows go, the main screen first scrolls just enough
// for the cursor row and every non-empty row to stay.
//
// A non-empty row below the cursor can lift the screen by more than the
// cursor's row. libvterm 0.1.4 then leaves its cursor above the top (row -1
// or less) and the next glyph reads and writes its line info out of bounds;
// later libvterm releases put such a cursor on row 0, and so does this: the
// cursor moves up with the rows but never past the top.
void Terminal::on_resize(int rows, int cols, int& delta_rows) {
  const int old_rows = main_.rows();
  if (!alt_active_ && rows < old_rows) {
    int keep_until = old_rows - 1;
    while (keep_until >= rows && row_is_empty(main_.row(keep_until)) && cursor_.row != keep_until)
      --keep_until;
    const int lift = keep_until + 1 - rows;
    if (lift > 0) {
      on_scroll(Rect{0, old_rows, 0, main_.cols()}, lift, 0);
      VTermPos pos;
      vterm_state_get_cursorpos(state_, &pos);
      delta_rows -= std::min(lift, std::max(pos.row + delta_rows, 0));
    }
  }
  main_.resize(rows, cols, pen_);
  if (alt_) alt_->resize(rows, cols, pen_);
}

void Terminal::resize(TerminalSize size) {
  size = clamp_size(size);
  if (size == this->size()) return;
  reconcile();
  fit_margins(size);
  vterm_set_size(vt_.get(), size.rows, size.cols);
  VTermPos pos;
  vterm_state_get_cursorpos(state_, &pos);
  cursor_ = on_grid(pos.row, pos.col);
  // The trace's cell may be off the new grid; with the cursor moved its
  // position no longer matters, but the live-upgrade blob must stay in
  // bounds (terminal_state.cpp refuses a position off the grid).
  last_glyph_.pos = cursor_;
  last_glyph_.cursor_moved = true;
  reconcile();
}

// libvterm keeps scroll margins across a resize; margins past the new
// edges make it index its line array out of bounds. Those are reset first
// (which homes the cursor), and the cursor is put back.
void Terminal::fit_margins(TerminalSize size) {
  const TerminalModes m = modes();
  const bool rows_fit = m.scroll_bottom <= size.rows;
  const bool cols_fit = !m.lr_margin_mode || m.margin_right <= size.cols;
  if (rows_fit && cols_fit) return;
  VTermPos pos;
  vterm_state_get_cursorpos(state_, &pos);
  std::string fix;
  if (!rows_fit) fix += "\x1b[r";
  if (!cols_fit) fix += "\x1b[s";
  fix += "\x1b[" + std::to_string(pos.row + 1) + ";" + std::to_string(pos.col + 1) + "H";
  write_vterm(fix);
}

std::uint64_t Terminal::seq_for(const Grid& grid, int r) {
  const Row& row = grid.row(r);
  if (row.seq != 0 && (!row.dirty || grid.hash_row(r) == row.content_hash)) return row.seq;
  return ring_.take_seq();
}

void Terminal::push_to_history(int count) {
  for (int r = 0; r < count; ++r) {
    const std::uint64_t seq = seq_for(main_, r);
    ring_.push(seq, encode_row(main_.row(r)));
  }
}

void Terminal::reconcile() {
  Grid& grid = active();
  const int last = grid.last_nonblank_row();
  for (int r = 0; r < grid.rows(); ++r) {
    Row& row = grid.row(r);
    if (r > last) {
      if (row.dirty) row.seq = 0;
      row.dirty = false;
      continue;
    }
    if (!row.dirty && row.seq != 0) continue;
    if (row.seq == 0 || grid.hash_row(r) != row.content_hash) row.seq = ring_.take_seq();
    row.dirty = false;
  }
}

std::vector<const Row*> Terminal::content_rows() const {
  const Grid& grid = screen();
  std::vector<const Row*> rows;
  const int last = grid.last_nonblank_row();
  rows.reserve(static_cast<std::size_t>(last + 1));
  for (int r = 0; r <= last; ++r) rows.push_back(&grid.row(r));
  return rows;
}

std::string Terminal::screen_text(TextStyle style) const {
  std::string text;
  const std::vector<const Row*> rows = content_rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i != 0) text += '\n';
    render_row(*rows[i], style, text);
  }
  return text;
}

std::vector<std::string> Terminal::screen_rows() const {
  std::vector<std::string> out;
  for (const Row* row : content_rows()) render_row(*row, TextStyle::Plain, out.emplace_back());
  return out;
}

TailRead Terminal::tail(std::size_t lines, TextStyle style) const {
  return ring_.tail(content_rows(), std::min(lines, limits::kReadMaxLines), style);
}

RenderedRead Terminal::rendered(std::uint64_t after_seq, std::size_t lines,
                                TextStyle style) const {
  return ring_.rendered(content_rows(), after_seq, std::min(lines, limits::kReadMaxLines), style);
}

void Terminal::clear_history() { ring_.clear_history(); }

// What libvterm reported through its property callbacks or we watched.
TerminalModes Terminal::tracked_modes() const {
  TerminalModes modes;
  modes.cursor_visible = cursor_visible_;
  modes.cursor_blink = cursor_blink_;
  modes.cursor_style = cursor_style(cursor_shape_, cursor_blink_);
  modes.reverse_video = reverse_video_;
  modes.mouse = mouse_;
  modes.origin = text_modes_.origin();
  modes.autowrap = text_modes_.autowrap();
  modes.lr_margin_mode = text_modes_.lr_margins();
  modes.scroll_bottom = main_.rows();
  modes.margin_right = main_.cols();
  return modes;
}

std::string Terminal::probe(const std::function<void()>& ask) {
  std::string answer;
  probe_output_ = &answer;
  ask();
  probe_output_ = nullptr;
  return answer;
}

TerminalModes Terminal::modes() {
  VTerm* vt = vt_.get();
  ProbeAnswers answers;
  answers.margins = probe([&] { write_vterm(margin_queries()); });
  answers.cursor_key = probe([&] { vterm_keyboard_key(vt, VTERM_KEY_UP, VTERM_MOD_NONE); });
  answers.keypad_key = probe([&] { vterm_keyboard_key(vt, VTERM_KEY_KP_0, VTERM_MOD_NONE); });
  answers.paste_start = probe([&] {
    vterm_keyboard_start_paste(vt);
    vterm_keyboard_end_paste(vt);
  });
  answers.focus_in = probe([&] { vterm_state_focus_in(state_); });
  probe([&] { vterm_mouse_move(vt, 0, kMouseProbeColumn, VTERM_MOD_NONE); });
  answers.mouse_press = probe([&] { vterm_mouse_button(vt, 1, true, VTERM_MOD_NONE); });
  probe([&] { vterm_mouse_button(vt, 1, false, VTERM_MOD_NONE); });
  TerminalModes modes = tracked_modes();
  apply_probe_answers(answers, modes);
  return modes;
}

bool Terminal::pending_wrap() const {
  return last_glyph_.at_margin && !last_glyph_.cursor_moved && cursor_ == last_glyph_.pos;
}

SnapshotInput Terminal::snapshot_input(const TerminalModes& modes) const {
  SnapshotInput in;
  in.main = &main_;
  in.alt = alt_active_ ? &*alt_ : nullptr;
  in.saved = saved_cursor_;
  in.cursor = cursor_;
  in.pending_wrap = pending_wrap();
  in.pen = pen_;
  in.protect = text_modes_.protect();
  in.modes = modes;
  in.title = title_;
  in.icon_name = icon_name_;
  return in;
}

std::string Terminal::snapshot_vt() {
  const std::string text_modes = text_modes_.restore_sequence();
  const std::string pending = guard_.pending();
  SnapshotInput in = snapshot_input(modes());
  in.text_modes = text_modes;
  in.pending = pending;
  return build_snapshot(in);
}

std::size_t Terminal::memory_bytes() const {
  return sizeof(*this) + main_.memory_bytes() + (alt_ ? alt_->memory_bytes() : 0) + ring_.memory_bytes() +
         title_.capacity() + icon_name_.capacity();
}

}  // namespace signaltty::ptyhost

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's printf interceptor misreads the arguments of
// libvterm's own vsnprintf calls for some replies (DECRQSS) and faults
// where the real call does not (the same input is clean under valgrind
// without sanitizers). libvterm is not instrumented, so that check adds
// nothing here. AddressSanitizer also lowers the core limit to 0 when a
// process starts, and the pane program would inherit that instead of the
// user's limit (docs/rules.md "Hardening"): keep the limit the launcher set.
extern "C" const char* __asan_default_options() { return "check_printf=0:disable_coredump=0"; }
#endif
