// cli/terminal_text.cpp: escaping of control characters in broker text.
// Runs in: CLI. Never: drops a byte silently; each is shown or escaped.
#include "cli/terminal_text.hpp"

#include <cstdint>
#include <cstdio>

namespace signaltty::cli {
namespace {

constexpr unsigned char kFirstPrintable = 0x20;
constexpr unsigned char kDelete = 0x7f;
constexpr char32_t kFirstC1 = 0x80;
constexpr char32_t kLastC1 = 0x9f;
constexpr std::string_view kReplacementEscape = "\\ufffd";

// One decoded UTF-8 sequence: its code point and length; length 0 when
// the bytes at the front of `text` are not valid UTF-8.
struct Utf8Char {
  char32_t code_point = 0;
  std::size_t length = 0;
};

std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

bool is_continuation(unsigned char byte) { return (byte & 0xc0) == 0x80; }

Utf8Char decode_utf8(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  const std::size_t length = sequence_length(lead);
  if (length == 0 || text.size() < length) return {};
  char32_t code_point = lead & (0x7f >> length);
  for (std::size_t i = 1; i < length; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (!is_continuation(byte)) return {};
    code_point = (code_point << 6) | (byte & 0x3f);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are invalid.
  static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[length] || code_point > 0x10ffff ||
      (code_point >= 0xd800 && code_point <= 0xdfff))
    return {};
  return {code_point, length};
}

std::string hex_escape(const char* format, unsigned value) {
  char text[8];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

bool is_c1(char32_t code_point) { return code_point >= kFirstC1 && code_point <= kLastC1; }

}  // namespace

std::string printable(std::string_view text, LineBreaks breaks) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto byte = static_cast<unsigned char>(text[0]);
    const bool kept_break = breaks == LineBreaks::Keep && (byte == '\n' || byte == '\t');
    if (byte < kFirstPrintable || byte == kDelete) {
      out += kept_break ? std::string(1, static_cast<char>(byte)) : hex_escape("\\x%02x", byte);
      text.remove_prefix(1);
      continue;
    }
    if (byte < kDelete) {
      out.push_back(static_cast<char>(byte));
      text.remove_prefix(1);
      continue;
    }
    const Utf8Char decoded = decode_utf8(text);
    if (decoded.length == 0) {
      out += hex_escape("\\x%02x", byte);
      text.remove_prefix(1);
      continue;
    }
    if (is_c1(decoded.code_point))
      out += hex_escape("\\u%04x", static_cast<unsigned>(decoded.code_point));
    else
      out.append(text.substr(0, decoded.length));
    text.remove_prefix(decoded.length);
  }
  return out;
}

std::string json_for_terminal(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  while (!json.empty()) {
    const auto byte = static_cast<unsigned char>(json[0]);
    // Valid JSON holds raw controls only as whitespace between tokens:
    // line breaks (--pretty) stay, tabs and carriage returns become spaces.
    if (byte < kFirstPrintable) {
      out.push_back(byte == '\n' ? '\n' : ' ');
      json.remove_prefix(1);
      continue;
    }
    if (byte < kDelete) {
      out.push_back(static_cast<char>(byte));
      json.remove_prefix(1);
      continue;
    }
    const Utf8Char decoded = byte == kDelete ? Utf8Char{kDelete, 1} : decode_utf8(json);
    if (decoded.length == 0) {  // not UTF-8, so not valid JSON: show U+FFFD
      out += kReplacementEscape;
      json.remove_prefix(1);
      continue;
    }
    if (decoded.code_point == kDelete || is_c1(decoded.code_point))
      out += hex_escape("\\u%04x", static_cast<unsigned>(decoded.code_point));
    else
      out.append(json.substr(0, decoded.length));
    json.remove_prefix(decoded.length);
  }
  return out;
}

}  // namespace signaltty::cli
