// ptyhost/simple_sgr.cpp: apply_simple_sgr, parameter by parameter as
// libvterm 0.1.4's vterm_state_setpen (pen.c) reads them.
// Runs in: ptyhost. Never: allocates.
#include "ptyhost/simple_sgr.hpp"

#include <array>
#include <cstdint>

#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {
namespace {

// libvterm keeps at most 16 arguments of a CSI; VtGuard caps separators at
// kVtCsiMaxSeparators, so a longer list never reaches here, and one that
// did is libvterm's.
constexpr std::size_t kMaxParams = 16;
// Larger numbers mean nothing to SGR: libvterm's (it ignores them, or
// truncates a colour component).
constexpr int kMaxValue = 255;
constexpr int kMissing = -1;

struct Params {
  std::array<int, kMaxParams> values{};
  std::size_t count = 0;
};

// "1;;38;5;208" into numbers, kMissing for an empty one; false for any
// byte but digits and ';' (':' subparameters, private markers, controls).
bool parse_params(std::string_view body, Params& out) {
  int value = kMissing;
  for (const char c : body) {
    if (c == ';') {
      if (out.count == kMaxParams) return false;
      out.values[out.count++] = value;
      value = kMissing;
    } else if (c >= '0' && c <= '9') {
      value = (value == kMissing ? 0 : value * 10) + (c - '0');
      if (value > 999) return false;
    } else {
      return false;
    }
  }
  if (out.count == kMaxParams) return false;
  out.values[out.count++] = value;
  return true;
}

bool byte_value(int v) { return v >= 0 && v <= kMaxValue; }

// 38/48 at values[i]: "5;n" or "2;r;g;b", every number present and a byte.
// Advances i past what it took.
bool take_extended(const Params& p, std::size_t& i, Color& color) {
  const std::size_t left = p.count - i - 1;
  if (left >= 2 && p.values[i + 1] == 5 && byte_value(p.values[i + 2])) {
    color = Color::indexed(static_cast<std::uint8_t>(p.values[i + 2]));
    i += 2;
    return true;
  }
  if (left >= 4 && p.values[i + 1] == 2 && byte_value(p.values[i + 2]) &&
      byte_value(p.values[i + 3]) && byte_value(p.values[i + 4])) {
    color = Color::rgb(static_cast<std::uint8_t>(p.values[i + 2]),
                       static_cast<std::uint8_t>(p.values[i + 3]),
                       static_cast<std::uint8_t>(p.values[i + 4]));
    i += 4;
    return true;
  }
  return false;
}

}  // namespace

std::optional<Pen> apply_simple_sgr(std::string_view seq, const Pen& pen) {
  if (seq.size() < 3 || seq[0] != '\x1b' || seq[1] != '[' || seq.back() != 'm') return std::nullopt;
  Params p;
  if (!parse_params(seq.substr(2, seq.size() - 3), p)) return std::nullopt;
  Pen out = pen;
  for (std::size_t i = 0; i < p.count; ++i) {
    const int v = p.values[i];
    if (v == kMissing || v == 0) {
      out = Pen{};
    } else if (v == 1) {
      out.set(attr::kBold, true);
    } else if (v == 3) {
      out.set(attr::kItalic, true);
    } else if (v == 4) {
      out.set_underline(1);
    } else if (v == 5) {
      out.set(attr::kBlink, true);
    } else if (v == 7) {
      out.set(attr::kReverse, true);
    } else if (v == 9) {
      out.set(attr::kStrike, true);
    } else if (v >= 10 && v <= 19) {
      out.set_font(v - 10);
    } else if (v == 21) {
      out.set_underline(2);
    } else if (v == 22) {
      out.set(attr::kBold, false);
    } else if (v == 23) {
      out.set(attr::kItalic, false);
    } else if (v == 24) {
      out.set_underline(0);
    } else if (v == 25) {
      out.set(attr::kBlink, false);
    } else if (v == 27) {
      out.set(attr::kReverse, false);
    } else if (v == 29) {
      out.set(attr::kStrike, false);
    } else if (v >= 30 && v <= 37) {
      out.fg = Color::indexed(static_cast<std::uint8_t>(v - 30));
    } else if (v == 38) {
      if (!take_extended(p, i, out.fg)) return std::nullopt;
    } else if (v == 39) {
      out.fg = Color{};
    } else if (v >= 40 && v <= 47) {
      out.bg = Color::indexed(static_cast<std::uint8_t>(v - 40));
    } else if (v == 48) {
      if (!take_extended(p, i, out.bg)) return std::nullopt;
    } else if (v == 49) {
      out.bg = Color{};
    } else if (v >= 90 && v <= 97) {
      out.fg = Color::indexed(static_cast<std::uint8_t>(v - 90 + 8));
    } else if (v >= 100 && v <= 107) {
      out.bg = Color::indexed(static_cast<std::uint8_t>(v - 100 + 8));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace signaltty::ptyhost
