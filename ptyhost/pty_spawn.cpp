// ptyhost/pty_spawn.cpp: openpty + fork + exec of the pane's program, in the
// manner of a terminal multiplexer's spawn: signals blocked across fork and
// reset in the child, only the intended fds kept, _exit on failure.
// Runs in: ptyhost (parent side) and the child between fork and exec, where
// only async-signal-safe calls are made: everything the child needs (argv,
// envp, candidate paths) is built before fork.
#include "ptyhost/pty_spawn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include "common/child_signals.hpp"

namespace signaltty::ptyhost {
namespace {

// execvp's fallback when the environment has no PATH (without "." in it).
constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// What the child writes on the report pipe when it cannot exec.
enum class ChildStage : int { Session = 1, ControllingTty, Stdio, Chdir, Exec };

struct ChildReport {
  int stage = 0;
  int err = 0;
};

const char* stage_name(int stage) {
  switch (static_cast<ChildStage>(stage)) {
    case ChildStage::Session: return "setsid";
    case ChildStage::ControllingTty: return "controlling_tty";
    case ChildStage::Stdio: return "stdio";
    case ChildStage::Chdir: return "chdir";
    case ChildStage::Exec: return "exec";
  }
  return "unknown";
}

// Everything the child touches, prepared before fork.
struct ExecPlan {
  std::vector<std::string> candidates;  // paths to try, in PATH order
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* cwd = nullptr;
};

std::string path_of(const std::vector<std::string>& env) {
  for (const auto& kv : env)
    if (kv.rfind("PATH=", 0) == 0) return kv.substr(5);
  return kDefaultPath;
}

// argv[0] with a '/' is used as is (relative to cwd, since the child chdirs
// first); otherwise each PATH element in turn, an empty one meaning cwd.
std::vector<std::string> exec_candidates(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) return {program};
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? end : end - start);
    out.push_back(dir.empty() ? program : dir + "/" + program);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::vector<char*> c_strings(const std::vector<std::string>& items) {
  std::vector<char*> out;
  out.reserve(items.size() + 1);
  for (const auto& s : items) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

ExecPlan make_plan(const SpawnSpec& spec) {
  ExecPlan plan;
  plan.candidates = exec_candidates(spec.argv.front(), path_of(spec.env));
  plan.argv = c_strings(spec.argv);
  plan.envp = c_strings(spec.env);
  plan.cwd = spec.cwd.c_str();
  return plan;
}

struct PtyPair {
  UniqueFd master;
  UniqueFd slave;
};

Result<PtyPair> open_pty(int cols, int rows) {
  int master = -1;
  int slave = -1;
  winsize size{};
  size.ws_col = static_cast<unsigned short>(cols);
  size.ws_row = static_cast<unsigned short>(rows);
  if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0)
    return Error::from_errno(ErrorCode::SpawnFailed, "openpty", errno);
  PtyPair pair{UniqueFd(master), UniqueFd(slave)};
  const int flags = ::fcntl(master, F_GETFL);
  if (flags < 0 || ::fcntl(master, F_SETFL, flags | O_NONBLOCK) != 0 ||
      ::fcntl(master, F_SETFD, FD_CLOEXEC) != 0 || ::fcntl(slave, F_SETFD, FD_CLOEXEC) != 0)
    return Error::from_errno(ErrorCode::SpawnFailed, "fcntl", errno, "pty");
  return pair;
}

[[noreturn]] void child_fail(int report_fd, ChildStage stage, int err) {
  ChildReport report{static_cast<int>(stage), err};
  if (::write(report_fd, &report, sizeof report) != sizeof report) ::_exit(127);  // unreported: EOF
  ::_exit(127);
}

// Closes the fds lo..hi; close(2) one by one where close_range is missing.
void close_fd_span(unsigned lo, unsigned hi) {
  if (lo > hi) return;
  if (::close_range(lo, hi, 0) == 0) return;
  for (unsigned fd = lo; fd <= hi && fd < 65536; ++fd) ::close(static_cast<int>(fd));
}

// Closes every fd from `first` except `keep` (which is close-on-exec).
void child_close_fds(int first, int keep) {
  close_fd_span(static_cast<unsigned>(first), static_cast<unsigned>(keep) - 1);
  close_fd_span(static_cast<unsigned>(keep) + 1, ~0U);
}

[[noreturn]] void child_exec(const ExecPlan& plan, int slave, int report_fd) {
  reset_signals_in_child();
  if (::setsid() < 0) child_fail(report_fd, ChildStage::Session, errno);
  if (::ioctl(slave, TIOCSCTTY, 0) != 0) child_fail(report_fd, ChildStage::ControllingTty, errno);
  for (int fd = 0; fd <= 2; ++fd)
    if (::dup2(slave, fd) < 0) child_fail(report_fd, ChildStage::Stdio, errno);
  child_close_fds(3, report_fd);
  if (::chdir(plan.cwd) != 0) child_fail(report_fd, ChildStage::Chdir, errno);
  // execvp's rules without its shell fallback: remember EACCES, go on past
  // a missing file, stop at any other failure.
  int err = ENOENT;
  bool saw_eacces = false;
  for (const auto& path : plan.candidates) {
    ::execve(path.c_str(), plan.argv.data(), plan.envp.data());
    err = errno;
    if (err == EACCES) saw_eacces = true;
    if (err != ENOENT && err != ENOTDIR && err != EACCES && err != ESTALE) break;
  }
  if (saw_eacces && (err == ENOENT || err == ENOTDIR)) err = EACCES;
  child_fail(report_fd, ChildStage::Exec, err);
}

// The probe's child: own process group, /dev/null on 0-2, nothing else
// open, cwd, then the same lookup as the program's. Exit 127 on failure.
[[noreturn]] void probe_exec(const ExecPlan& plan, int null_fd) {
  reset_signals_in_child();
  if (::setpgid(0, 0) != 0) ::_exit(127);
  for (int fd = 0; fd <= 2; ++fd)
    if (::dup2(null_fd, fd) < 0) ::_exit(127);
  close_fd_span(3, ~0U);
  if (::chdir(plan.cwd) != 0) ::_exit(127);
  for (const auto& path : plan.candidates) ::execve(path.c_str(), plan.argv.data(), plan.envp.data());
  ::_exit(127);
}

using ProbeClock = std::chrono::steady_clock;

int ms_until(ProbeClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ProbeClock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

// The probe's wait status once it ended by `deadline`, else nullopt. A
// pidfd when the kernel has one; else WNOHANG polls 5 ms apart.
std::optional<int> wait_until(pid_t pid, ProbeClock::time_point deadline) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) return status;
    if (got < 0 && errno != EINTR) return std::nullopt;
    const int left = ms_until(deadline);
    if (left == 0) return std::nullopt;
    pollfd pfd{pidfd.get(), POLLIN, 0};
    if (pidfd) ::poll(&pfd, 1, left);
    else ::poll(nullptr, 0, std::min(left, 5));
  }
}

