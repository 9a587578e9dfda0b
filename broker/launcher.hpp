// broker/launcher.hpp: the launcher, a tiny process forked from the broker
// at startup before the broker has threads or confines itself. On request
// over its socketpair it double-forks, starts a new session and execs
// signaltty-ptyhost with a clean environment, the user's umask and core
// limit, and only fds 0-2 (docs/architecture.md, "Who starts whom"). Panes thus never
// inherit the broker's confinement.
// Runs in: broker (the client half, on the io thread, never blocking it)
// and the launcher process (the loop).
// It also starts plugin hooks (broker/plugins/hook_launch.hpp), which it
// reads itself from the plugin dir fixed at fork time.
// Never: execs anything but the ptyhost path fixed at fork time or a hook of
// a plugin installed in that dir, or takes argv from the broker: a request
// is an id and a pane id, or an id and a hook's name, validated, nothing
// more.
//
// The channel is SOCK_SEQPACKET, one message per request or reply:
//   request  "<id> <pane_id>"
//            "<id> hook <plugin> <hook_index> <fingerprint> <event>"
//            with the hook's four pipes as SCM_RIGHTS
//            "<id> git <deadline_ms>\n<r|w> <dir>\n..." (broker/git/git_launch.hpp)
//            with the gitworker's four pipes as SCM_RIGHTS
//   reply    "<id> ok <pid>"  or  "<id> err <errno> <what>"
// (the pid of the ptyhost, or of the hook's supervisor).
// The broker matches each reply to its request by id; a reply to an id it
// does not wait for (one that timed out) is logged and dropped.
//
// Usage:
//   SIGNALTTY_TRY(auto launcher, Launcher::start(io, config));  // single-threaded still
//   launcher->launch(pane_id, [](Result<pid_t> ptyhost_pid) { ... });  // on the io thread
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/git/git_launch.hpp"
#include "broker/plugins/hook_launch.hpp"
#include "broker/supervised_child.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// The launcher answers within milliseconds (fork, exec); past this the
// launch fails with TIMEOUT.
inline constexpr std::chrono::milliseconds kLaunchTimeout{5000};

struct LauncherConfig {
  std::string ptyhost_path;  // absolute; next to signaltty-broker by default
  std::string panes_dir;     // $runtime/panes, handed to every ptyhost
  std::string broker_socket; // for ptyhosts to log against, and hooks' SIGNALTTY_SOCKET
  std::string plugin_dir;    // where hooks are read from; empty: no hooks
  UserProcessDefaults user_defaults;
  std::string gitworker_path;  // absolute; next to signaltty-broker by default
};

class Launcher {
 public:
  using LaunchDone = std::function<void(Result<pid_t> ptyhost_pid)>;

  // Forks the launcher. Call while the broker is still single-threaded.
  static Result<std::unique_ptr<Launcher>> start(boost::asio::io_context& io,
                                                 const LauncherConfig& config);
  // The client half over an already connected channel whose far end speaks
  // the launcher's messages (`launcher_pid` -1: no process to reap).
  Launcher(boost::asio::io_context& io, UniqueFd channel, pid_t launcher_pid);
  // Closes the channel (the launcher exits on EOF) and reaps the launcher.
  // Pending launches are dropped unanswered.
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Asks for a ptyhost for `pane_id`; `done` runs later on the io thread,
  // exactly once: its pid once it has exec'd, SPAWN_FAILED with the reason,
  // or TIMEOUT after kLaunchTimeout.
  void launch(const std::string& pane_id, LaunchDone done);
  // Asks for the hook `hook` on `pipes` (the ends the hook holds; the
  // launcher gets copies, these are closed on return); `done` as for
  // launch(), with the pid of the hook's supervisor.
  void run_hook(const plugins::HookLaunch& hook, ChildPipes pipes, LaunchDone done);
  // Asks for a gitworker on `pipes` (as for run_hook), allowed `launch`'s
  // directories; `done` as for launch(), with the pid of its supervisor.
  void run_git(const git::GitLaunch& launch, ChildPipes pipes, LaunchDone done);
  pid_t pid() const { return pid_; }

 private:
  struct Pending {
    LaunchDone done;
    std::string what;  // prefixes a failure: "launching signaltty-ptyhost"
    std::unique_ptr<boost::asio::steady_timer> deadline;
  };

  void send_request(const std::string& message, std::span<const int> fds, std::string what,
                    LaunchDone done);
  void await_replies();
  void on_readable();
  void finish(std::uint64_t id, Result<pid_t> outcome);
  void fail_all(const Error& error);
  void lost();
  static Error gone_error();

  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor channel_;
  pid_t pid_ = -1;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Pending> pending_;
  bool reading_ = false;
  bool gone_ = false;  // its channel reached EOF: nothing can be started any more
};

// The path of signaltty-ptyhost beside the running executable.
std::string default_ptyhost_path();
// The path of signaltty-gitworker beside the running executable.
std::string default_gitworker_path();

}  // namespace signaltty::broker
