// broker/confinement.cpp: the broker's seccomp allowlist, read top to
// bottom: no-new-privs, arch check, allowed calls with the reason for each,
// calls allowed only on fixed arguments, calls refused with an errno,
// default kill.
// Runs in: broker, once, after the launcher is forked.
//
// The list is what glibc 2.36, Boost.Asio and the broker's own code call
// over the whole test suite (collected with the filter in logging mode,
// then checked with it killing). Deliberately absent: execve/execveat,
// fork/vfork and clone without CLONE_THREAD (processes are the launcher's
// job), ptrace, process_vm_readv/writev, mount/umount2/pivot_root/chroot,
// unshare/setns, bpf, perf_event_open, keyctl/add_key/request_key,
// init_module/finit_module/delete_module, kexec_*, userfaultfd, io_uring_*.
#include "broker/confinement.hpp"

#include "common/seccomp_filter.hpp"

#include <linux/sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace signaltty::broker {
namespace {

using seccomp::AllowedCall;

// Calls allowed with any arguments. Names the running arch lacks are skipped.
constexpr AllowedCall kAllowed[] = {
    // sockets: clients, ptyhosts, the launcher channel, D-Bus, syslog
    {"read", "sockets, pipes, state files, the event loop's eventfd/timerfd"},
    {"readv", "scatter reads"},
    {"write", "sockets, pipes, state files, log lines on stderr"},
    {"writev", "gathered writes to clients and ptyhosts"},
    {"pread64", "journal and snapshot reads at an offset"},
    {"pwrite64", "audit evidence rewritten in place"},
    {"recvmsg", "socket reads; fds passed by the launcher and ptyhosts"},
    {"recvfrom", "socket reads"},
    {"sendmsg", "socket writes; fds passed on"},
    {"sendto", "socket writes, syslog"},
    {"accept4", "new clients"},
    {"accept", "new clients"},
    {"connect", "ptyhost control sockets, the D-Bus system bus, syslog (AF_UNIX sockets only)"},
    {"bind", "the listening socket"},
    {"listen", "the listening socket"},
    {"getsockopt", "SO_PEERCRED of a peer; SO_ERROR"},
    {"setsockopt", "socket buffer sizes, SO_PASSCRED"},
    {"getsockname", "the listening socket's path"},
    {"getpeername", "a peer's address"},
    {"shutdown", "closing connections"},
    {"socketpair", "the channels of a hook or git run"},
    {"pipe2", "stdin/stdout/stderr pipes of hook and git runs"},
    {"close", "every descriptor"},
    {"dup", "descriptors handed to asio"},
    {"dup3", "descriptors handed to asio"},
    {"fcntl", "O_NONBLOCK, FD_CLOEXEC, F_GETFL"},
    {"flock", "the instance locks of the state and runtime dirs"},
    // the event loop
    {"epoll_create1", "the event loop"},
    {"epoll_ctl", "the event loop"},
    {"epoll_wait", "the event loop"},
    {"epoll_pwait", "the event loop"},
    {"eventfd2", "waking the event loop"},
    {"timerfd_create", "the event loop's timers"},
    {"timerfd_settime", "the event loop's timers"},
    {"poll", "bounded blocking reads and writes"},
    {"ppoll", "bounded blocking reads and writes"},
    {"clock_gettime", "timers, timestamps"},
    {"clock_getres", "timers"},
    {"gettimeofday", "timestamps"},
    {"clock_nanosleep", "short bounded waits"},
    {"nanosleep", "short bounded waits"},
    // files in the state, runtime and config dirs
    {"openat", "state, runtime and config files; /proc/<pid> of panes"},
    {"open", "state, runtime and config files"},
    {"newfstatat", "stat/lstat/fstat (glibc routes them here)"},
    {"fstat", "file sizes"},
    {"statx", "file sizes and types"},
    {"lseek", "journal and snapshot offsets"},
    {"getdents64", "listing the panes dir, /proc, the config dir"},
    {"readlink", "/proc/<pid>/exe and cwd of pane processes, canonical paths"},
    {"readlinkat", "canonical paths"},
    {"access", "probes for files"},
    {"faccessat", "probes for files"},
    {"faccessat2", "probes for files"},
    {"mkdir", "state and runtime dirs"},
    {"mkdirat", "state and runtime dirs"},
    {"rename", "atomic replacement of snapshots and metadata"},
    {"renameat", "atomic replacement of snapshots and metadata"},
    {"renameat2", "atomic replacement of snapshots and metadata"},
    {"unlink", "stale sockets, temporary files"},
    {"unlinkat", "stale sockets, temporary files"},
    {"rmdir", "empty runtime dirs"},
    {"fsync", "durable journal, reservation and snapshot writes"},
    {"fdatasync", "durable journal writes"},
    {"ftruncate", "ending a torn journal tail"},
    {"fchmod", "private file modes"},
    {"chmod", "private file modes"},
    {"umask", "private file modes"},
    {"getcwd", "resolving relative paths"},
    {"statfs", "filesystem checks"},
    {"fstatfs", "filesystem checks"},
    {"utimensat", "freshening files"},
    // processes the launcher started
    {"kill", "signals to ptyhosts, hook and git worker process groups"},
    {"pidfd_open", "deadlines on hook and git workers"},
    {"pidfd_send_signal", "deadlines on hook and git workers"},
    {"waitid", "pidfd exits"},
    {"wait4", "reaping the launcher when the broker stops"},
    {"getpid", "log lines, own identity"},
    {"getppid", "own identity"},
    {"gettid", "abort(), thread names"},
    {"getuid", "peer uid checks"},
    {"geteuid", "peer uid checks"},
    {"getgid", "peer checks"},
    {"getegid", "peer checks"},
    {"getrandom", "ids, tokens"},
    {"uname", "glibc start-up checks"},
    {"sysinfo", "glibc"},
    {"getrlimit", "limits"},
    {"prlimit64", "limits"},
    {"sched_getaffinity", "thread pool sizing"},
    {"sched_yield", "lock back-off"},
    // memory, threads, signals
    {"brk", "heap"},
    {"mmap", "heap, file maps, thread stacks"},
    {"munmap", "heap"},
    {"mremap", "heap (growing large buffers)"},
    {"madvise", "heap trimming"},
    {"mprotect", "heap arenas, thread stack guards"},
    {"futex", "locks between the io thread and the journal thread"},
    {"set_robust_list", "new threads"},
    {"rseq", "new threads"},
    {"rt_sigaction", "signal handling (SIGTERM, SIGINT, SIGCHLD)"},
    {"rt_sigprocmask", "signal handling; new threads"},
    {"rt_sigreturn", "returning from a signal handler"},
    {"sigaltstack", "new threads"},
    {"restart_syscall", "calls interrupted by a signal"},
    {"exit", "thread exit"},
    {"exit_group", "process exit"},
};

struct NarrowRule {
  int nr;
  scmp_arg_cmp arg;
  std::string_view name;
  std::string_view condition;
  std::string_view reason;
};

// Calls allowed only with fixed arguments.
const std::vector<NarrowRule>& narrow_rules() {
  static const std::vector<NarrowRule> rules{
      {SCMP_SYS(socket), SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX), "socket", "AF_UNIX",
       "ptyhost control sockets, D-Bus, syslog: local sockets only"},
      {SCMP_SYS(clone), SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD), "clone",
       "CLONE_THREAD", "threads (the journal writer, replay readers), never a process"},
      {SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, FIONBIO), "ioctl", "FIONBIO", "non-blocking sockets"},
      {SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, FIONREAD), "ioctl", "FIONREAD", "bytes waiting on a socket"},
      {SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, TCGETS), "ioctl", "TCGETS", "isatty() of stderr"},
      {SCMP_SYS(prctl), SCMP_A0_32(SCMP_CMP_EQ, PR_SET_NAME), "prctl", "PR_SET_NAME", "thread names"},
      {SCMP_SYS(tgkill), SCMP_A0_32(SCMP_CMP_EQ, static_cast<std::uint32_t>(::getpid())), "tgkill",
       "own pid", "abort() raising SIGABRT; asio's signal delivery to its own threads"},
  };
  return rules;
}

}  // namespace