// Blocks until the child has exec'd (EOF: the pipe closed on exec) or
// reported why it could not.
std::optional<ChildReport> await_exec(int read_fd) {
  ChildReport report;
  for (;;) {
    ssize_t n = ::read(read_fd, &report, sizeof report);
    if (n < 0 && errno == EINTR) continue;
    if (n == static_cast<ssize_t>(sizeof report)) return report;
    return std::nullopt;
  }
}

Error spawn_error(const SpawnSpec& spec, const ChildReport& report) {
  Error e = Error::from_errno(ErrorCode::SpawnFailed, stage_name(report.stage), report.err,
                              spec.argv.front());
  e.details = {{"errno", report.err}, {"stage", stage_name(report.stage)}};
  return e;
}

void reap_blocking(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), reaped_(std::exchange(other.reaped_, false)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  pid_ = std::exchange(other.pid_, -1);
  reaped_ = std::exchange(other.reaped_, false);
  return *this;
}

Status ChildProcess::signal(int signo, SignalTarget target) const {
  if (!alive()) return Error{ErrorCode::PaneExited, "the pane's program has exited"};
  const pid_t who = target == SignalTarget::Group ? -pid_ : pid_;
  if (::kill(who, signo) != 0) return Error::from_errno(ErrorCode::IoError, "kill", errno);
  return {};
}

std::optional<ChildExit> ChildProcess::try_reap() {
  if (!alive()) return std::nullopt;
  int status = 0;
  pid_t got = ::waitpid(pid_, &status, WNOHANG);
  if (got != pid_) return std::nullopt;
  reaped_ = true;
  if (WIFSIGNALED(status)) return ChildExit{std::nullopt, WTERMSIG(status)};
  return ChildExit{WEXITSTATUS(status), std::nullopt};
}

Result<SpawnedPty> spawn_on_pty(const SpawnSpec& spec) {
  if (spec.argv.empty() || spec.argv.front().empty()) return bad_params("argv: must not be empty");
  const ExecPlan plan = make_plan(spec);
  SIGNALTTY_TRY(PtyPair pty, open_pty(spec.cols, spec.rows));
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0)
    return Error::from_errno(ErrorCode::SpawnFailed, "pipe2", errno);
  UniqueFd report_read(pipefd[0]);
  UniqueFd report_write(pipefd[1]);

  pid_t pid = -1;
  int fork_errno = 0;
  {
    SignalsBlocked blocked;
    pid = ::fork();
    if (pid == 0) child_exec(plan, pty.slave.get(), report_write.get());
    fork_errno = errno;
  }
  if (pid < 0) return Error::from_errno(ErrorCode::SpawnFailed, "fork", fork_errno);

  pty.slave.reset();
  report_write.reset();
  if (auto report = await_exec(report_read.get())) {
    reap_blocking(pid);
    return spawn_error(spec, *report);
  }
  return SpawnedPty{std::move(pty.master), ChildProcess(pid)};
}

bool probe_passes(const std::vector<std::string>& probe, const std::vector<std::string>& env,
                  const std::string& cwd, std::chrono::milliseconds timeout) {
  if (probe.empty() || probe.front().empty()) return false;
  const auto deadline = ProbeClock::now() + timeout;
  const SpawnSpec spec{probe, env, cwd, 0, 0};  // the plan points into it
  const ExecPlan plan = make_plan(spec);
  UniqueFd null_fd(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null_fd) return false;
  pid_t pid = -1;
  {
    SignalsBlocked blocked;
    pid = ::fork();
    if (pid == 0) probe_exec(plan, null_fd.get());
  }
  if (pid < 0) return false;
  ::setpgid(pid, pid);  // also here, so the kill below never misses the group
  if (auto status = wait_until(pid, deadline))
    return WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
  ::kill(-pid, SIGKILL);
  reap_blocking(pid);
  return false;
}

std::string signal_abbrev(int signo) {
  const char* name = ::sigabbrev_np(signo);
  return name ? std::string(name) : std::to_string(signo);
}

}  // namespace signaltty::ptyhost
