// broker/launcher_process.cpp: the launcher process and its channel's
// messages.
// Runs in: broker (fork_launcher, codec), the launcher, and (between fork
// and exec) the ptyhost-to-be.
#include "broker/launcher_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <vector>

#include "common/child_signals.hpp"
#include "common/fd_passing.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {

// One request or reply: an id, a pane id, a hook's name and event, or a
// pid and a short reason.
constexpr std::size_t kMaxMessage = 512 + git::kGitMaxDirs * (git::kGitMaxPath + 3);
// Where the channel sits in the launcher, and the report pipe in a
// ptyhost-to-be (both close-on-exec).
constexpr int kChannelFd = 3;
constexpr int kReportFd = 3;
constexpr int kExitExecFailed = 127;
const std::string kPtyhostEnvPath = "PATH=" + std::string(kDefaultPathList);
// No per-thread malloc cache in the ptyhost. glibc keeps up to seven freed
// chunks of each small size there for good, never merged or trimmed; in a
// process that idles for most of its life they pinned about 37 KiB of heap
// pages per pane (an idle 120x40 pane: 259 KiB PSS with it, 222 without).
// glibc 2.36 has no call to change it at run time, only this tunable. The
// pane's program never sees it: its environment is the spawn's own.
constexpr const char* kPtyhostEnvMalloc = "GLIBC_TUNABLES=glibc.malloc.tcache_count=0";
// The second word of a hook request (never a pane id).
constexpr std::string_view kHookWord = "hook";
constexpr std::string_view kGitWord = "git";

std::string err_body(int err, std::string_view what) {
  return "err " + std::to_string(err) + " " + std::string(what);
}

// The ptyhost's stderr: /dev/null, except in a ThreadSanitizer build,
// where it keeps the broker's so that a race report inside a ptyhost is
// seen (its sandbox lets it write there and open nothing else).
#if defined(__SANITIZE_THREAD__)
constexpr int kPtyhostNullFds = 2;
#else
constexpr int kPtyhostNullFds = 3;
#endif

// In the grandchild: new session, the user's umask and core limit, only
// fds 0-2 (on /dev/null, but for kPtyhostNullFds) and the report pipe, exec.
[[noreturn]] void exec_ptyhost(const LauncherConfig& cfg, const std::string& pane_id,
                               int report_fd) {
  ::setsid();
  reset_signals_in_child();
  ::umask(cfg.user_defaults.umask);
  ::setrlimit(RLIMIT_CORE, &cfg.user_defaults.core_limit);
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0)
    for (int fd = 0; fd < kPtyhostNullFds; ++fd) ::dup2(devnull, fd);
  if (report_fd != kReportFd) ::dup3(report_fd, kReportFd, O_CLOEXEC);
  close_fds_from(kReportFd + 1);
  const pid_t self = ::getpid();
  // Unreported, the broker reads "no pid from child".
  if (::write(kReportFd, &self, sizeof self) != sizeof self) ::_exit(kExitExecFailed);
  const char* argv[] = {"signaltty-ptyhost", "--pane",  pane_id.c_str(), "--dir",
                        cfg.panes_dir.c_str(), "--broker-socket", cfg.broker_socket.c_str(),
                        nullptr};
  const char* envp[] = {kPtyhostEnvPath.c_str(), kPtyhostEnvMalloc, nullptr};
  ::execve(cfg.ptyhost_path.c_str(), const_cast<char* const*>(argv),
           const_cast<char* const*>(envp));
  const int err = errno;
  // Unreported, the broker reads it as exec'd, then sees the exit.
  if (::write(kReportFd, &err, sizeof err) != sizeof err) ::_exit(kExitExecFailed);
  ::_exit(kExitExecFailed);
}

// Reads the grandchild's pid, then either EOF (exec'd, or started) or its errno.
Result<pid_t> await_report(int read_fd) {
  pid_t child = -1;
  if (::read(read_fd, &child, sizeof child) != sizeof child)
    return Error{ErrorCode::SpawnFailed, "no pid from child"};
  int err = 0;
  if (::read(read_fd, &err, sizeof err) == sizeof err)
    return Error::from_errno(ErrorCode::SpawnFailed, "execve", err);
  return child;
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

Result<pid_t> launch_ptyhost(const LauncherConfig& cfg, const std::string& pane_id) {
  if (!is_pane_id(pane_id)) return Error{ErrorCode::SpawnFailed, "invalid pane id"};
  return run_detached(
      [&cfg, &pane_id](int report_fd) { exec_ptyhost(cfg, pane_id, report_fd); });
}

// A hook request carries exactly its four pipes; anything else passed is
// closed unread.
Result<pid_t> serve(const LauncherConfig& cfg, const LaunchRequest& request,
                    std::vector<UniqueFd>& passed) {
  if (!request.hook && !request.git) return launch_ptyhost(cfg, request.pane_id);
  if (passed.size() != kChildPipeCount)
    return Error{ErrorCode::SpawnFailed, "the request needs its four pipes"};
  ChildPipes pipes;
  for (std::size_t i = 0; i < pipes.size(); ++i) pipes[i] = std::move(passed[i]);
  if (request.git) return git::start_gitworker(cfg, *request.git, std::move(pipes));
  return plugins::start_hook(cfg, *request.hook, std::move(pipes));
}

[[noreturn]] void launcher_main(const LauncherConfig& cfg, pid_t broker) {
  reset_signals_in_child();
  ::prctl(PR_SET_NAME, "sigtty-launcher", 0, 0, 0);
  // Die with the broker; a new broker forks a new launcher.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (::getppid() != broker) ::_exit(0);
  std::array<char, kMaxMessage> buf{};
  for (;;) {
    // A hook's four pipes at most come with a request, close-on-exec; a
    // message with more, or cut short, is refused.
    ReceivedMessage got = receive_with_fds(kChannelFd, buf, 0);
    if (got.size <= 0) ::_exit(0);
    auto request = decode_launch_request(std::string_view(buf.data(), static_cast<std::size_t>(got.size)));
    LaunchReply reply{0, Error{ErrorCode::BadParams, "malformed request"}};
    const bool truncated = got.data_truncated || got.fds_truncated;
    if (request && !truncated) reply = {request->id, serve(cfg, *request, got.fds)};
    else if (request) reply = {request->id, Error{ErrorCode::BadParams, "request cut short"}};
    got.fds.clear();  // whatever the request did not take
    const std::string text = encode_launch_reply(reply);
    if (::send(kChannelFd, text.data(), text.size(), MSG_NOSIGNAL) < 0) ::_exit(0);
  }
}

}  // namespace

