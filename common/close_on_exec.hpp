// common/close_on_exec.hpp: set_close_on_exec(), for the fds a library opens
// without O_CLOEXEC (Boost.Asio's sockets: socket(2) and accept(2) with no
// flags). Every fd of ours is close-on-exec from its first syscall.
// Runs in: every process. Never: clears the flag.
#pragma once

#include <fcntl.h>

namespace signaltty {

// F_SETFD on an open fd cannot fail; a closed one (-1) is left alone.
inline void set_close_on_exec(int fd) {
  if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

}  // namespace signaltty
