// broker/launcher.cpp: the broker's client of the launcher: requests by id,
// replies matched to them as they arrive, each with its own deadline.
// Runs in: broker (io thread; nothing here blocks).
#include "broker/launcher.hpp"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include <boost/asio/post.hpp>

#include "broker/launcher_process.hpp"
#include "common/fd_passing.hpp"
#include "common/fs.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

// A reply is an id, "ok" or "err", a pid or an errno and a short reason.
constexpr std::size_t kMaxReplyBytes = 256;
constexpr std::size_t kExePathMax = 4096;

std::string sibling_program(std::string_view name) {
  std::array<char, kExePathMax> buf{};
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return std::string(name);
  return fs::join(fs::dirname(std::string(buf.data(), static_cast<std::size_t>(n))), name);
}

}  // namespace

std::string default_ptyhost_path() { return sibling_program("signaltty-ptyhost"); }
std::string default_gitworker_path() { return sibling_program("signaltty-gitworker"); }

Result<std::unique_ptr<Launcher>> Launcher::start(boost::asio::io_context& io,
                                                  const LauncherConfig& config) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return Error::from_errno(ErrorCode::IoError, "socketpair", errno);
  UniqueFd ours(sv[0]);
  SIGNALTTY_TRY(pid_t pid, fork_launcher(config, UniqueFd(sv[1])));
  return std::make_unique<Launcher>(io, std::move(ours), pid);
}

Launcher::Launcher(boost::asio::io_context& io, UniqueFd channel, pid_t launcher_pid)
    : io_(io), channel_(io, channel.release()), pid_(launcher_pid) {
  await_replies();
}

Launcher::~Launcher() {
  pending_.clear();
  boost::system::error_code ignored;
  channel_.close(ignored);  // EOF: the launcher exits
  if (pid_ <= 0) return;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void Launcher::launch(const std::string& pane_id, LaunchDone done) {
  const std::string request = encode_launch_request({next_id_, pane_id, std::nullopt});
  send_request(request, {}, "launching signaltty-ptyhost", std::move(done));
}

void Launcher::run_hook(const plugins::HookLaunch& hook, ChildPipes pipes,
                        LaunchDone done) {
  const std::string request = encode_launch_request({next_id_, {}, hook});
  std::array<int, kChildPipeCount> fds{};
  for (std::size_t i = 0; i < fds.size(); ++i) fds[i] = pipes[i].get();
  send_request(request, fds, "starting hook " + hook.plugin + "#" + std::to_string(hook.hook_index + 1),
               std::move(done));
}

void Launcher::run_git(const git::GitLaunch& launch, ChildPipes pipes, LaunchDone done) {
  LaunchRequest request{next_id_, {}, std::nullopt};
  request.git = launch;
  std::array<int, kChildPipeCount> fds{};
  for (std::size_t i = 0; i < fds.size(); ++i) fds[i] = pipes[i].get();
  send_request(encode_launch_request(request), fds, "starting signaltty-gitworker",
               std::move(done));
}

// `message` is the request numbered next_id_.
void Launcher::send_request(const std::string& message, std::span<const int> fds,
                            std::string what, LaunchDone done) {
  const std::uint64_t id = next_id_++;
  if (gone_) {
    Error e = gone_error();
    e.message = what + ": " + e.message;
    boost::asio::post(io_, [done = std::move(done), e = std::move(e)] { done(e); });
    return;
  }
  if (send_with_fds(channel_.native_handle(), message, fds, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
    Error e = Error::from_errno(ErrorCode::SpawnFailed, "send", errno, "launcher");
    e.message = what + ": " + e.message;
    boost::asio::post(io_, [done = std::move(done), e = std::move(e)] { done(e); });
    return;
  }
  auto deadline = std::make_unique<boost::asio::steady_timer>(io_, kLaunchTimeout);
  deadline->async_wait([this, id](const boost::system::error_code& ec) {
    if (!ec) finish(id, Error{ErrorCode::Timeout, "the launcher did not answer in time"});
  });
  pending_.emplace(id, Pending{std::move(done), std::move(what), std::move(deadline)});
  await_replies();
}

// Always reading, idle or not: a launcher that dies between requests is
// noticed (and logged) at once, not at the next pane, hook or git request.
void Launcher::await_replies() {
  if (reading_ || gone_) return;
  reading_ = true;
  channel_.async_wait(boost::asio::posix::descriptor_base::wait_read,
                      [this](const boost::system::error_code& ec) {
                        if (ec) return;  // closed: this launcher is going away
                        reading_ = false;
                        on_readable();
                      });
}

void Launcher::on_readable() {
  std::array<char, kMaxReplyBytes> buf{};
  for (;;) {
    const ssize_t n = ::recv(channel_.native_handle(), buf.data(), buf.size(), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) return lost();
    auto reply = decode_launch_reply(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    if (!reply) {
      log::warn("launcher: malformed reply dropped");
    } else if (!pending_.contains(reply->id)) {
      log::warn("launcher: reply to request " + std::to_string(reply->id) +
                ", which nobody waits for, dropped");
    } else {
      finish(reply->id, std::move(reply->outcome));
    }
  }
  await_replies();
}

void Launcher::finish(std::uint64_t id, Result<pid_t> outcome) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  LaunchDone done = std::move(it->second.done);
  if (!outcome.ok() && outcome.error().code == ErrorCode::SpawnFailed)
    outcome = Error{ErrorCode::SpawnFailed, it->second.what + ": " + outcome.error().message};
  pending_.erase(it);
  done(std::move(outcome));
}

void Launcher::lost() {
  gone_ = true;
  log::error("the launcher (pid " + std::to_string(pid_) +
             ") is gone: panes, plugin hooks and git requests cannot start until the broker "
             "restarts (running panes are not affected)");
  fail_all(gone_error());
}

Error Launcher::gone_error() {
  return Error{ErrorCode::SpawnFailed,
               "the launcher is gone; restart the broker to start panes, hooks or git workers"};
}

void Launcher::fail_all(const Error& error) {
  std::map<std::uint64_t, Pending> failed = std::move(pending_);
  pending_.clear();
  for (auto& [id, pending] : failed) pending.done(error);
}

}  // namespace signaltty::broker
