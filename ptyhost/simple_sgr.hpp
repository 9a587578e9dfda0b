// ptyhost/simple_sgr.hpp: apply_simple_sgr(), the common SGR sequences
// applied to a pen without libvterm.
// Runs in: ptyhost, from Terminal::vt_sequence for every sequence: coloured
// output is about one SGR per word, and through libvterm each one cost a
// parse, a callback per attribute and the end of a fast text stretch.
// Never: guesses. A sequence is taken only when every parameter is one
// whose effect libvterm 0.1.4's SGR has for certain (vterm_state_setpen,
// with bold_is_highbright off, as Terminal leaves it); anything else (a
// subparameter, a private marker, a number it ignores or truncates, a
// colour with parameters missing) is left to libvterm.
//
// Usage:
//   if (auto pen = apply_simple_sgr("\x1b[1;38;5;208m", current)) current = *pen;
#pragma once

#include <optional>
#include <string_view>

#include "ptyhost/grid.hpp"

namespace signaltty::ptyhost {

// `pen` after the SGR `seq` (ESC [ params m, nothing else), or nullopt when
// `seq` is not an SGR this handles.
std::optional<Pen> apply_simple_sgr(std::string_view seq, const Pen& pen);

}  // namespace signaltty::ptyhost
