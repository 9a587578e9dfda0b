// broker/supervised_child.cpp: the supervisor, the child-to-be between
// fork and exec, and the status line.
// Runs in: the launcher, the supervisor, the child-to-be; the codec also in
// the broker.
#include "broker/supervised_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "broker/launcher_process.hpp"
#include "common/child_signals.hpp"
#include "common/fs.hpp"

namespace signaltty::broker {
namespace {

// Where the supervisor keeps the child's pipes: fds 0-2 are /dev/null.
constexpr int kSupStdin = 3;
constexpr int kSupStdout = 4;
constexpr int kSupStderr = 5;
constexpr int kSupStatus = 6;
constexpr int kExitExecFailed = 127;

// Steps of the child-to-be that can fail before exec, as reported.
enum class Step : int { Chdir = 1, Execve = 2 };

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// In the child-to-be, forked by the supervisor: its own session and
// process group, the user's umask and core limit, the pipes on 0-2, the
// failure report on 3 (closed by exec), nothing else.
[[noreturn]] void exec_child(ChildSpec& spec, int failure_fd) {
  ::setsid();
  reset_signals_in_child();
  ::umask(spec.defaults.umask);
  ::setrlimit(RLIMIT_CORE, &spec.defaults.core_limit);
  ::dup2(kSupStdin, STDIN_FILENO);
  ::dup2(kSupStdout, STDOUT_FILENO);
  ::dup2(kSupStderr, STDERR_FILENO);
  ::dup3(failure_fd, 3, O_CLOEXEC);
  close_fds_from(4);
  auto report = [](Step step) {
    const int failure[2] = {static_cast<int>(step), errno};
    if (::write(3, failure, sizeof failure) != sizeof failure) ::_exit(kExitExecFailed);
    ::_exit(kExitExecFailed);
  };
  if (::chdir(spec.dir.c_str()) != 0) report(Step::Chdir);
  std::vector<char*> argv = pointers(spec.argv);
  std::vector<char*> envp = pointers(spec.env);
  ::execve(spec.exe.c_str(), argv.data(), envp.data());
  report(Step::Execve);
  ::_exit(kExitExecFailed);
}

// Waits for `child` until `deadline`; past it kills its whole group.
ChildEnd await_child(pid_t child, std::chrono::milliseconds limit) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + limit;
  const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, child, 0)));
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(child, &status, WNOHANG);
    if (r == child) break;
    if (r < 0 && errno != EINTR) return {ChildEnd::Kind::SpawnFailed, errno, "waitpid"};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      ::kill(-child, SIGKILL);  // the group: whatever the child started too
      ::kill(child, SIGKILL);   // in case it had not made its group yet
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      return {ChildEnd::Kind::TimedOut, static_cast<int>(limit.count()), {}};
    }
    pollfd p{pidfd.get(), POLLIN, 0};
    // Without a pidfd (an old kernel), look again every 50 ms.
    const int wait_ms = pidfd ? static_cast<int>(left.count()) : std::min<int>(50, left.count());
    ::poll(pidfd ? &p : nullptr, pidfd ? 1 : 0, wait_ms);
  }
  if (WIFSIGNALED(status)) return {ChildEnd::Kind::Signaled, WTERMSIG(status), {}};
  return {ChildEnd::Kind::Exited, WEXITSTATUS(status), {}};
}

