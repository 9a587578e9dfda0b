// ptyhost/pty_spawn.hpp: starts the pane's program on a fresh PTY, and
// ChildProcess, the owner of that program's pid (signals and reaping).
// Runs in: ptyhost, once per pane, before the ptyhost confines itself.
// Never: runs the program through a shell, leaks an fd other than the slave
// (as 0-2) into the child, or lets the child inherit our signal handlers,
// signal mask or confinement.
//
// Usage:
//   if (probe_passes({"codex", "--no-daemon", "--version"}, env, cwd, 3s)) ...
//   SIGNALTTY_TRY(SpawnedPty pty, spawn_on_pty(spec));
//   // pty.master: non-blocking, close-on-exec; pty.child: the running program
//   pty.child.signal(SIGTERM, SignalTarget::Group);
//   if (auto status = pty.child.try_reap()) ...   // after SIGCHLD
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::ptyhost {

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in env's PATH unless it has a '/'
  std::vector<std::string> env;   // the complete environment, KEY=VALUE
  std::string cwd;
  int cols = 80;  // already clamped by the caller
  int rows = 24;
};

// How a reaped child ended: exactly one of the two is set.
struct ChildExit {
  std::optional<int> code;     // WEXITSTATUS
  std::optional<int> signo;    // WTERMSIG
};

enum class SignalTarget { Process, Group };

// Owns the pid of a child we forked. The pid is only signalled while it is
// not yet reaped, so a recycled pid can never be hit. The destructor does
// not kill: a ptyhost that exits early leaves its program to init, as a
// terminal emulator would.
class ChildProcess {
 public:
  ChildProcess() = default;
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() = default;

  pid_t pid() const { return pid_; }
  bool alive() const { return pid_ > 0 && !reaped_; }
  // kill(2) the child or its process group (the child leads its own session).
  Status signal(int signo, SignalTarget target) const;
  // waitpid(WNOHANG): the exit once the child has ended, nullopt while it runs.
  std::optional<ChildExit> try_reap();

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

struct SpawnedPty {
  UniqueFd master;  // O_NONBLOCK | O_CLOEXEC, set before the child started
  ChildProcess child;
};

// openpty at spec's size, fork with every signal blocked, and in the child:
// default signal dispositions and an empty mask, setsid, the slave as
// controlling tty on 0-2, every other fd closed, chdir(cwd), execve. Returns
// once the child has exec'd; a failure before or at exec is SPAWN_FAILED
// with details {errno, stage: "chdir"|"exec"|...} and the child reaped.
Result<SpawnedPty> spawn_on_pty(const SpawnSpec& spec);

// Runs `probe` (argv[0] looked up as the program's is) with `env` in
// `cwd`, leading a process group of its own, stdio on /dev/null. True when
// it exits 0 within `timeout`; past it the whole group is SIGKILLed, and
// the probe is reaped before this returns, whatever happened.
bool probe_passes(const std::vector<std::string>& probe, const std::vector<std::string>& env,
                  const std::string& cwd, std::chrono::milliseconds timeout);

// The abbreviation of a signal ("TERM", "KILL", "SEGV"), or its number.
std::string signal_abbrev(int signo);

}  // namespace signaltty::ptyhost
