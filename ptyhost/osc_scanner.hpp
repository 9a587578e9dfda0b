// ptyhost/osc_scanner.hpp: OscScanner, the OSC / BEL scanner (docs/rules.md
// "OSC / BEL scanner"), and the notification text sanitizer.
// Runs in: ptyhost, on the raw bytes of every output chunk, beside (and
// independent of) the VT model.
// Never: draws anything or keeps more than one unterminated OSC
// (kOscCarryMaxBytes) between chunks.
//
// OSC = ESC ] ... terminated by BEL or ESC \. A new ESC ] before the
// terminator aborts the old one; so do CAN, SUB and any other ESC sequence,
// as they do in a terminal. A BEL outside an OSC is a bell; a BEL ending an
// OSC is not. Payloads are "Ps;Pt" (no ';' is ignored):
//   0/1/2 -> Title (empty ignored)
//   9     -> Notification{osc9, body = Pt}; 9;4;... (progress) is consumed
//   99    -> Notification{osc99}: if the part before the next ';' holds '='
//            or ':' it is metadata, else it is the title; the rest is the body
//   777   -> Notification{osc777} only for notify;<title>;<body>
// Notifications with an empty body are ignored. All text goes through
// sanitize_text().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace signaltty::ptyhost {

enum class NotificationSource { Osc9, Osc99, Osc777 };

struct TitleEvent {
  std::string text;
  bool operator==(const TitleEvent&) const = default;
};

struct NotificationEvent {
  NotificationSource source = NotificationSource::Osc9;
  std::optional<std::string> title;
  std::string body;
  bool operator==(const NotificationEvent&) const = default;
};

struct BellEvent {
  bool operator==(const BellEvent&) const = default;
};

using OscEvent = std::variant<TitleEvent, NotificationEvent, BellEvent>;

// Valid UTF-8 with C0 controls (except \n and \t), DEL and C1 controls
// removed, invalid bytes replaced by U+FFFD, cut at `max_chars` code points.
std::string sanitize_text(std::string_view raw, std::size_t max_chars);

class OscScanner {
 public:
  // Events found in `bytes`, in stream order.
  std::vector<OscEvent> scan(std::string_view bytes);

 private:
  enum class State { Ground, Escape, Osc, OscEscape, Drop, DropEscape };

  void step(char c, std::vector<OscEvent>& events);
  void step_after_escape(char c, std::vector<OscEvent>& events);
  void append_payload(char c);
  void finish(std::vector<OscEvent>& events);

  State state_ = State::Ground;
  std::string payload_;
};

}  // namespace signaltty::ptyhost
