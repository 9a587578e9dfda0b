// broker/launcher.cpp: the launcher process and its client.
// Runs in: broker, launcher, and (between fork and exec) the ptyhost.
#include "broker/launcher.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "common/fs.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {

// A request is a pane id; a reply is "ok <pid>" or "err <errno> <what>".
constexpr std::size_t kMaxMessage = 256;
// The launcher's answer includes the ptyhost's exec; anything slower is a fault.
constexpr int kLaunchTimeoutMs = 5000;

bool valid_pane_id(const std::string& id) {
  return id.rfind("pane_", 0) == 0 && looks_like_id(id) && id.size() == 5 + 32;
}

void close_fds_from(int first) {
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
  for (int fd = first; fd < 1024; ++fd) ::close(fd);
}

void reset_signals() {
  for (int sig = 1; sig < NSIG; ++sig) std::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// In the grandchild: new session, only fds 0-2 (to /dev/null), exec.
[[noreturn]] void exec_ptyhost(const LauncherConfig& cfg, const std::string& pane_id,
                               int report_fd) {
  ::setsid();
  reset_signals();
  int devnull = ::open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
  }
  // Keep the report pipe (CLOEXEC) past close_range: move it to fd 3.
  ::dup3(report_fd, 3, O_CLOEXEC);
  close_fds_from(4);
  pid_t self = ::getpid();
  if (::write(3, &self, sizeof self) != sizeof self) ::_exit(127);  // read as "no pid from child"
  const char* argv[] = {"signaltty-ptyhost", "--pane",  pane_id.c_str(), "--dir",
                        cfg.panes_dir.c_str(), "--broker-socket", cfg.broker_socket.c_str(),
                        nullptr};
  const char* envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", nullptr};
  ::execve(cfg.ptyhost_path.c_str(), const_cast<char* const*>(argv),
           const_cast<char* const*>(envp));
  int err = errno;
  if (::write(3, &err, sizeof err) != sizeof err) ::_exit(127);  // unreported: read as exec'd, then its exit
  ::_exit(127);
}

// Reads the grandchild's pid, then either EOF (exec'd) or its errno.
std::string await_exec(int read_fd) {
  pid_t child = -1;
  if (::read(read_fd, &child, sizeof child) != sizeof child) return "err 0 no pid from child";
  int err = 0;
  ssize_t n = ::read(read_fd, &err, sizeof err);
  if (n == sizeof err) return "err " + std::to_string(err) + " execve failed";
  return "ok " + std::to_string(child);
}

std::string launch_one(const LauncherConfig& cfg, const std::string& pane_id) {
  if (!valid_pane_id(pane_id)) return "err 22 invalid pane id";
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return "err " + std::to_string(errno) + " pipe2";
  pid_t mid = ::fork();
  if (mid < 0) return "err " + std::to_string(errno) + " fork";
  if (mid == 0) {
    ::close(pipefd[0]);
    pid_t grand = ::fork();
    if (grand == 0) exec_ptyhost(cfg, pane_id, pipefd[1]);
    ::_exit(grand < 0 ? 1 : 0);
  }
  ::close(pipefd[1]);
  int status = 0;
  while (::waitpid(mid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string reply = await_exec(pipefd[0]);
  ::close(pipefd[0]);
  return reply;
}

[[noreturn]] void launcher_main(const LauncherConfig& cfg, int channel) {
  ::prctl(PR_SET_NAME, "sigtty-launcher", 0, 0, 0);
  // Die with the broker; a new broker forks a new launcher.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  std::array<char, kMaxMessage> buf{};
  for (;;) {
    ssize_t n = ::recv(channel, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(0);
    std::string reply = launch_one(cfg, std::string(buf.data(), static_cast<std::size_t>(n)));
    if (::send(channel, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) ::_exit(0);
  }
}

}  // namespace

std::string default_ptyhost_path() {
  std::array<char, 4096> buf{};
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "signaltty-ptyhost";
  return fs::join(fs::dirname(std::string(buf.data(), static_cast<std::size_t>(n))),
                  "signaltty-ptyhost");
}

Result<Launcher> Launcher::start(const LauncherConfig& config) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return Error::from_errno(ErrorCode::IoError, "socketpair", errno);
  pid_t pid = ::fork();
  if (pid < 0) return Error::from_errno(ErrorCode::IoError, "fork", errno);
  if (pid == 0) {
    ::close(sv[0]);
    ::dup3(sv[1], 3, O_CLOEXEC);
    close_fds_from(4);
    launcher_main(config, 3);
  }
  ::close(sv[1]);
  return Launcher(UniqueFd(sv[0]), pid);
}

Launcher::~Launcher() {
  if (pid_ > 0 && channel_) {
    channel_.reset();  // EOF: the launcher exits
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

Result<pid_t> Launcher::launch(const std::string& pane_id) {
  if (::send(channel_.get(), pane_id.data(), pane_id.size(), MSG_NOSIGNAL) < 0)
    return Error::from_errno(ErrorCode::SpawnFailed, "send", errno, "launcher");
  pollfd pfd{channel_.get(), POLLIN, 0};
  int ready = ::poll(&pfd, 1, kLaunchTimeoutMs);
  if (ready <= 0) return Error{ErrorCode::Timeout, "the launcher did not answer in time"};
  std::array<char, kMaxMessage> buf{};
  ssize_t n = ::recv(channel_.get(), buf.data(), buf.size(), 0);
  if (n <= 0) return Error{ErrorCode::SpawnFailed, "the launcher is gone"};
  std::string reply(buf.data(), static_cast<std::size_t>(n));
  if (reply.rfind("ok ", 0) == 0) return static_cast<pid_t>(std::stol(reply.substr(3)));
  return Error{ErrorCode::SpawnFailed, "launching signaltty-ptyhost: " + reply.substr(4)};
}

}  // namespace signaltty::broker
