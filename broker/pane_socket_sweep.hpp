// broker/pane_socket_sweep.hpp: removing pane sockets nobody listens on.
// A ptyhost never removes its own socket (its sandbox has no unlink), so
// the broker clears the names of ptyhosts that are gone: at startup
// (adoption) and every kStaleSocketSweepInterval while it runs.
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

// How often the running broker looks for sockets of ptyhosts that exited.
inline constexpr std::chrono::milliseconds kStaleSocketSweepInterval{2000};

// Removes each `<panes_dir>/<pane_id>.sock` for which `in_store(pane_id)`
// is false, that is at least a moment old and that nobody listens on. Returns how many were removed.
std::size_t remove_stale_pane_sockets(const std::string& panes_dir,
                                      const std::function<bool(const std::string&)>& in_store);

}  // namespace signaltty::broker
