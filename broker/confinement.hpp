// broker/confinement.hpp: the broker's own seccomp allowlist, entered once
// the launcher is forked (docs/security.md "The broker"). From then on the
// broker cannot exec, fork a process, ptrace, mount, load modules or BPF,
// touch keyrings, read another process's memory or enter namespaces: what
// it starts, the launcher starts. Pane programs never inherit it (the
// launcher was forked before).
//
// Runs in: broker, once, in Server::create right after the launcher, before
// any thread exists (threads inherit the filter). Never: leaves the broker
// running unconfined after a failed step (the broker does not start).
//
// Sanitizer builds (SIGNALTTY_SANITIZE): the default action logs instead of
// killing, because LeakSanitizer's exit-time scan forks and ptraces; release
// builds always kill.
#pragma once

#include <string_view>
#include <vector>

#include "common/errors.hpp"

namespace signaltty::broker {

// No-new-privs, then the filter. Call with no other thread running.
Status confine_broker();

// The allowlist as the filter is built, one entry per line: a call's name,
// and "(...)" with its condition when it has one. For the golden test.
std::vector<std::string> broker_allowed_syscalls();

}  // namespace signaltty::broker
