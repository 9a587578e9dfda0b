// gitworker/sandbox.hpp: the confinement a gitworker enters before it
// reads its request, in one linear function that fails closed
// (docs/gitworker.md "Sandbox"):
//   1. rlimits: CPU, address space, file size, open files, NPROC 0, no core
//   2. PR_SET_NO_NEW_PRIVS
//   3. Landlock: read the given directories, write only the given ones
//      (beneath each; metadata calls — stat, readlink, access — are not
//      Landlock's to refuse, so a worker can still see which paths exist)
//   4. seccomp (libseccomp): allowlist, default SCMP_ACT_KILL_PROCESS,
//      native architecture only
// Runs in: gitworker (main), and the sandbox tests' forked children.
// Never: returns success with any step skipped, or falls back to running
// unconfined. (Sanitizer builds log instead of kill and loosen two limits
// for LeakSanitizer: sandbox.cpp says which.)
#pragma once

#include <string>
#include <vector>

#include "common/errors.hpp"

namespace signaltty::gitworker {

struct SandboxPlan {
  std::vector<std::string> read_dirs;   // absolute, existing
  std::vector<std::string> write_dirs;  // absolute, existing; also readable
  // Test builds: the "stall" op sleeps, so clock_nanosleep is allowed.
  bool allow_sleep = false;
};

// Any failure: IO_ERROR naming the step ("sandbox unavailable: landlock: ...").
// On success the calling process (all its threads: call it before any
// exist) is confined for good.
Status enter_sandbox(const SandboxPlan& plan);

// The syscalls the filter allows, by name, in the filter's order, each
// with its one-line reason: what tests compare with the golden file.
struct AllowedSyscall {
  const char* name;
  const char* reason;
};
std::vector<AllowedSyscall> allowed_syscalls();

}  // namespace signaltty::gitworker
