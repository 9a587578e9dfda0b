// gitworker/sandbox.cpp: the gitworker's confinement, read top to bottom:
// resource limits, no-new-privs, Landlock (which directories it may read
// and write), then the seccomp allowlist with the reason for each call,
// calls allowed only on fixed arguments, calls refused with an errno, and
// default kill (docs/gitworker.md "Sandbox").
// Runs in: gitworker, once, before it reads its request; the sandbox
// tests' forked children. Never: skips a step, returns success with any
// step missing, or lets the process go on unconfined after a failure.
//
// The allowlist is what glibc 2.36 and libgit2 1.5 call for the worker's
// ops, read with strace over each op: path-based file calls (libgit2 opens
// by absolute path, not relative to a dir fd), loose objects written as a
// temp file then link()ed in place, reflogs and lock files, a checkout's
// files, directories and symlinks. Where a path may lead is Landlock's job,
// not seccomp's. Outside the plan's directories nothing is read: the one
// file glibc wants later (/etc/localtime) is loaded before Landlock.
//
// Sanitizer builds (SIGNALTTY_SANITIZE, -fsanitize=address): the default
// action is SCMP_ACT_LOG instead of SCMP_ACT_KILL_PROCESS, because
// LeakSanitizer's exit-time scan forks a tracer and ptraces the process and
// the runtime opens /proc files; those calls are logged by the kernel
// instead of killing the worker. For that scan to work at all, Landlock
// lets those builds read /proc and RLIMIT_NPROC is not set (the tracer is a
// child). RLIMIT_AS is not set there either: AddressSanitizer reserves
// terabytes of shadow memory. Release builds always kill, always limit and
// read nothing outside the plan's directories.
#include "gitworker/sandbox.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_fd.hpp"

// Rights newer than the kernel headers we build against; the running
// kernel's ABI decides which are handled.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

namespace signaltty::gitworker {
namespace {

// Sanitizer builds (ASan, and ThreadSanitizer with SIGNALTTY_TSAN) map
// terabytes of shadow memory and read /proc/self/maps: no RLIMIT_AS, /proc
// readable, and the filter logs a call it would refuse instead of killing,
// so a sanitizer's own calls do not end the worker. Release builds kill.
#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
constexpr std::uint32_t kDefaultAction = SCMP_ACT_LOG;
#else
constexpr bool kSanitized = false;
constexpr std::uint32_t kDefaultAction = SCMP_ACT_KILL_PROCESS;
#endif

Error unavailable(std::string_view step, std::string_view reason) {
  return Error{ErrorCode::IoError,
               "sandbox unavailable: " + std::string(step) + ": " + std::string(reason)};
}

Error unavailable_errno(std::string_view step, int err) {
  return unavailable(step, std::strerror(err));
}

// ---- 1. resource limits ---------------------------------------------------

struct Limit {
  int resource;
  const char* name;
  rlim_t value;
};

constexpr rlim_t kGiB = rlim_t{1} << 30;

// Soft and hard limit alike, so the worker cannot raise them back. A limit
// already lower (the launcher's) is kept.
constexpr Limit kLimits[] = {
    // The longest deadline the broker gives a worker is 120 s (a merge);
    // past it the broker has killed the group anyway.
    {RLIMIT_CPU, "RLIMIT_CPU", 150},
    // libgit2's pack windows are capped at 256 MiB (init_libgit2) and a file
    // diff reads at most 512 KiB of a file: 4 GiB is far above either and
    // still stops a crafted repository from exhausting memory.
    {RLIMIT_AS, "RLIMIT_AS", 4 * kGiB},
    // The largest file a worker writes is one object or checkout file.
    {RLIMIT_FSIZE, "RLIMIT_FSIZE", 4 * kGiB},
    // Open pack files, one directory per level of a walk, a few lock files.
    {RLIMIT_NOFILE, "RLIMIT_NOFILE", 256},
    // No children. (Root is not bound by RLIMIT_NPROC; seccomp kills
    // fork/clone regardless.)
    {RLIMIT_NPROC, "RLIMIT_NPROC", 0},
    // No core file of attacker-shaped memory.
    {RLIMIT_CORE, "RLIMIT_CORE", 0},
};

Status lower_limits() {
  for (const Limit& limit : kLimits) {
    if (kSanitized && (limit.resource == RLIMIT_AS || limit.resource == RLIMIT_NPROC)) continue;
    rlimit current{};
    if (::getrlimit(limit.resource, &current) != 0)
      return unavailable_errno(std::string("rlimits: ") + limit.name, errno);
    const rlim_t value = std::min(limit.value, current.rlim_max);
    const rlimit wanted{value, value};
    if (::setrlimit(limit.resource, &wanted) != 0)
      return unavailable_errno(std::string("rlimits: ") + limit.name, errno);
  }
  return {};
}

// ---- 3. Landlock -----------------------------------------------------------

constexpr std::uint64_t kReadRights = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// Objects, refs, reflogs, lock files, a checkout's files, dirs and symlinks;
// REFER: a temp object linked into its fan-out directory. Never EXECUTE,
// device nodes, sockets or FIFOs.
constexpr std::uint64_t kWriteRights =
    kReadRights | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
    LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE;

// Every filesystem right the kernel's Landlock ABI knows: handled rights
// are denied unless a rule grants them. Network rights (ABI 4) are left
// to seccomp, which refuses socket() outright.
Result<std::uint64_t> handled_rights() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0,
                             LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) return unavailable_errno("landlock", errno);
  if (abi < 1) return unavailable("landlock", "ABI " + std::to_string(abi));
  std::uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return rights;
}

