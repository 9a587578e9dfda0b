// tests/ptyhost/vt_test_support.cpp: the VTermScreen oracle, grid diffs and
// seeded VT stream generators.
// Runs in: ptyhost tests and benchmark. Never: uses wall-clock randomness.
#include "tests/ptyhost/vt_test_support.hpp"

#include <vterm.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr std::size_t kMaxDiffLines = 8;

Color oracle_color(const VTermColor& color) {
  if (color.type & VTERM_COLOR_DEFAULT_MASK) return Color{};
  if (VTERM_COLOR_IS_INDEXED(&color)) return Color::indexed(color.indexed.idx);
  return Color::rgb(color.rgb.red, color.rgb.green, color.rgb.blue);
}

Pen oracle_pen(const VTermScreenCell& cell, bool global_reverse) {
  Pen pen;
  pen.fg = oracle_color(cell.fg);
  pen.bg = oracle_color(cell.bg);
  if (cell.attrs.bold) pen.attrs |= attr::kBold;
  if (cell.attrs.italic) pen.attrs |= attr::kItalic;
  if (cell.attrs.blink) pen.attrs |= attr::kBlink;
  if (cell.attrs.reverse != global_reverse) pen.attrs |= attr::kReverse;
  if (cell.attrs.strike) pen.attrs |= attr::kStrike;
  pen.attrs |= static_cast<std::uint16_t>(cell.attrs.underline << attr::kUnderlineShift);
  pen.attrs |= static_cast<std::uint16_t>(cell.attrs.font << attr::kFontShift);
  return pen;
}

std::u32string cell_chars(const Row& row, int c) {
  const Cell& cell = row.cells[c];
  std::u32string chars;
  if (cell.ch == 0) return chars;
  chars += cell.ch;
  if (cell.flags & kCellHasMarks)
    if (const Marks* marks = row.marks_at(c))
      for (char32_t m : *marks)
        if (m != 0) chars += m;
  return chars;
}

std::string show(const std::u32string& chars) {
  std::string out = "\"";
  for (char32_t c : chars) {
    if (c == kWideTail) {
      out += "<tail>";
    } else if (c < 0x20) {
      out += "\\x" + std::to_string(static_cast<int>(c));
    } else {
      append_utf8(out, c);
    }
  }
  return out + "\"";
}

std::string show(const Pen& pen) {
  std::string out;
  append_sgr(out, pen);
  return out.substr(1);
}

void note(std::string& report, std::size_t& count, const std::string& line) {
  if (count++ < kMaxDiffLines) report += line + "\n";
}

int oracle_settermprop(VTermProp prop, VTermValue* value, void* user);
int oracle_pushline(int cols, const VTermScreenCell* cells, void* user);

