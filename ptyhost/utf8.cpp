// ptyhost/utf8.cpp: the UTF-8 well-formedness table of Unicode 15, 3.9.
// Runs in: ptyhost. Never: accepts surrogates, overlongs or code points
// above U+10FFFF.
#include "ptyhost/utf8.hpp"

#include <array>
#include <cstdint>

#include "ptyhost/line_render.hpp"

namespace signaltty::ptyhost {
namespace {

struct LeadRule {
  std::uint8_t length = 0;  // bytes in the character, 0 for an invalid lead
  unsigned char low = 0;    // range of the first continuation byte
  unsigned char high = 0;
};

constexpr LeadRule rule_of(unsigned lead) {
  if (lead < 0x80) return {1, 0, 0};
  if (lead < 0xC2) return {0, 0, 0};
  if (lead < 0xE0) return {2, 0x80, 0xBF};
  if (lead == 0xE0) return {3, 0xA0, 0xBF};
  if (lead == 0xED) return {3, 0x80, 0x9F};
  if (lead < 0xF0) return {3, 0x80, 0xBF};
  if (lead == 0xF0) return {4, 0x90, 0xBF};
  if (lead < 0xF4) return {4, 0x80, 0xBF};
  if (lead == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

// rule_of for every byte, worked out at compile time: the checks below run
// on every non-ASCII character of the output, and a load is all they pay.
constexpr std::array<LeadRule, 256> kLeadRules = [] {
  std::array<LeadRule, 256> rules{};
  for (unsigned lead = 0; lead < rules.size(); ++lead) rules[lead] = rule_of(lead);
  return rules;
}();

LeadRule rule_for(unsigned char lead) { return kLeadRules[lead]; }


}  // namespace

char32_t decode_utf8(std::string_view s, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  const LeadRule rule = rule_for(lead);
  if (rule.length == 1) {
    ++i;
    return lead;
  }
  if (rule.length == 0) {
    ++i;
    return kReplacementChar;
  }
  char32_t cp = lead & (0x7F >> rule.length);
  std::size_t k = 1;
  for (; k < rule.length && i + k < s.size(); ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    const bool ok = k == 1 ? (c >= rule.low && c <= rule.high) : (c & 0xC0) == 0x80;
    if (!ok) break;
    cp = (cp << 6) | (c & 0x3F);
  }
  i += k;
  return k == rule.length ? cp : kReplacementChar;
}

char32_t decode_well_formed(std::string_view s, std::size_t i, std::size_t& length) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  const char32_t lead = b(0);
  if (lead < 0xE0) {
    length = 2;
    return ((lead & 0x1F) << 6) | (b(1) & 0x3F);
  }
  if (lead < 0xF0) {
    length = 3;
    return ((lead & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  }
  length = 4;
  return ((lead & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

// The table of decode_utf8 checked in place, one branch per lead range:
// the terminal model checks every piece of ground text it is fed.
bool is_valid_utf8(std::string_view s) {
  const auto continuation = [](unsigned char c) { return (c & 0xC0) == 0x80; };
  for (std::size_t i = ascii_run_end(s, 0); i < s.size(); i = ascii_run_end(s, i)) {
    const auto* const p = reinterpret_cast<const unsigned char*>(s.data() + i);
    const auto* const end = reinterpret_cast<const unsigned char*>(s.data() + s.size());
    const unsigned char lead = *p;
    const LeadRule rule = rule_for(lead);
    if (rule.length == 0 || static_cast<std::size_t>(end - p) < rule.length) return false;
    if (p[1] < rule.low || p[1] > rule.high) return false;
    if (rule.length >= 3 && !continuation(p[2])) return false;
    if (rule.length == 4 && !continuation(p[3])) return false;
    i += rule.length;
  }
  return true;
}

std::string repair_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) append_utf8(out, decode_utf8(s, i));
  return out;
}

}  // namespace signaltty::ptyhost