std::vector<std::string> broker_allowed_syscalls() {
  std::vector<std::string> names;
  for (const auto& call : kAllowed) names.emplace_back(call.name);
  for (const auto& rule : narrow_rules())
    names.push_back(std::string(rule.name) + " (" + std::string(rule.condition) + ")");
  names.emplace_back("clone3 (fails ENOSYS)");
  return names;
}

Status confine_broker() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return Error::from_errno(ErrorCode::Internal, "prctl", errno, "PR_SET_NO_NEW_PRIVS");
  // new_filter: a call made through another ABI kills whatever its number.
  SIGNALTTY_TRY(seccomp::FilterPtr filter, seccomp::new_filter());
  SIGNALTTY_RETURN_IF_ERROR(seccomp::allow_calls(filter.get(), kAllowed));
  for (const auto& rule : narrow_rules())
    if (int rc = seccomp_rule_add(filter.get(), SCMP_ACT_ALLOW, rule.nr, 1, rule.arg); rc != 0)
      return seccomp::failed(rule.reason, rc);
  // glibc tries clone3 before clone for a new thread: ENOSYS sends it to
  // clone, whose flags the rule above can see (clone3's are behind a pointer).
  if (int rc = seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0); rc != 0)
    return seccomp::failed("clone3", rc);
  if (int rc = seccomp_load(filter.get()); rc != 0) return seccomp::failed("seccomp_load", rc);
  return {};
}

}  // namespace signaltty::broker
