// ptyhost/sandbox.cpp: the ptyhost's seccomp allowlist, read top to bottom:
// no-new-privs, arch check, allowed calls with the reason for each, calls
// allowed only on fixed arguments, default kill.
// Runs in: ptyhost, once, after the spawn and the start of the PTY reader
// thread (pty_reader.hpp), both of whose threads it confines.
// Never: allows open, socket, connect, execve, fork/clone, ptrace or
// anything that reaches a path
// (unlinkat included: a dir fd does not hold in an absolute or `../` name,
// so the broker removes stale sockets, not the ptyhost).
//
// Sanitizer builds (SIGNALTTY_SANITIZE, which adds -fsanitize=address): the
// default action is SCMP_ACT_LOG instead of SCMP_ACT_KILL_PROCESS, because
// LeakSanitizer's exit-time scan forks a tracer and ptraces the process, and
// the sanitizer runtime opens /proc files; those calls are logged by the
// kernel instead of killing the ptyhost. Release builds always kill.
#include "ptyhost/sandbox.hpp"

#include "common/seccomp_filter.hpp"

#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace signaltty::ptyhost {
namespace {

using seccomp::AllowedCall;

// Calls allowed with any arguments. Names the running arch lacks (e.g.
// epoll_wait on arm64) are skipped.
constexpr AllowedCall kAllowed[] = {
    {"read", "PTY output, broker frames, the event loop's eventfd/timerfd/signal pipe"},
    {"readv", "scatter reads of the event loop"},
    {"write", "PTY input, stderr log lines, event loop wakeups"},
    {"writev", "gathered writes"},
    {"recvmsg", "socket reads (the event loop reads sockets with recvmsg)"},
    {"recvfrom", "socket reads"},
    {"sendmsg", "gathered frame writes to the broker"},
    {"sendto", "socket writes"},
    {"accept", "a (re)connecting broker"},
    {"accept4", "a (re)connecting broker"},
    {"getsockopt", "SO_PEERCRED of a new connection; SO_ERROR"},
    {"shutdown", "dropping a broker connection"},
    {"close", "dropping connections, the PTY master after exit"},
    {"fcntl", "O_NONBLOCK / FD_CLOEXEC on accepted sockets; F_GETLK on the broker lock"},
    {"epoll_wait", "the event loop"},
    {"epoll_pwait", "the event loop"},
    {"epoll_ctl", "registering connections and the PTY master"},
    {"poll", "the PTY reader's wait; the event loop's blocking fallbacks"},
    {"ppoll", "the event loop's blocking fallbacks"},
    {"timerfd_settime", "input budgets, close escalation, exit grace"},
    {"clock_gettime", "timers and log timestamps"},
    {"clock_getres", "timers"},
    {"gettimeofday", "log timestamps"},
    {"wait4", "reaping the pane's program"},
    {"waitid", "reaping the pane's program"},
    {"rt_sigaction", "SIGCHLD delivery to the event loop"},
    {"rt_sigprocmask", "SIGCHLD delivery to the event loop"},
    {"rt_sigreturn", "returning from the SIGCHLD handler"},
    {"restart_syscall", "calls interrupted by SIGCHLD"},
    {"brk", "heap"},
    {"mmap", "heap (large allocations)"},
    {"munmap", "heap"},
    {"mremap", "heap (growing large buffers)"},
    {"madvise", "heap trimming"},
    {"mprotect", "heap arenas"},
    {"futex", "C++ runtime locks and one-time initialisation; the PTY reader's hand-offs"},
    {"getpid", "log lines"},
    {"geteuid", "the peer uid check on accept"},
    {"gettid", "abort()"},
    {"exit", "the PTY reader thread's exit"},
    {"exit_group", "process exit"},
};

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer's runtime backs off with a sleep or a yield when the two
// threads meet on one of its internal locks (the reader's hand-offs). It
// also starts a background thread of its own beside the reader, and does
// not wait for it: that thread may register its robust futex list and its
// rseq area only after the filter is loaded.
constexpr AllowedCall kAllowedUnderTsan[] = {
    {"nanosleep", "ThreadSanitizer's lock backoff"},
    {"clock_nanosleep", "ThreadSanitizer's lock backoff"},
    {"sched_yield", "ThreadSanitizer's lock backoff"},
    {"set_robust_list", "the C library's setup of ThreadSanitizer's background thread"},
    {"rseq", "the C library's setup of ThreadSanitizer's background thread"},
};
#endif

// Calls allowed only with fixed arguments.
Status allow_narrow(scmp_filter_ctx ctx, const SandboxScope& scope) {
  // pids and fds are C ints: compare their low 32 bits only.
  const auto child = static_cast<std::uint32_t>(scope.child_pid);
  const auto group = static_cast<std::uint32_t>(-scope.child_pid);
  const auto self = static_cast<std::uint32_t>(::getpid());
  struct Rule {
    int nr;
    scmp_arg_cmp arg;
    std::string_view reason;
  } rules[] = {
      {SCMP_SYS(kill), SCMP_A0_32(SCMP_CMP_EQ, child), "signal / close: the pane's program"},
      {SCMP_SYS(kill), SCMP_A0_32(SCMP_CMP_EQ, group), "signal group / close: its process group"},
      {SCMP_SYS(tgkill), SCMP_A0_32(SCMP_CMP_EQ, self), "abort() raising SIGABRT on ourselves"},
      {SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, TIOCSWINSZ), "resize: the PTY's window size"},
      {SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, FIONBIO), "non-blocking accepted sockets"},
      {SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, TIOCGPGRP),
       "tcgetpgrp: the terminal's foreground group, for the broker's process refresh"},
  };
  for (const auto& rule : rules)
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, rule.nr, 1, rule.arg); rc != 0)
      return seccomp::failed(rule.reason, rc);
  return {};
}

}  // namespace

