// ptyhost/sandbox.hpp: enter_sandbox(), the ptyhost's one-way confinement.
// Runs in: ptyhost, once, right after the pane's program has been exec'd
// (the child inherits none of it: no-new-privs and seccomp filters are only
// inherited by children forked afterwards, and there are none) and the PTY
// reader thread started: both threads are confined in one step (TSYNC).
// Never: is entered before the spawn, or undone.
//
// After it the ptyhost can read and write the fds it holds (PTY master,
// listening socket, the broker connection, its event loop's own fds),
// accept connections, check a peer against the broker lock (getsockopt,
// fcntl), signal its child's pid or process group and reap it, and nothing
// else: no open, no unlink, no socket, no exec, no ptrace. Anything outside the allowlist kills the
// process (SIGSYS), except in sanitizer builds (see sandbox.cpp).
#pragma once

#include <sys/types.h>

#include "common/errors.hpp"

namespace signaltty::ptyhost {

struct SandboxScope {
  pid_t child_pid = -1;  // kill(2) is allowed on this pid and its group only
};

// PR_SET_NO_NEW_PRIVS, then the seccomp allowlist. On failure the process
// is unconfined and the caller must not go on serving the pane.
Status enter_sandbox(const SandboxScope& scope);

}  // namespace signaltty::ptyhost
