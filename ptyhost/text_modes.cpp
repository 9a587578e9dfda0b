// ptyhost/text_modes.cpp: watches charset, IRM, DECOM, DECAWM, DECLRMM and
// DECSCA changes the way libvterm 0.1.4 applies them (RIS resets them;
// DECSTR, DECSC/DECRC and the alternate screen leave them).
// Runs in: ptyhost. Never: sees text bytes other than SO / SI.
#include "ptyhost/text_modes.hpp"

#include <charconv>
#include <vector>

namespace signaltty::ptyhost {
namespace {

constexpr unsigned char kShiftOut = 0x0e;
constexpr unsigned char kShiftIn = 0x0f;

struct Csi {
  std::string_view leader;
  std::vector<long> args;  // -1 for a missing argument
  std::string_view intermed;
  char final = 0;
};

bool in_range(char c, int lo, int hi) {
  const auto u = static_cast<unsigned char>(c);
  return u >= lo && u <= hi;
}

std::string_view take_while(std::string_view& s, int lo, int hi) {
  std::size_t n = 0;
  while (n < s.size() && in_range(s[n], lo, hi)) ++n;
  const std::string_view taken = s.substr(0, n);
  s.remove_prefix(n);
  return taken;
}

std::vector<long> split_args(std::string_view params) {
  std::vector<long> args;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= params.size(); ++i) {
    if (i < params.size() && params[i] != ';' && params[i] != ':') continue;
    long value = -1;
    std::from_chars(params.data() + start, params.data() + i, value);
    args.push_back(value);
    start = i + 1;
  }
  return args;
}

// The CSI body after "ESC [", or nothing when it is unfinished or malformed.
bool parse_csi(std::string_view body, Csi& csi) {
  csi.leader = take_while(body, 0x3c, 0x3f);
  csi.args = split_args(take_while(body, '0', ';'));
  csi.intermed = take_while(body, 0x20, 0x2f);
  if (body.size() != 1 || !in_range(body[0], 0x40, 0x7e)) return false;
  csi.final = body[0];
  return true;
}

bool has_arg(const Csi& csi, long value) {
  for (long arg : csi.args)
    if (arg == value) return true;
  return false;
}

// The sequence without the controls libvterm runs inside it.
std::string core_of(std::string_view seq) {
  std::string core;
  for (char c : seq) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 0x20 || u == 0x1b) && u != 0x7f) core += c;
  }
  return core;
}

}  // namespace

bool TextModes::plain_ascii() const {
  return charset_[gl_] == 'B' && !single_shift_ && !insert_ && !lr_margins_ && !protected_;
}

void TextModes::note_control(unsigned char c) {
  if (c == kShiftOut) gl_ = 1;
  if (c == kShiftIn) gl_ = 0;
}

namespace {

// Most sequences are SGR and the like: a CSI whose final byte is none of
// h, l, q, s and that runs no control inside changes nothing watched here.
bool unwatched(std::string_view seq) {
  if (seq.size() < 3 || seq[1] != '[') return false;
  const char final = seq.back();
  if (final == 'h' || final == 'l' || final == 'q' || final == 's') return false;
  for (char c : seq)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\x1b') return false;
  return true;
}

}  // namespace

bool TextModes::saves_cursor(std::string_view seq) const {
  if (unwatched(seq)) return false;
  const std::string core = core_of(seq);
  if (core == "\x1b" "7") return true;
  if (core.size() < 3 || core[0] != '\x1b' || core[1] != '[') return false;
  Csi csi;
  if (!parse_csi(std::string_view(core).substr(2), csi) || !csi.intermed.empty()) return false;
  if (csi.final == 's' && csi.leader.empty()) return !lr_margins_;
  return csi.final == 'h' && csi.leader == "?" && has_arg(csi, 1049);
}

bool TextModes::restores_cursor(std::string_view seq) const {
  if (unwatched(seq)) return false;
  const std::string core = core_of(seq);
  if (core == "\x1b" "8") return true;
  if (core.size() < 3 || core[0] != '\x1b' || core[1] != '[') return false;
  Csi csi;
  if (!parse_csi(std::string_view(core).substr(2), csi) || !csi.intermed.empty()) return false;
  if (csi.final == 'u' && csi.leader.empty()) return true;
  return csi.final == 'l' && csi.leader == "?" && has_arg(csi, 1049);
}

void TextModes::note_sequence(std::string_view seq) {
  if (unwatched(seq)) return;
  for (char c : seq) note_control(static_cast<unsigned char>(c));
  const std::string core = core_of(seq);
  if (core.size() < 2 || core[0] != '\x1b') return;
  if (core[1] == '[') {
    note_csi(std::string_view(core).substr(2));
  } else if (core[1] != ']' && core[1] != 'P') {
    note_escape(std::string_view(core).substr(1));
  }
}

void TextModes::note_csi(std::string_view body) {
  Csi csi;
  if (!parse_csi(body, csi)) return;
  const bool set = csi.final == 'h';
  if ((set || csi.final == 'l') && csi.intermed.empty()) {
    if (csi.leader.empty() && has_arg(csi, 4)) insert_ = set;
    if (csi.leader == "?" && has_arg(csi, 69)) lr_margins_ = set;
    if (csi.leader == "?" && has_arg(csi, 6)) origin_ = set;
    if (csi.leader == "?" && has_arg(csi, 7)) autowrap_ = set;
  }
  if (csi.final == 'q' && csi.leader.empty() && csi.intermed == "\"")
    protected_ = !csi.args.empty() && csi.args[0] == 1;
}

void TextModes::note_escape(std::string_view body) {
  if (body.size() == 2 && in_range(body[0], '(', '+')) {
    if (body[1] == 'B' || body[1] == '0' || body[1] == 'A') charset_[body[0] - '('] = body[1];
    return;
  }
  if (body.size() != 1) return;
  switch (body[0]) {
    case 'c': reset(); break;
    case 'n': gl_ = 2; break;
    case 'o': gl_ = 3; break;
    case 'N':
    case 'O': single_shift_ = true; break;
    default: break;
  }
}

std::string TextModes::restore_sequence() const {
  std::string out = insert_ ? "\x1b[4h" : "";
  for (int set = 0; set < 4; ++set)
    if (charset_[set] != 'B') out += {'\x1b', static_cast<char>('(' + set), charset_[set]};
  if (gl_ == 1) out += static_cast<char>(kShiftOut);
  if (gl_ == 2) out += "\x1bn";
  if (gl_ == 3) out += "\x1bo";
  return out;
}

void TextModes::encode(ByteWriter& out) const {
  for (char c : charset_) out.put(c);
  out.put(gl_);
  out.put_bool(single_shift_);
  out.put_bool(insert_);
  out.put_bool(lr_margins_);
  out.put_bool(protected_);
  out.put_bool(origin_);
  out.put_bool(autowrap_);
}

bool TextModes::decode(ByteReader& in) {
  for (char& c : charset_) {
    in.get(c);
    if (c != 'B' && c != '0' && c != 'A') return in.fail();
  }
  in.get(gl_);
  in.get_bool(single_shift_);
  in.get_bool(insert_);
  in.get_bool(lr_margins_);
  in.get_bool(protected_);
  in.get_bool(origin_);
  in.get_bool(autowrap_);
  if (gl_ > 3) return in.fail();
  return in.ok();
}

}  // namespace signaltty::ptyhost
