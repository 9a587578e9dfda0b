// ptyhost/utf8.hpp: strict UTF-8 checks and repair for the terminal model
// and the OSC scanner.
// Runs in: ptyhost. Never: allocates unless asked to repair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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

// Byte scans of the terminal model's ground text, eight bytes a step while
// the step holds nothing they look for (the exact "has a byte less than n"
// and "has a zero byte" word tests), then byte by byte.
namespace scan_detail {
inline constexpr std::uint64_t kOnes = 0x0101010101010101ull;
inline constexpr std::uint64_t kHighs = 0x8080808080808080ull;
inline std::uint64_t word_at(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}
// Some byte of `word` is below 0x20, or is 0x7F.
inline bool has_control(std::uint64_t word) {
  const std::uint64_t del = word ^ (kOnes * 0x7F);
  return (((word - kOnes * 0x20) & ~word) | ((del - kOnes) & ~del)) & kHighs;
}
}  // namespace scan_detail

// A C0 control or DEL: everything else in ground text is printable (UTF-8
// included).
inline bool is_c0_or_del(unsigned char b) { return b < 0x20 || b == 0x7F; }

// Where the run of ASCII bytes starting at s[from] ends: the first byte at
// or after `from` that is 0x80 or above, else s.size().
inline std::size_t ascii_run_end(std::string_view s, std::size_t from) {
  while (from + 8 <= s.size() && (scan_detail::word_at(s.data() + from) & scan_detail::kHighs) == 0)
    from += 8;
  while (from < s.size() && static_cast<unsigned char>(s[from]) < 0x80) ++from;
  return from;
}

// The first C0 control or DEL at or after s[from], else s.size(); `high`
// becomes true when a byte of 0x80 or above comes before it.
inline std::size_t control_or_end(std::string_view s, std::size_t from, bool& high) {
  std::uint64_t highs = 0;
  for (; from + 8 <= s.size(); from += 8) {
    const std::uint64_t word = scan_detail::word_at(s.data() + from);
    if (scan_detail::has_control(word)) break;
    highs |= word;
  }
  high = high || (highs & scan_detail::kHighs) != 0;
  for (; from < s.size(); ++from) {
    const auto b = static_cast<unsigned char>(s[from]);
    if (is_c0_or_del(b)) break;
    high = high || b >= 0x80;
  }
  return from;
}

}  // namespace signaltty::ptyhost
