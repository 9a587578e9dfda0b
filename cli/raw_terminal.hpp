// cli/raw_terminal.hpp: RawTerminal, the attach client's hold on the user's
// terminal: raw mode on the input side (tcgetattr, cfmakeraw, tcsetattr)
// and, when it lets go, the saved termios back plus the output modes a
// pane's program may have switched on (alternate screen, mouse reporting,
// bracketed paste, hidden cursor...) switched off again.
// Runs in: CLI. Never: leaves the terminal raw on any way out: the
// destructor restores, and a crash signal (SEGV, BUS, FPE, ILL, ABRT)
// restores from its handler before the default action runs. SIGTERM,
// SIGHUP and SIGINT are the attach loop's to turn into a normal return.
//
// Usage:
//   RawTerminal terminal(STDIN_FILENO, STDOUT_FILENO);
//   SIGNALTTY_RETURN_IF_ERROR(terminal.enter());   // no-op when not a tty
//   ...                                            // destructor restores
#pragma once

#include <termios.h>

#include <optional>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::cli {

// Written to the output when the terminal is restored: leaves the
// alternate screen, resets the scroll region (cursor kept), attributes,
// cursor visibility and shape, keypad and cursor-key modes, mouse and
// focus reporting, bracketed paste, insert mode, autowrap, the G0 charset
// and modifyOtherKeys. Terminals ignore the ones they do not know.
extern const std::string_view kOutputModesReset;

class RawTerminal {
 public:
  RawTerminal(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}
  ~RawTerminal() { restore(); }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

  // Saves the input terminal's settings and makes it raw, output side
  // included: the pane's bytes already went through its own PTY's line
  // discipline and must reach the screen unchanged. Does nothing when the
  // input is not a terminal.
  Status enter();
  // Raw mode again after something else changed it (SIGCONT after a stop).
  void reapply();
  // Puts back the saved settings and resets the output modes; idempotent.
  void restore();
  bool active() const { return saved_.has_value(); }

 private:
  int in_fd_;
  int out_fd_;
  std::optional<termios> saved_;
  termios raw_{};
};

}  // namespace signaltty::cli