Status enter_sandbox(const SandboxScope& scope) {
  if (scope.child_pid <= 0) return Error{ErrorCode::Internal, "enter_sandbox: no child"};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return Error::from_errno(ErrorCode::Internal, "prctl", errno, "PR_SET_NO_NEW_PRIVS");
  // new_filter's arch check: a syscall made through another ABI (e.g. int
  // 0x80 on x86_64) kills the process whatever its number.
  SIGNALTTY_TRY(seccomp::FilterPtr filter, seccomp::new_filter());
  SIGNALTTY_RETURN_IF_ERROR(seccomp::allow_calls(filter.get(), kAllowed));
#if defined(__SANITIZE_THREAD__)
  SIGNALTTY_RETURN_IF_ERROR(seccomp::allow_calls(filter.get(), kAllowedUnderTsan));
  // A race report opens the binary and /proc/self/maps to name the code:
  // refused, so that the report is printed unsymbolised rather than the
  // ptyhost killed before it writes a line.
  for (int nr : {SCMP_SYS(open), SCMP_SYS(openat)})
    if (int rc = seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(EACCES), nr, 0); rc != 0)
      return seccomp::failed("ThreadSanitizer's report: open refused", rc);
  // And asks whether stderr is a terminal, to colour the report.
  if (int rc = seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 1,
                                SCMP_A1_32(SCMP_CMP_EQ, TCGETS));
      rc != 0)
    return seccomp::failed("ThreadSanitizer's report: TCGETS refused", rc);
#endif
  SIGNALTTY_RETURN_IF_ERROR(allow_narrow(filter.get(), scope));
  // The PTY reader thread already runs: the filter (and no-new-privs) is
  // loaded into every thread at once, or into none.
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_TSYNC, 1); rc != 0)
    return seccomp::failed("SCMP_FLTATR_CTL_TSYNC", rc);
  if (int rc = seccomp_load(filter.get()); rc != 0) return seccomp::failed("seccomp_load", rc);
  return {};
}

}  // namespace signaltty::ptyhost
