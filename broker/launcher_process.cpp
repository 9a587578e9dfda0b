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

#include "common/child_signals.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {

// One request or reply: an id, a pane id or pid, a short reason.
constexpr std::size_t kMaxMessage = 256;
// Where the channel sits in the launcher, and the report pipe in a
// ptyhost-to-be (both close-on-exec).
constexpr int kChannelFd = 3;
constexpr int kReportFd = 3;
constexpr int kExitExecFailed = 127;
constexpr const char* kPtyhostEnvPath = "PATH=/usr/local/bin:/usr/bin:/bin";

void close_fds_from(int first) {
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
  for (int fd = first; fd < 1024; ++fd) ::close(fd);
}

std::string err_body(int err, std::string_view what) {
  return "err " + std::to_string(err) + " " + std::string(what);
}

// In the grandchild: new session, the user's umask and core limit, only
// fds 0-2 (on /dev/null) and the report pipe, exec.
[[noreturn]] void exec_ptyhost(const LauncherConfig& cfg, const std::string& pane_id,
                               int report_fd) {
  ::setsid();
  reset_signals_in_child();
  ::umask(cfg.user_defaults.umask);
  ::setrlimit(RLIMIT_CORE, &cfg.user_defaults.core_limit);
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0)
    for (int fd = 0; fd <= 2; ++fd) ::dup2(devnull, fd);
  if (report_fd != kReportFd) ::dup3(report_fd, kReportFd, O_CLOEXEC);
  close_fds_from(kReportFd + 1);
  const pid_t self = ::getpid();
  // Unreported, the broker reads "no pid from child".
  if (::write(kReportFd, &self, sizeof self) != sizeof self) ::_exit(kExitExecFailed);
  const char* argv[] = {"signaltty-ptyhost", "--pane",  pane_id.c_str(), "--dir",
                        cfg.panes_dir.c_str(), "--broker-socket", cfg.broker_socket.c_str(),
                        nullptr};
  const char* envp[] = {kPtyhostEnvPath, nullptr};
  ::execve(cfg.ptyhost_path.c_str(), const_cast<char* const*>(argv),
           const_cast<char* const*>(envp));
  const int err = errno;
  // Unreported, the broker reads it as exec'd, then sees the exit.
  if (::write(kReportFd, &err, sizeof err) != sizeof err) ::_exit(kExitExecFailed);
  ::_exit(kExitExecFailed);
}

// Reads the grandchild's pid, then either EOF (exec'd) or its errno.
std::string await_exec(int read_fd) {
  pid_t child = -1;
  if (::read(read_fd, &child, sizeof child) != sizeof child) return err_body(0, "no pid from child");
  int err = 0;
  if (::read(read_fd, &err, sizeof err) == sizeof err) return err_body(err, "execve failed");
  return "ok " + std::to_string(child);
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// The reply body for one pane: double fork, so the ptyhost is never the
// launcher's (nor the broker's) child.
std::string launch_one(const LauncherConfig& cfg, const std::string& pane_id) {
  if (!is_pane_id(pane_id)) return err_body(EINVAL, "invalid pane id");
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return err_body(errno, "pipe2");
  UniqueFd report_read(pipefd[0]);
  UniqueFd report_write(pipefd[1]);
  pid_t mid = -1;
  {
    SignalsBlocked blocked;
    mid = ::fork();
    if (mid == 0) {
      report_read.reset();
      const pid_t grand = ::fork();
      if (grand == 0) exec_ptyhost(cfg, pane_id, report_write.get());
      ::_exit(grand < 0 ? 1 : 0);
    }
  }
  if (mid < 0) return err_body(errno, "fork");
  report_write.reset();
  reap(mid);
  return await_exec(report_read.get());
}

std::string reply_to(const LauncherConfig& cfg, std::string_view message) {
  auto request = decode_launch_request(message);
  if (!request) return encode_launch_reply({0, Error{ErrorCode::BadParams, "malformed request"}});
  const std::string body = launch_one(cfg, request->pane_id);
  return std::to_string(request->id) + " " + body;
}

[[noreturn]] void launcher_main(const LauncherConfig& cfg, pid_t broker) {
  reset_signals_in_child();
  ::prctl(PR_SET_NAME, "sigtty-launcher", 0, 0, 0);
  // Die with the broker; a new broker forks a new launcher.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (::getppid() != broker) ::_exit(0);
  std::array<char, kMaxMessage> buf{};
  for (;;) {
    const ssize_t n = ::recv(kChannelFd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(0);
    const std::string reply = reply_to(cfg, std::string_view(buf.data(), static_cast<std::size_t>(n)));
    if (::send(kChannelFd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) ::_exit(0);
  }
}

template <class Int>
bool parse_int(std::string_view text, Int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Splits off the text up to the first space.
std::string_view take_word(std::string_view& rest) {
  const auto space = rest.find(' ');
  std::string_view word = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return word;
}

}  // namespace

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
  return std::to_string(request.id) + " " + request.pane_id;
}

std::optional<LaunchRequest> decode_launch_request(std::string_view message) {
  LaunchRequest out;
  if (!parse_int(take_word(message), out.id) || message.empty()) return std::nullopt;
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
  if (!parse_int(take_word(message), out.id)) return std::nullopt;
  const std::string_view verdict = take_word(message);
  if (verdict == "ok") {
    pid_t pid = -1;
    if (!parse_int(message, pid) || pid <= 0) return std::nullopt;
    out.outcome = pid;
    return out;
  }
  int err = 0;
  if (verdict != "err" || !parse_int(take_word(message), err)) return std::nullopt;
  out.outcome = Error{ErrorCode::SpawnFailed,
                      "launching signaltty-ptyhost: " + std::string(message) +
                          (err != 0 ? std::string(" (") + ::strerror(err) + ")" : "")};
  return out;
}

}  // namespace signaltty::broker
