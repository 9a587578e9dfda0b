// broker/launcher.hpp: the launcher, a tiny process forked from the broker
// at startup before the broker has threads or confines itself. On request
// over its socketpair it double-forks, starts a new session and execs
// signaltty-ptyhost with a clean environment and only fds 0-2 (docs/rules.md,
// "Who starts whom"). Panes thus never inherit the broker's confinement.
// Runs in: broker (the client half) and the launcher process (the loop).
// Never: execs anything but the ptyhost path fixed at fork time, or takes
// argv from the broker: a request is a pane id, validated, nothing more.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

struct LauncherConfig {
  std::string ptyhost_path;  // absolute; next to signaltty-broker by default
  std::string panes_dir;     // $runtime/panes, handed to every ptyhost
  std::string broker_socket; // for ptyhosts to log against; never trusted
};

class Launcher {
 public:
  // Forks the launcher. Call while the broker is still single-threaded.
  static Result<Launcher> start(const LauncherConfig& config);
  Launcher(Launcher&&) noexcept = default;
  Launcher& operator=(Launcher&&) noexcept = default;
  ~Launcher();

  // Starts a ptyhost for `pane_id` and returns its pid once it has exec'd
  // (SPAWN_FAILED with the reason otherwise). Blocking, bounded: the
  // launcher answers within milliseconds or the call fails with TIMEOUT.
  Result<pid_t> launch(const std::string& pane_id);
  pid_t pid() const { return pid_; }

 private:
  Launcher(UniqueFd channel, pid_t pid) : channel_(std::move(channel)), pid_(pid) {}
  UniqueFd channel_;
  pid_t pid_ = -1;
};

// The path of signaltty-ptyhost beside the running executable.
std::string default_ptyhost_path();

}  // namespace signaltty::broker
