// cli/terminal_text.hpp: makes text from the broker safe to print on a
// terminal. Names, titles, commands, directories, error messages and pane
// text all come from the broker (and, through it, from whatever ran in a
// pane), so none may reach the terminal as a control sequence: C0 controls,
// DEL, C1 controls (U+0080-U+009F) and bytes that are not UTF-8 are shown as
// escapes instead (ESC prints as the four characters \x1b).
// Runs in: CLI. Never: changes printable text, including non-ASCII UTF-8.
//
// Usage:
//   out << "title: " << printable(pane.title) << '\n';
//   out << printable(read.text, LineBreaks::Keep);      // a block of lines
//   out << json_for_terminal(line) << '\n';             // a JSON line as received
#pragma once

#include <string>
#include <string_view>

namespace signaltty::cli {

enum class LineBreaks {
  Escape,  // one line: '\n' and '\t' print as \x0a and \x09
  Keep,    // a block of text: '\n' and '\t' pass through
};

// `text` with every control character, DEL, C1 control and byte that is not
// part of a valid UTF-8 sequence written as an escape: \xHH for a byte,
// \u00HH for a C1 code point.
std::string printable(std::string_view text, LineBreaks breaks = LineBreaks::Escape);

// A valid JSON text as it may be shown on a terminal, meaning the same:
// DEL and C1 code points inside strings become \u escapes (JSON already
// forbids raw C0 controls in strings), and tabs or carriage returns used
// as whitespace between tokens become spaces (line breaks stay).
std::string json_for_terminal(std::string_view json);

}  // namespace signaltty::cli
