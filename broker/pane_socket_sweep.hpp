// broker/pane_socket_sweep.hpp: removing pane sockets nobody listens on.
// A ptyhost never removes its own socket (its sandbox has no unlink), so
// the broker clears the names of ptyhosts that are gone: at startup
// (adoption), kStaleSocketSweepInterval after a pane closes or exits, again
// at that interval while a name still waits (its ptyhost listens on, or it
// is too new to judge), and otherwise every kStaleSocketSweepBackstop, for
// a ptyhost whose pane never reached the store.
// Runs in: broker (io thread); listeners are read from /proc/net/unix,
// never probed by a connect (a live ptyhost would take it for its broker).
// Never: removes a socket some process still listens on, anything that is
// not a socket, or the socket of a pane the store still holds (a
// pane.resume may be publishing a new ptyhost under that name).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace signaltty::broker {

// How soon after a pane closes, and how often while a name waits, the
// running broker looks for sockets of ptyhosts that exited; and how often
// it looks when nothing closed (an idle broker stays asleep).
inline constexpr std::chrono::milliseconds kStaleSocketSweepInterval{2000};
inline constexpr std::chrono::milliseconds kStaleSocketSweepBackstop{60000};

struct SocketSweep {
  std::size_t removed = 0;
  std::size_t waiting = 0;  // not in the store, but listened on, too new or not removable
};

// Removes each `<panes_dir>/<pane_id>.sock` for which `in_store(pane_id)`
// is false, that is at least a moment old and that nobody listens on.
SocketSweep remove_stale_pane_sockets(const std::string& panes_dir,
                                      const std::function<bool(const std::string&)>& in_store);

}  // namespace signaltty::broker
