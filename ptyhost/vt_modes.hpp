// ptyhost/vt_modes.hpp: TerminalModes, the modes an attach snapshot and the
// live-upgrade blob restore, and the probes that read those libvterm keeps
// to itself.
// Runs in: ptyhost, when a snapshot or the live-upgrade blob is built.
// Never: sends libvterm a CSI to ask: libvterm 0.1.4 ends every CSI, even a
// DECRQM query, by clamping the cursor and cancelling a pending wrap, so a
// query would change the terminal it reads. What is read comes from
// libvterm's property callbacks, from TextModes, from side-effect-free
// probes (keys, paste, focus, mouse output) and from DECRQSS, which libvterm
// answers on its DCS path without touching the cursor.
#pragma once

#include <string>
#include <string_view>

namespace signaltty::ptyhost {

enum class MouseTracking { Off, Click, Drag, Motion };  // DECSET 1000 / 1002 / 1003
enum class MouseEncoding { X10, Utf8, Sgr, Urxvt };     // default / 1005 / 1006 / 1015

struct TerminalModes {
  bool cursor_visible = true;    // DECTCEM
  bool cursor_blink = true;      // DECSET 12
  int cursor_style = 1;          // DECSCUSR Ps: 1/2 block, 3/4 underline, 5/6 bar (even: steady)
  bool reverse_video = false;    // DECSCNM
  bool app_cursor_keys = false;  // DECCKM
  bool app_keypad = false;       // DECKPAM
  bool bracketed_paste = false;  // DECSET 2004
  bool focus_events = false;     // DECSET 1004
  MouseTracking mouse = MouseTracking::Off;
  MouseEncoding mouse_encoding = MouseEncoding::X10;
  bool origin = false;           // DECOM
  bool autowrap = true;          // DECAWM
  bool lr_margin_mode = false;   // DECLRMM
  int scroll_top = 0;            // DECSTBM, 0-based, bottom exclusive
  int scroll_bottom = 0;
  int margin_left = 0;           // DECSLRM, 0-based, right exclusive
  int margin_right = 0;

  bool operator==(const TerminalModes&) const = default;
};

// What libvterm wrote back for each probe.
struct ProbeAnswers {
  std::string margins;      // answers to margin_queries()
  std::string cursor_key;   // the Up key
  std::string keypad_key;   // keypad 0
  std::string paste_start;  // the start of a paste
  std::string focus_in;     // the window gaining focus
  std::string mouse_press;  // button 1 pressed at row 1, column kMouseProbeColumn + 1
};

// Beyond 95, so that the UTF-8 mouse encoding differs from X10.
inline constexpr int kMouseProbeColumn = 100;

// DECRQSS for DECSTBM and DECSLRM.
std::string_view margin_queries();
// Fills the fields the answers show: cursor keys, keypad, bracketed paste,
// focus events, mouse encoding, margins (when answered).
void apply_probe_answers(const ProbeAnswers& answers, TerminalModes& modes);

}  // namespace signaltty::ptyhost
