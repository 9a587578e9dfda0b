// cli/signal_pipe.hpp: SignalPipe, the self-pipe that turns signals into
// readable bytes, so the attach loop's poll() sees SIGWINCH, SIGTERM,
// SIGHUP and friends like any other input.
// Runs in: CLI. Never: does work in the handler beyond one write(2); only
// one SignalPipe exists at a time (the handler finds it through a
// process-wide slot, the one global a signal handler cannot do without).
//
// Usage:
//   SIGNALTTY_TRY(auto signals, SignalPipe::install({SIGWINCH, SIGTERM}));
//   poll({signals->read_fd(), POLLIN}, ...);
//   for (int sig : signals->drain()) ...;
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include <signal.h>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::cli {

class SignalPipe {
 public:
  // Catches `signals` until destruction, which puts back the dispositions
  // found at install. Fails if another SignalPipe is installed.
  static Result<std::unique_ptr<SignalPipe>> install(std::initializer_list<int> signals);
  struct Token {};  // install() is the only way in
  explicit SignalPipe(Token) {}
  ~SignalPipe();
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  int read_fd() const { return read_end_.get(); }
  // The signals caught since the last drain, in arrival order (repeats of
  // one signal may be merged when the pipe was full).
  std::vector<int> drain();

 private:
  struct Saved {
    int signal;
    struct sigaction action;
  };
  UniqueFd read_end_;
  UniqueFd write_end_;
  std::vector<Saved> saved_;
};

}  // namespace signaltty::cli
