// ptyhost/line_render.cpp: row text rendering and the SGR writer shared by
// reads and the attach snapshot.
// Runs in: ptyhost. Never: emits anything but printable text and SGR.
#include "ptyhost/line_render.hpp"

#include <charconv>

#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

void append_number(std::string& out, unsigned value) {
  char buf[12];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

// ";30".. / ";90".. for the 16 base colours.
void append_base_color(std::string& out, const Color& color, unsigned base, unsigned bright) {
  if (color.kind != ColorKind::Indexed || color.v0 >= 16) return;
  out += ';';
  append_number(out, color.v0 < 8 ? base + color.v0 : bright + color.v0 - 8);
}

// "ESC[38;5;im" / "ESC[38;2;r;g;bm" in an SGR of its own: with every
// attribute and two RGB colours one SGR would pass the 16 parameters
// libvterm 0.1.4 keeps.
void append_extended_color(std::string& out, const Color& color, unsigned extended) {
  const bool indexed = color.kind == ColorKind::Indexed && color.v0 >= 16;
  if (!indexed && color.kind != ColorKind::Rgb) return;
  out += "\x1b[";
  append_number(out, extended);
  if (indexed) {
    out += ";5;";
    append_number(out, color.v0);
  } else {
    out += ";2;";
    append_number(out, color.v0);
    out += ';';
    append_number(out, color.v1);
    out += ';';
    append_number(out, color.v2);
  }
  out += 'm';
}

bool shows_when_blank(const Pen& pen) { return pen_shows_when_blank(pen); }

bool blank_char(char32_t ch) { return ch == 0 || ch == U' '; }

}  // namespace

bool pen_shows_when_blank(const Pen& pen) {
  return pen.bg.kind != ColorKind::Default || pen.underline() != 0 ||
         (pen.attrs & (attr::kReverse | attr::kStrike)) != 0;
}

std::size_t shown_cells(const Row& row, TextStyle style) {
  std::size_t end = row.cells.size();
  while (end > 0) {
    const Cell& cell = row.cells[end - 1];
    const bool hidden = blank_char(cell.ch) && (style == TextStyle::Plain || !shows_when_blank(cell.pen));
    if (!hidden) break;
    --end;
  }
  return end;
}

namespace {

// The character a cell shows: blanks and orphaned wide halves as spaces.
char32_t shown_char(const Row& row, std::size_t c) {
  const Cell& cell = row.cells[c];
  if (cell.ch == 0) return U' ';
  if (cell.width == 2 && (c + 1 >= row.cells.size() || row.cells[c + 1].ch != kWideTail)) return U' ';
  return cell.ch;
}

bool covered_by_wide(const Row& row, std::size_t c) {
  return c > 0 && row.cells[c - 1].width == 2 && row.cells[c - 1].ch != kWideTail &&
         row.cells[c - 1].ch != 0;
}

void append_cell(const Row& row, std::size_t c, std::string& out) {
  append_utf8(out, shown_char(row, c));
  if (!(row.cells[c].flags & kCellHasMarks)) return;
  if (const Marks* marks = row.marks_at(static_cast<int>(c)))
    for (char32_t mark : *marks)
      if (mark != 0) append_utf8(out, mark);
}

}  // namespace

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
    return;
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
  if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  }
  out += static_cast<char>(0x80 | (cp & 0x3F));
}

void append_sgr(std::string& out, const Pen& pen) {
  out += "\x1b[0";
  if (pen.attrs & attr::kBold) out += ";1";
  if (pen.attrs & attr::kItalic) out += ";3";
  switch (pen.underline()) {
    case 1: out += ";4"; break;
    case 2: out += ";4:2"; break;
    case 3: out += ";4:3"; break;
    default: break;
  }
  if (pen.attrs & attr::kBlink) out += ";5";
  if (pen.attrs & attr::kReverse) out += ";7";
  if (pen.attrs & attr::kConceal) out += ";8";
  if (pen.attrs & attr::kStrike) out += ";9";
  if (pen.font() != 0) {
    out += ';';
    append_number(out, 10 + static_cast<unsigned>(pen.font()));
  }
  append_base_color(out, pen.fg, 30, 90);
  append_base_color(out, pen.bg, 40, 100);
  out += 'm';
  append_extended_color(out, pen.fg, 38);
  append_extended_color(out, pen.bg, 48);
}

void render_row(const Row& row, TextStyle style, std::string& out) {
  const std::size_t start = out.size();
  const std::size_t end = shown_cells(row, style);
  Pen current;
  for (std::size_t c = 0; c < end; ++c) {
    const Cell& cell = row.cells[c];
    if (cell.ch == kWideTail && covered_by_wide(row, c)) continue;
    if (style == TextStyle::Ansi && cell.pen != current) {
      append_sgr(out, cell.pen);
      current = cell.pen;
    }
    if (cell.ch == kWideTail) {
      out += ' ';
      continue;
    }
    append_cell(row, c, out);
  }
  if (style == TextStyle::Ansi && !current.is_default()) out += "\x1b[0m";
  if (style == TextStyle::Ansi && out.size() - start > limits::kLineAnsiMaxBytes) {
    out.resize(start);  // too colourful to keep: its text alone
    return render_row(row, TextStyle::Plain, out);
  }
  if (style == TextStyle::Plain)
    while (out.size() > start && out.back() == ' ') out.pop_back();
}

void append_plain_from_ansi(std::string_view ansi, std::string& out) {
  const std::size_t start = out.size();
  std::size_t i = 0;
  while (i < ansi.size()) {
    const std::size_t esc = ansi.find('\x1b', i);
    out.append(ansi.substr(i, esc == std::string_view::npos ? std::string_view::npos : esc - i));
    if (esc == std::string_view::npos) break;
    const std::size_t end = ansi.find('m', esc);
    i = end == std::string_view::npos ? ansi.size() : end + 1;
  }
  while (out.size() > start && out.back() == ' ') out.pop_back();
}

}  // namespace signaltty::ptyhost
