// ptyhost/osc_scanner.cpp: the OSC / BEL state machine and payload rules.
// Runs in: ptyhost. Never: carries more than kOscCarryMaxBytes of payload.
#include "ptyhost/osc_scanner.hpp"

#include <cstring>

#include "ptyhost/line_render.hpp"
#include "ptyhost/terminal_limits.hpp"
#include "ptyhost/utf8.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr char kEsc = '\x1b';
constexpr char kBel = '\x07';
constexpr char kCan = '\x18';
constexpr char kSub = '\x1a';

bool is_control(char32_t cp) {
  if (cp == U'\n' || cp == U'\t') return false;
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0);
}

std::optional<std::string> optional_text(std::string_view raw, std::size_t max_chars) {
  std::string text = sanitize_text(raw, max_chars);
  if (text.empty()) return std::nullopt;
  return text;
}

void add_notification(std::vector<OscEvent>& events, NotificationSource source,
                      std::optional<std::string> title, std::string_view body) {
  std::string text = sanitize_text(body, limits::kNotificationBodyMaxChars);
  if (text.empty()) return;
  events.emplace_back(NotificationEvent{source, std::move(title), std::move(text)});
}

void parse_kitty(std::string_view pt, std::vector<OscEvent>& events) {
  const std::size_t semi = pt.find(';');
  const std::string_view head = pt.substr(0, semi);
  const std::string_view rest = semi == std::string_view::npos ? "" : pt.substr(semi + 1);
  const bool metadata = head.find_first_of("=:") != std::string_view::npos;
  add_notification(events, NotificationSource::Osc99,
                   metadata ? std::nullopt : optional_text(head, limits::kOscTitleMaxChars), rest);
}

void parse_rxvt(std::string_view pt, std::vector<OscEvent>& events) {
  const std::size_t first = pt.find(';');
  if (first == std::string_view::npos || pt.substr(0, first) != "notify") return;
  const std::size_t second = pt.find(';', first + 1);
  if (second == std::string_view::npos) return;
  add_notification(events, NotificationSource::Osc777,
                   optional_text(pt.substr(first + 1, second - first - 1), limits::kOscTitleMaxChars),
                   pt.substr(second + 1));
}

void parse_payload(std::string_view payload, std::vector<OscEvent>& events) {
  const std::size_t semi = payload.find(';');
  if (semi == std::string_view::npos) return;
  const std::string_view ps = payload.substr(0, semi);
  const std::string_view pt = payload.substr(semi + 1);
  if (ps == "0" || ps == "1" || ps == "2") {
    if (auto title = optional_text(pt, limits::kOscTitleMaxChars))
      events.emplace_back(TitleEvent{std::move(*title)});
  } else if (ps == "9") {
    if (pt == "4" || pt.starts_with("4;")) return;  // progress, not a notification
    add_notification(events, NotificationSource::Osc9, std::nullopt, pt);
  } else if (ps == "99") {
    parse_kitty(pt, events);
  } else if (ps == "777") {
    parse_rxvt(pt, events);
  }
}

// The first ESC or BEL at or after `i`, else bytes.size(): memchr for the
// ESC, then BEL (rare) only in the text before it.
std::size_t next_esc_or_bel(std::string_view bytes, std::size_t i) {
  const char* begin = bytes.data() + i;
  const char* end = bytes.data() + bytes.size();
  const void* esc = std::memchr(begin, kEsc, static_cast<std::size_t>(end - begin));
  const char* stop = esc != nullptr ? static_cast<const char*>(esc) : end;
  const void* bel = std::memchr(begin, kBel, static_cast<std::size_t>(stop - begin));
  if (bel != nullptr) stop = static_cast<const char*>(bel);
  return static_cast<std::size_t>(stop - bytes.data());
}

}  // namespace

std::string sanitize_text(std::string_view raw, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < raw.size() && chars < max_chars;) {
    const char32_t cp = decode_utf8(raw, i);
    if (is_control(cp)) continue;
    append_utf8(out, cp);
    ++chars;
  }
  return out;
}

std::vector<OscEvent> OscScanner::scan(std::string_view bytes) {
  std::vector<OscEvent> events;
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (state_ == State::Ground) {
      i = next_esc_or_bel(bytes, i);
      if (i == bytes.size()) break;
    }
    step(bytes[i++], events);
  }
  return events;
}

void OscScanner::step(char c, std::vector<OscEvent>& events) {
  switch (state_) {
    case State::Ground:
      if (c == kBel) events.emplace_back(BellEvent{});
      if (c == kEsc) state_ = State::Escape;
      return;
    case State::Escape:
    case State::OscEscape:
    case State::DropEscape:
      step_after_escape(c, events);
      return;
    case State::Osc:
    case State::Drop:
      if (c == kBel) {
        if (state_ == State::Osc) finish(events);
        state_ = State::Ground;
      } else if (c == kEsc) {
        state_ = state_ == State::Osc ? State::OscEscape : State::DropEscape;
      } else if (c == kCan || c == kSub) {
        state_ = State::Ground;
      } else {
        append_payload(c);
      }
      return;
  }
}

// After ESC: "]" opens an OSC (aborting one in progress), "\" ends one, and
// anything else ends it unfinished and is read again from ground.
void OscScanner::step_after_escape(char c, std::vector<OscEvent>& events) {
  const State before = state_;
  if (c == ']') {
    payload_.clear();
    state_ = State::Osc;
    return;
  }
  state_ = State::Ground;
  if (c == '\\' && before == State::OscEscape) {
    finish(events);
    return;
  }
  if (c == '\\' && before == State::DropEscape) return;
  step(c, events);
}

void OscScanner::append_payload(char c) {
  if (state_ == State::Drop) return;
  if (payload_.size() >= limits::kOscCarryMaxBytes) {
    payload_.clear();
    payload_.shrink_to_fit();
    state_ = State::Drop;
    return;
  }
  payload_ += c;
}

void OscScanner::finish(std::vector<OscEvent>& events) {
  parse_payload(payload_, events);
  payload_.clear();
}

}  // namespace signaltty::ptyhost