// One VTermScreen row as a Row of our grid: chars, up to our number of
// combining marks, wide halves, widths and pens.
Row oracle_row(const VTermScreenCell* cells, int cols, bool global_reverse) {
  Row row;
  row.cells.resize(static_cast<std::size_t>(cols));
  for (int c = 0; c < cols; ++c) {
    const VTermScreenCell& in = cells[c];
    Cell& out = row.cells[static_cast<std::size_t>(c)];
    out.pen = oracle_pen(in, global_reverse);
    out.width = static_cast<std::uint8_t>(in.width);
    if (in.chars[0] == static_cast<std::uint32_t>(-1)) {
      out.ch = kWideTail;
      continue;
    }
    out.ch = in.chars[0];
    Marks marks{};
    bool any = false;
    for (std::size_t i = 1; i < VTERM_MAX_CHARS_PER_CELL && in.chars[i] != 0 && i <= marks.size(); ++i) {
      marks[i - 1] = in.chars[i];
      any = true;
    }
    if (any) store_marks(row, c, marks);
  }
  return row;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

struct ScreenOracle::Impl {
  VTerm* vt = nullptr;
  VTermScreen* screen = nullptr;
  VTermScreenCallbacks callbacks{};
  bool reverse = false;
  bool cursor_visible = true;
  int rows = 0;
  int cols = 0;
  std::size_t keep = 0;
  std::deque<Row> scrollback;
  ~Impl() { vterm_free(vt); }
};

namespace {
namespace SIGNALTTY_UNITY_ID {
int oracle_settermprop(VTermProp prop, VTermValue* value, void* user) {
  auto* impl = static_cast<ScreenOracle::Impl*>(user);
  if (prop == VTERM_PROP_REVERSE) impl->reverse = value->boolean != 0;
  if (prop == VTERM_PROP_CURSORVISIBLE) impl->cursor_visible = value->boolean != 0;
  return 1;
}
int oracle_pushline(int cols, const VTermScreenCell* cells, void* user) {
  auto* impl = static_cast<ScreenOracle::Impl*>(user);
  if (impl->keep == 0) return 1;
  impl->scrollback.push_back(oracle_row(cells, cols, impl->reverse));
  if (impl->scrollback.size() > impl->keep) impl->scrollback.pop_front();
  return 1;
}
}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

ScreenOracle::ScreenOracle(int cols, int rows) : impl_(std::make_unique<Impl>()) {
  impl_->rows = rows;
  impl_->cols = cols;
  impl_->vt = vterm_new(rows, cols);
  vterm_set_utf8(impl_->vt, 1);
  impl_->screen = vterm_obtain_screen(impl_->vt);
  vterm_screen_enable_altscreen(impl_->screen, 1);
  impl_->callbacks.settermprop = oracle_settermprop;
  impl_->callbacks.sb_pushline = oracle_pushline;
  vterm_screen_set_callbacks(impl_->screen, &impl_->callbacks, impl_.get());
  vterm_screen_reset(impl_->screen, 1);
}

ScreenOracle::~ScreenOracle() = default;

// libvterm 0.1.4 decodes ASCII that shares a write with UTF-8 before it as
// UTF-8 (no GL charset, combining marks joined differently) and ASCII in a
// write of its own by GL; Terminal always gives ASCII a write of its own,
// the one choice no chunking can change. The oracle is fed the same way.
void ScreenOracle::feed(std::string_view bytes) {
  std::size_t start = 0;
  for (std::size_t i = 1; i <= bytes.size(); ++i) {
    const bool cut = i == bytes.size() ||
                     (static_cast<unsigned char>(bytes[i - 1]) >= 0x80 &&
                      static_cast<unsigned char>(bytes[i]) < 0x80);
    if (!cut) continue;
    vterm_input_write(impl_->vt, bytes.data() + start, i - start);
    start = i;
  }
}

void ScreenOracle::keep_scrollback(std::size_t keep) { impl_->keep = keep; }

const std::deque<Row>& ScreenOracle::scrollback() const { return impl_->scrollback; }

int ScreenOracle::rows() const { return impl_->rows; }

Row ScreenOracle::screen_row(int r) const {
  std::vector<VTermScreenCell> cells(static_cast<std::size_t>(impl_->cols));
  for (int c = 0; c < impl_->cols; ++c)
    vterm_screen_get_cell(impl_->screen, VTermPos{r, c}, &cells[static_cast<std::size_t>(c)]);
  return oracle_row(cells.data(), impl_->cols, impl_->reverse);
}

CursorState ScreenOracle::cursor() const {
  VTermPos pos;
  vterm_state_get_cursorpos(vterm_obtain_state(impl_->vt), &pos);
  return CursorState{pos.row, pos.col, impl_->cursor_visible};
}

std::string ScreenOracle::diff(const Grid& grid) const {
  std::string report;
  std::size_t count = 0;
  if (grid.rows() != impl_->rows || grid.cols() != impl_->cols) return "size differs\n";
  for (int r = 0; r < grid.rows(); ++r) {
    const Row& row = grid.row(r);
    for (int c = 0; c < grid.cols(); ++c) {
      VTermScreenCell cell;
      vterm_screen_get_cell(impl_->screen, VTermPos{r, c}, &cell);
      const std::string where = "(" + std::to_string(r) + "," + std::to_string(c) + ") ";
      if (cell.chars[0] == static_cast<std::uint32_t>(-1)) {
        if (row.cells[c].ch != kWideTail) note(report, count, where + "oracle has a wide tail");
        continue;
      }
      std::u32string theirs;
      for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i] != 0; ++i) theirs += cell.chars[i];
      const std::u32string ours =
          row.cells[c].ch == kWideTail ? std::u32string(1, kWideTail) : cell_chars(row, c);
      if (ours != theirs) note(report, count, where + "chars " + show(ours) + " vs " + show(theirs));
      Pen mine = row.cells[c].pen;
      mine.attrs &= static_cast<std::uint16_t>(~attr::kProtected);
      const Pen other = oracle_pen(cell, impl_->reverse);
      if (mine != other) note(report, count, where + "pen " + show(mine) + " vs " + show(other));
    }
  }
  if (count > kMaxDiffLines) report += std::to_string(count) + " differences in all\n";
  return report;
}

std::string grid_diff(const Grid& a, const Grid& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return "size differs\n";
  std::string report;
  std::size_t count = 0;
  for (int r = 0; r < a.rows(); ++r) {
    for (int c = 0; c < a.cols(); ++c) {
      const Cell& x = a.row(r).cells[c];
      const Cell& y = b.row(r).cells[c];
      const std::string where = "(" + std::to_string(r) + "," + std::to_string(c) + ") ";
      if (cell_chars(a.row(r), c) != cell_chars(b.row(r), c) || x.ch != y.ch)
        note(report, count, where + "chars " + show(cell_chars(a.row(r), c)) + " vs " +
                                show(cell_chars(b.row(r), c)));
      if (x.pen != y.pen && x.ch != kWideTail)
        note(report, count, where + "pen " + show(x.pen) + " vs " + show(y.pen));
    }
  }
  if (count > kMaxDiffLines) report += std::to_string(count) + " differences in all\n";
  return report;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

AgentFixtures agent_fixtures() {
  const std::filesystem::path root = SIGNALTTY_AGENT_FIXTURES;
  AgentFixtures fixtures;
  for (const char* folder : kAgentFixtureFolders) {
    const std::size_t before = fixtures.captures.size();
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root / folder, ec))
      if (entry.path().extension() == ".ansi") fixtures.captures.push_back(entry.path());
    if (fixtures.captures.size() == before) fixtures.missing.push_back((root / folder).string());
  }
  std::sort(fixtures.captures.begin(), fixtures.captures.end());
  return fixtures;
}

std::string capture_as_screen(std::string_view ansi) {
  if (ansi.ends_with('\n')) ansi.remove_suffix(1);
  std::string out;
  for (char c : ansi) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace signaltty::ptyhost::testing