Status add_dir_rule(int ruleset, const std::string& dir, std::uint64_t rights) {
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return unavailable("landlock: " + dir, std::strerror(errno));
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = fd.get();
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    return unavailable("landlock: " + dir, std::strerror(errno));
  return {};
}

Status restrict_paths(const SandboxPlan& plan) {
  SIGNALTTY_TRY(const std::uint64_t handled, handled_rights());
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled;
  UniqueFd ruleset(
      static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0)));
  if (!ruleset) return unavailable_errno("landlock", errno);
  for (const std::string& dir : plan.read_dirs)
    SIGNALTTY_RETURN_IF_ERROR(add_dir_rule(ruleset.get(), dir, kReadRights & handled));
  for (const std::string& dir : plan.write_dirs)
    SIGNALTTY_RETURN_IF_ERROR(add_dir_rule(ruleset.get(), dir, kWriteRights & handled));
  if (kSanitized)
    SIGNALTTY_RETURN_IF_ERROR(add_dir_rule(ruleset.get(), "/proc", kReadRights & handled));
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0)
    return unavailable_errno("landlock", errno);
  return {};
}

// ---- 4. seccomp ------------------------------------------------------------

// One filter entry and why it is there. A reason opening with "(...)"
// states the entry's condition, which the golden file shows beside the name.
struct Call {
  const char* name;
  const char* reason;
};

// Calls allowed with any arguments.
constexpr Call kAllowed[] = {
    {"read", "the request on stdin; files, packs, refs, config"},
    {"write", "the reply on stdout, one error line on stderr; objects, refs, checkout files"},
    {"close", "every file libgit2 opens"},
    {"openat", "libgit2 opens by absolute path (Landlock decides which)"},
    {"lseek", "pack trailers, index and file reads"},
    {"pread64", "pack and index reads"},
    {"newfstatat", "stat/lstat/fstat (glibc routes all three here): status, diff, checkout"},
    {"readlink", "realpath() of the repository; symlink blobs"},
    {"getdents64", "walking the working tree (untracked files, status, capture)"},
    {"access", "libgit2 probes for files (config, alternates, worktrees, locks)"},
    {"faccessat2", "access(..., AT_EACCESS): libgit2's directory probes"},
    {"mkdir", "object fan-out dirs, .git/worktrees/<name>, a checkout's dirs"},
    {"rmdir", "worktree_remove: the checkout and its admin dir"},
    {"unlink", "temp objects once linked, lock files, worktree_remove's files"},
    {"link", "a temp object linked to its final name (libgit2's rename)"},
    {"rename", "libgit2's rename where link() fails: replacing a file (packed-refs, a ref)"},
    {"symlink", "worktree_add: a symlink entry in the checkout"},
    {"utimensat", "freshening an object that already exists"},
    {"fsync", "merge: its marker is on disk before the checkout is written; core.fsync settings"},
    {"fdatasync", "core.fsync settings of the repository"},
    {"geteuid", "libgit2's repository ownership check"},
    {"brk", "heap"},
    {"munmap", "heap, pack windows"},
    {"mremap", "heap (growing large buffers)"},
    {"madvise", "heap trimming"},
    {"futex", "libgit2 and C++ runtime locks, one-time initialisation"},
    {"clock_gettime", "signature times (when the vDSO falls back to the call)"},
    {"gettimeofday", "signature times (when the vDSO falls back to the call)"},
    {"rt_sigprocmask", "abort(): a failed assertion dies by SIGABRT, not SIGSYS"},
    {"rt_sigaction", "abort(): resetting a SIGABRT handler"},
    {"getpid", "abort(): raise() names its own process"},
    {"gettid", "abort(): raise() names its own thread"},
    {"exit_group", "process exit"},
};

using FilterPtr = std::unique_ptr<void, decltype(&seccomp_release)>;