std::string_view take_word(std::string_view& rest) {
  const auto space = rest.find(' ');
  std::string_view word = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return word;
}

void close_fds_from(int first) {
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
  for (int fd = first; fd < 1024; ++fd) ::close(fd);
}

// Double fork, so the grandchild is never the launcher's (nor the
// broker's) child.
Result<pid_t> run_detached(const std::function<void(int report_fd)>& grandchild) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0)
    return Error::from_errno(ErrorCode::SpawnFailed, "pipe2", errno);
  UniqueFd report_read(pipefd[0]);
  UniqueFd report_write(pipefd[1]);
  pid_t mid = -1;
  {
    SignalsBlocked blocked;
    mid = ::fork();
    if (mid == 0) {
      report_read.reset();
      const pid_t grand = ::fork();
      if (grand == 0) {
        grandchild(report_write.get());
        ::_exit(kExitExecFailed);
      }
      ::_exit(grand < 0 ? 1 : 0);
    }
  }
  if (mid < 0) return Error::from_errno(ErrorCode::SpawnFailed, "fork", errno);
  report_write.reset();
  reap(mid);
  return await_report(report_read.get());
}

Result<pid_t> fork_launcher(const LauncherConfig& config, UniqueFd channel) {
  const pid_t broker = ::getpid();
  pid_t pid = -1;
  {
    SignalsBlocked blocked;
    pid = ::fork();
    if (pid == 0) {
      if (channel.get() != kChannelFd) ::dup3(channel.get(), kChannelFd, O_CLOEXEC);
      close_fds_from(kChannelFd + 1);
      launcher_main(config, broker);
    }
  }
  if (pid < 0) return Error::from_errno(ErrorCode::IoError, "fork", errno, "launcher");
  return pid;
}

std::string encode_launch_request(const LaunchRequest& request) {
  const std::string id = std::to_string(request.id) + " ";
  if (request.hook) return id + std::string(kHookWord) + " " + plugins::encode_hook_launch(*request.hook);
  if (request.git) return id + std::string(kGitWord) + " " + git::encode_git_launch(*request.git);
  return id + request.pane_id;
}

std::optional<LaunchRequest> decode_launch_request(std::string_view message) {
  LaunchRequest out;
  if (!parse_word(take_word(message), out.id) || message.empty()) return std::nullopt;
  std::string_view rest = message;
  const std::string_view verb = take_word(rest);
  if (verb == kGitWord) {
    out.git = git::decode_git_launch(rest);
    if (!out.git) return std::nullopt;
    return out;
  }
  if (verb == kHookWord) {
    out.hook = plugins::decode_hook_launch(rest);
    if (!out.hook) return std::nullopt;
    return out;
  }
  out.pane_id = std::string(message);
  return out;
}

std::string encode_launch_reply(const LaunchReply& reply) {
  const std::string id = std::to_string(reply.id) + " ";
  if (reply.outcome.ok()) return id + "ok " + std::to_string(*reply.outcome);
  return id + err_body(0, reply.outcome.error().message);
}

std::optional<LaunchReply> decode_launch_reply(std::string_view message) {
  LaunchReply out;
  if (!parse_word(take_word(message), out.id)) return std::nullopt;
  const std::string_view verdict = take_word(message);
  if (verdict == "ok") {
    pid_t pid = -1;
    if (!parse_word(message, pid) || pid <= 0) return std::nullopt;
    out.outcome = pid;
    return out;
  }
  int err = 0;
  if (verdict != "err" || !parse_word(take_word(message), err)) return std::nullopt;
  out.outcome = Error{ErrorCode::SpawnFailed,
                      std::string(message) +
                          (err != 0 ? std::string(" (") + ::strerror(err) + ")" : "")};
  return out;
}

}  // namespace signaltty::broker