// The supervisor, in a grandchild of the launcher: reports its pid on
// `report_fd`, starts the child, waits, writes how it ended, exits.
[[noreturn]] void supervise(ChildSpec& spec, ChildPipes& pipes, int report_fd) {
  ::setsid();
  reset_signals_in_child();
  ::signal(SIGPIPE, SIG_IGN);  // a broker gone: the status write fails, no more
  ::prctl(PR_SET_NAME, spec.supervisor_name, 0, 0, 0);
  const pid_t self = ::getpid();
  if (::write(report_fd, &self, sizeof self) != sizeof self) ::_exit(1);
  // The pipes to 3..6 through copies above them (they may sit anywhere,
  // 3..6 included); then nothing else stays open, the launcher's channel
  // least of all.
  std::array<int, kChildPipeCount> high{};
  for (std::size_t i = 0; i < kChildPipeCount; ++i) {
    high[i] = ::fcntl(pipes[i].get(), F_DUPFD_CLOEXEC, 64);
    if (high[i] < 0) ::_exit(1);
  }
  for (std::size_t i = 0; i < kChildPipeCount; ++i)
    if (::dup3(high[i], kSupStdin + static_cast<int>(i), O_CLOEXEC) < 0) ::_exit(1);
  for (auto& pipe : pipes) (void)pipe.release();  // closed below, by number
  close_fds_from(kSupStatus + 1);
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0)
    for (int fd = 0; fd <= 2; ++fd) ::dup2(devnull, fd);
  if (devnull > kSupStatus) ::close(devnull);

  int failure[2];
  if (::pipe2(failure, O_CLOEXEC) != 0) {
    const ChildEnd failed{ChildEnd::Kind::SpawnFailed, errno, "pipe2"};
    (void)fs::write_all(kSupStatus, encode_child_end(failed), "the status pipe");
    ::_exit(0);
  }
  const pid_t child = ::fork();
  if (child == 0) exec_child(spec, failure[1]);
  ::close(failure[1]);
  // The child holds its stdio now; ours would keep the broker from seeing EOF.
  ::close(kSupStdin);
  ::close(kSupStdout);
  ::close(kSupStderr);
  ChildEnd end;
  if (child < 0) {
    end = {ChildEnd::Kind::SpawnFailed, errno, "fork"};
  } else {
    if (spec.report_pid)
      (void)fs::write_all(kSupStatus, "pid " + std::to_string(child) + "\n", "the status pipe");
    int report[2] = {0, 0};
    ssize_t n;
    while ((n = ::read(failure[0], report, sizeof report)) < 0 && errno == EINTR) {
    }
    if (n == sizeof report) {
      int ignored = 0;
      while (::waitpid(child, &ignored, 0) < 0 && errno == EINTR) {
      }
      const bool chdir_failed = report[0] == static_cast<int>(Step::Chdir);
      end = {ChildEnd::Kind::SpawnFailed, report[1],
             chdir_failed ? "chdir " + spec.dir : "execve " + spec.exe};
    } else {
      end = await_child(child, spec.deadline);
    }
  }
  (void)fs::write_all(kSupStatus, encode_child_end(end), "the status pipe");
  ::_exit(0);
}

}  // namespace

Result<pid_t> start_supervised(ChildSpec spec, ChildPipes pipes) {
  if (!has_all_pipes(pipes))
    return Error{ErrorCode::SpawnFailed, "the request came without its four pipes"};
  return run_detached([&spec, &pipes](int report_fd) { supervise(spec, pipes, report_fd); });
}

std::string encode_child_end(const ChildEnd& end) {
  switch (end.kind) {
    case ChildEnd::Kind::Exited: return "exit " + std::to_string(end.value);
    case ChildEnd::Kind::Signaled: return "signal " + std::to_string(end.value);
    case ChildEnd::Kind::TimedOut: return "timeout " + std::to_string(end.value);
    case ChildEnd::Kind::SpawnFailed:
      return "spawn " + std::to_string(end.value) + " " + end.what;
  }
  return "spawn 0 unknown";
}

std::optional<ChildEnd> decode_child_end(std::string_view text) {
  ChildEnd out;
  const std::string_view kind = take_word(text);
  if (kind == "spawn") {
    out.kind = ChildEnd::Kind::SpawnFailed;
    if (!parse_word(take_word(text), out.value)) return std::nullopt;
    out.what = std::string(text);
    return out;
  }
  if (kind == "exit")
    out.kind = ChildEnd::Kind::Exited;
  else if (kind == "signal")
    out.kind = ChildEnd::Kind::Signaled;
  else if (kind == "timeout")
    out.kind = ChildEnd::Kind::TimedOut;
  else
    return std::nullopt;
  if (!parse_word(text, out.value) || out.value < 0) return std::nullopt;
  return out;
}

StatusReport decode_status_report(std::string_view text) {
  StatusReport out;
  if (text.starts_with("pid ")) {
    const auto newline = text.find('\n');
    if (newline == std::string_view::npos) return out;
    pid_t pid = 0;
    if (parse_word(text.substr(4, newline - 4), pid) && pid > 0) out.child_pid = pid;
    text.remove_prefix(newline + 1);
  }
  if (!text.empty()) out.end = decode_child_end(text);
  return out;
}

}  // namespace signaltty::broker
