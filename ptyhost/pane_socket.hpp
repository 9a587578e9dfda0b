// ptyhost/pane_socket.hpp: the pane's control socket, `<dir>/<pane_id>.sock`,
// and the broker identity every accepted connection is checked against.
// Runs in: ptyhost, at startup (open_pane_socket) and on each accept.
// Never: takes over a socket some live process still answers on, binds in a
// directory another uid owns or others can enter, or removes its socket
// once running (the sandbox forbids it; the broker removes stale sockets).
//
// The socket is bound and listening under a temporary name, made 0600, and
// only then renamed into place without replacing anything, so whoever sees
// `<pane_id>.sock` can connect to it at once.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"
#include "ptyhost/peer_check.hpp"

namespace signaltty::ptyhost {

struct PaneSocket {
  UniqueFd listener;         // listening, close-on-exec
  BrokerIdentity broker;     // who may connect (ptyhost/peer_check.hpp)
  std::string path;          // full path, for logs
};

// Checks dir (a directory, owned by our euid, mode 0700), opens its broker
// lock, clears a stale socket (refusing a live one), binds, listens,
// publishes.
Result<PaneSocket> open_pane_socket(const std::string& dir, const std::string& pane_id);

}  // namespace signaltty::ptyhost
