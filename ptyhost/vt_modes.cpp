// ptyhost/vt_modes.cpp: reading libvterm's answers to the mode probes.
// Runs in: ptyhost. Never: changes a mode; every probe only reports.
#include "ptyhost/vt_modes.hpp"

#include <charconv>
#include <optional>

namespace signaltty::ptyhost {
namespace {

constexpr std::string_view kMarginQueries = "\x1bP$qr\x1b\\\x1bP$qs\x1b\\";

std::optional<int> read_int(std::string_view& s) {
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

// The payload of the DECRQSS answer "DCS 1 $ r <payload> ST" that ends in
// `suffix` ("r" for DECSTBM, "s" for DECSLRM).
std::optional<std::string_view> status_string(std::string_view replies, char suffix) {
  constexpr std::string_view kIntro = "\x1bP1$r";
  for (std::size_t at = replies.find(kIntro); at != std::string_view::npos;
       at = replies.find(kIntro, at + 1)) {
    const std::size_t start = at + kIntro.size();
    const std::size_t end = replies.find("\x1b\\", start);
    if (end == std::string_view::npos) break;
    const std::string_view payload = replies.substr(start, end - start);
    if (payload.ends_with(suffix)) return payload.substr(0, payload.size() - 1);
  }
  return std::nullopt;
}

// "a;b" -> 0-based half-open [a-1, b).
void read_margins(std::optional<std::string_view> payload, int& first, int& end) {
  if (!payload) return;
  std::string_view s = *payload;
  const std::optional<int> a = read_int(s);
  if (!a || s.empty() || s[0] != ';') return;
  s.remove_prefix(1);
  const std::optional<int> b = read_int(s);
  if (!b || *a < 1 || *b < *a) return;
  first = *a - 1;
  end = *b;
}

// A press report: SGR "CSI < b;x;y M", urxvt "CSI b;x;y M", or "CSI M"
// followed by three coordinates, one of them two UTF-8 bytes in mode 1005.
MouseEncoding mouse_encoding(std::string_view press) {
  if (press.starts_with("\x1b[<")) return MouseEncoding::Sgr;
  if (press.starts_with("\x1b[M")) return press.size() > 6 ? MouseEncoding::Utf8 : MouseEncoding::X10;
  if (press.starts_with("\x1b[")) return MouseEncoding::Urxvt;
  return MouseEncoding::X10;
}

}  // namespace

std::string_view margin_queries() { return kMarginQueries; }

void apply_probe_answers(const ProbeAnswers& answers, TerminalModes& modes) {
  modes.app_cursor_keys = answers.cursor_key == "\x1bOA";
  modes.app_keypad = answers.keypad_key == "\x1bOp";
  modes.bracketed_paste = !answers.paste_start.empty();
  modes.focus_events = !answers.focus_in.empty();
  modes.mouse_encoding = mouse_encoding(answers.mouse_press);
  read_margins(status_string(answers.margins, 'r'), modes.scroll_top, modes.scroll_bottom);
  read_margins(status_string(answers.margins, 's'), modes.margin_left, modes.margin_right);
}

}  // namespace signaltty::ptyhost