Error seccomp_failed(std::string_view what, int rc) {
  return unavailable("seccomp: " + std::string(what), std::strerror(-rc));
}

Status allow_plain(scmp_filter_ctx ctx) {
  for (const Call& call : kAllowed) {
    const int nr = seccomp_syscall_resolve_name(call.name);
    if (nr == __NR_SCMP_ERROR) return unavailable("seccomp", std::string("unknown ") + call.name);
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); rc != 0)
      return seccomp_failed(call.name, rc);
  }
  return {};
}

struct Narrow {
  int nr;
  scmp_arg_cmp arg;
  bool wanted;
  Call call;
};

// Calls allowed only on fixed arguments. `plan` null: every rule, for
// allowed_syscalls().
constexpr std::uint32_t kExec = PROT_EXEC;
std::vector<Narrow> narrow_rules(const SandboxPlan* plan) {
  const auto self = static_cast<std::uint32_t>(::getpid());
  const bool sleep = plan == nullptr || plan->allow_sleep;
  return {
      {SCMP_SYS(mmap), SCMP_A2_32(SCMP_CMP_MASKED_EQ, kExec, 0), true,
       {"mmap", "(no PROT_EXEC) heap, pack windows"}},
      {SCMP_SYS(mprotect), SCMP_A2_32(SCMP_CMP_MASKED_EQ, kExec, 0), true,
       {"mprotect", "(no PROT_EXEC) heap arenas"}},
      {SCMP_SYS(tgkill), SCMP_A0_32(SCMP_CMP_EQ, self), true,
       {"tgkill", "(own pid) abort() raising SIGABRT"}},
      {SCMP_SYS(clock_nanosleep), SCMP_A0_32(SCMP_CMP_EQ, CLOCK_MONOTONIC), sleep,
       {"clock_nanosleep", "(allow_sleep, CLOCK_MONOTONIC) the test builds' stall op"}},
  };
}

// Calls refused with an errno instead of a kill: probes whose failure the
// caller handles.
struct Refused {
  int nr;
  int err;
  Call call;
};
constexpr Refused kRefused[] = {
    {SCMP_SYS(clone3), ENOSYS,
     {"clone3", "(fails ENOSYS) glibc tries it before clone; the worker starts nothing"}},
};

Status add_narrow(scmp_filter_ctx ctx, const SandboxPlan& plan) {
  for (const Narrow& rule : narrow_rules(&plan)) {
    if (!rule.wanted) continue;
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, rule.nr, 1, rule.arg); rc != 0)
      return seccomp_failed(rule.call.name, rc);
  }
  return {};
}

Status add_refused(scmp_filter_ctx ctx) {
  for (const Refused& rule : kRefused)
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(rule.err), rule.nr, 0); rc != 0)
      return seccomp_failed(rule.call.name, rc);
  return {};
}

Status install_filter(const SandboxPlan& plan) {
  FilterPtr filter(seccomp_init(kDefaultAction), &seccomp_release);
  if (!filter) return unavailable("seccomp", "seccomp_init failed");
  // Arch check: a call made through another ABI (int 0x80, x32 numbers)
  // kills the process whatever its number. The filter holds the native
  // arch only (seccomp_init's default).
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
      rc != 0)
    return seccomp_failed("badarch", rc);
  // No-new-privs is set already (step 2): the load need not set it again.
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_NNP, 0); rc != 0)
    return seccomp_failed("nnp", rc);
  SIGNALTTY_RETURN_IF_ERROR(allow_plain(filter.get()));
  SIGNALTTY_RETURN_IF_ERROR(add_narrow(filter.get(), plan));
  SIGNALTTY_RETURN_IF_ERROR(add_refused(filter.get()));
  if (int rc = seccomp_load(filter.get()); rc != 0) return seccomp_failed("load", rc);
  return {};
}

}  // namespace

Status enter_sandbox(const SandboxPlan& plan) {
  // glibc reads /etc/localtime on its first localtime_r (a reflog's
  // signature): read it now, while it is still readable.
  ::tzset();
  SIGNALTTY_RETURN_IF_ERROR(lower_limits());
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return unavailable_errno("no_new_privs", errno);
  SIGNALTTY_RETURN_IF_ERROR(restrict_paths(plan));
  SIGNALTTY_RETURN_IF_ERROR(install_filter(plan));
  return {};
}

std::vector<AllowedSyscall> allowed_syscalls() {
  std::vector<AllowedSyscall> out;
  for (const Call& call : kAllowed) out.push_back({call.name, call.reason});
  for (const Narrow& rule : narrow_rules(nullptr))
    out.push_back({rule.call.name, rule.call.reason});
  for (const Refused& rule : kRefused) out.push_back({rule.call.name, rule.call.reason});
  return out;
}

}  // namespace signaltty::gitworker
