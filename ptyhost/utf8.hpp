// ptyhost/utf8.hpp: strict UTF-8 checks and repair for the terminal model
// and the OSC scanner.
// Runs in: ptyhost. Never: allocates unless asked to repair.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace signaltty::ptyhost {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the character at s[i] and advances i past it; a byte that does
// not start a well-formed character decodes as U+FFFD and advances i past
// the maximal ill-formed subpart (the Unicode "maximal subpart" rule).
char32_t decode_utf8(std::string_view s, std::size_t& i);
// The non-ASCII character at s[i] of text already known to be well-formed
// (checked by is_valid_utf8, or made by repair_utf8), not checked again;
// its length in bytes goes to `length`.
char32_t decode_well_formed(std::string_view s, std::size_t i, std::size_t& length);
// True when every character in `s` is well-formed UTF-8.
bool is_valid_utf8(std::string_view s);
// `s` with each maximal ill-formed subpart replaced by U+FFFD.
std::string repair_utf8(std::string_view s);

}  // namespace signaltty::ptyhost
