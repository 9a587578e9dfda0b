// ptyhost/line_render.hpp: turns grid rows into text for reads and history:
// UTF-8, optional SGR colour runs, trailing blanks trimmed.
// Runs in: ptyhost, on reads and when a row scrolls into history.
// Never: looks at cursor or modes; a row renders the same wherever it sits.
#pragma once

#include <string>
#include <string_view>

#include "ptyhost/grid.hpp"

namespace signaltty::ptyhost {

// docs/rules.md "Reads" strip_ansi: Plain drops colours, Ansi keeps them as SGR
// sequences, each line ending with a reset when it changed the pen.
enum class TextStyle { Plain, Ansi };

void append_utf8(std::string& out, char32_t cp);
// SGR that sets exactly `pen`: "ESC[0;<attributes, base colours>m", then
// one SGR per 256-colour or RGB colour (each at most 16 parameters).
void append_sgr(std::string& out, const Pen& pen);
// True when a blank cell in `pen` still shows in an Ansi read (background,
// underline, reverse or strike).
bool pen_shows_when_blank(const Pen& pen);
// One past the last cell a read in `style` shows (Plain: the last non-blank
// character; Ansi also keeps trailing blanks whose colours would show).
std::size_t shown_cells(const Row& row, TextStyle style);
// Appends the row's text. Plain trims trailing blanks; Ansi keeps trailing
// blanks whose colours would show.
void render_row(const Row& row, TextStyle style, std::string& out);
// Appends an Ansi-rendered line with its SGR sequences removed and its
// trailing spaces trimmed, which equals the Plain rendering of that row.
void append_plain_from_ansi(std::string_view ansi, std::string& out);

}  // namespace signaltty::ptyhost
