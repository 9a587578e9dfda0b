// cli/attach.hpp: the interactive attach client behind `signaltty attach`
// and `signaltty new`: the user's terminal becomes the pane's terminal
// until the detach key, the pane's exit, or the broker's.
// Runs in: CLI. Never: leaves the terminal raw (RawTerminal), waits on a
// reply in the keyboard-to-pane path (requests are pipelined and matched by
// id), or feeds a byte the screen already shows (OutputCursor).
//
// The session, on one connection:
//   pane.get (the pane's real id) → subscribe {pane.exited, pane.closed,
//   server.will_shutdown} → raw mode → pane.attach {cols, rows} → clear the
//   screen, replay the snapshot → loop: keyboard → pane.input, pty.data →
//   screen, SIGWINCH → pane.resize, a forward gap in the output → attach
//   again for a fresh snapshot.
// It ends with a note on stdout once the terminal is restored:
//   "[detached from <pane>]"     detach key (default Ctrl-\ then d): status 0
//   "[pane exited: code N]"      the pane's program ended: status 0
//   "[pane closed]"              someone closed the pane: status 0
// or an `error:` line on stderr: broker gone → 3, other errors → 1, and a
// terminating signal (TERM, HUP, INT, QUIT) → 128 + its number.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "cli/attach_link.hpp"
#include "cli/detach_key.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::cli {

struct AttachOptions {
  std::string pane;  // pane id or name
  DetachKey detach_key = kDefaultDetachKey;
  bool mark_seen = true;
};

// Where the session talks to the user.
struct TerminalIo {
  int in_fd;
  int out_fd;
  std::ostream& err;
};

// Runs the session on `link` (connected, nothing sent yet) and returns the
// process exit status.
int run_attach(AttachLink& link, const AttachOptions& options, const TerminalIo& io);

// The terminal size of `fd` (TIOCGWINSZ); nullopt when it is not a
// terminal or reports no size.
std::optional<protocol::PtySize> terminal_size(int fd);

// The note for a pane whose program ended: "[pane exited: code 0]",
// "[pane exited: signal TERM]", or "[pane exited]" when neither is known.
std::string exit_note(const std::optional<int>& code, const std::optional<std::string>& signal);

}  // namespace signaltty::cli
