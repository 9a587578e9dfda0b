// ptyhost/pane_socket.hpp: the pane's control socket, `<dir>/<pane_id>.sock`,
// and the peer check every accepted connection passes.
// Runs in: ptyhost, at startup (open_pane_socket) and on each accept.
// Never: takes over a socket some live process still answers on, binds in a
// directory another uid owns or others can enter, or serves a peer whose uid
// is not ours.
//
// The socket is bound and listening under a temporary name, made 0600, and
// only then renamed into place without replacing anything, so whoever sees
// `<pane_id>.sock` can connect to it at once.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::ptyhost {

struct PaneSocket {
  UniqueFd listener;    // listening, close-on-exec
  UniqueFd dir;         // the socket directory (O_PATH), for unlinkat at exit
  std::string name;     // "<pane_id>.sock", relative to dir
  std::string path;     // full path, for logs
};

// Checks dir (a directory, owned by our euid, mode 0700), clears a stale
// socket (refusing a live one), binds, listens, publishes.
Result<PaneSocket> open_pane_socket(const std::string& dir, const std::string& pane_id);

// Removes the published name (at exit). Best effort.
void unlink_pane_socket(const PaneSocket& socket);

// SO_PEERCRED of a connected socket: its uid must be our euid.
Status check_peer_uid(int connected_fd);

}  // namespace signaltty::ptyhost
