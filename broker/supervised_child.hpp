// broker/supervised_child.hpp: a program the launcher starts under a
// supervisor of its own, for plugin hooks and gitworkers
// (docs/architecture.md "Who starts whom"):
//
//   launcher ─fork→ (exits) ─fork→ supervisor ─fork→ child
//
// The supervisor is nobody's child once its parent exits. It starts the
// child in a session and process group of its own, with stdin, stdout and
// stderr on pipes the broker made and passed with the request, waits for
// it, kills the whole group at the deadline, and writes how the child ended
// on a fourth pipe, the status pipe: optionally first "pid <child>\n" (so
// the broker can hold the child's pidfd), then one line. A broker that dies
// meanwhile changes none of this: the deadline still holds.
//
// Runs in: the launcher (start_supervised), the supervisor and, between
// fork and exec, the child. The status codec also runs in the broker.
// Never: lets the child inherit an fd but its three pipes, or outlive its
// deadline.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/resource.h>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// What the user's own processes get, recorded before the broker narrows
// itself (umask 077, no core files): every ptyhost, and so every pane
// program, starts with these rather than the broker's.
struct UserProcessDefaults {
  mode_t umask = 022;
  rlimit core_limit{0, 0};
};


// The pipe ends a child runs on, as passed to the launcher in this order.
enum ChildPipe : std::size_t { kChildStdin, kChildStdout, kChildStderr, kChildStatus, kChildPipeCount };
using ChildPipes = std::array<UniqueFd, kChildPipeCount>;

inline bool has_all_pipes(const ChildPipes& pipes) {
  for (const auto& pipe : pipes)
    if (!pipe) return false;
  return true;
}

// Everything the supervisor and the child need, prepared before the fork.
struct ChildSpec {
  std::string exe;                // absolute, or relative to `dir`
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // NAME=value
  std::string dir;                // the child's cwd
  std::chrono::milliseconds deadline{0};
  UserProcessDefaults defaults;
  const char* supervisor_name = "sigtty-sup";  // what ps shows (15 bytes at most)
  bool report_pid = false;        // write "pid <child>" before the end line
};

// In the launcher: `spec` started under its supervisor on `pipes`. The
// supervisor's pid, or why nothing was started.
Result<pid_t> start_supervised(ChildSpec spec, ChildPipes pipes);

// How a child ended, as its supervisor writes it on the status pipe.
struct ChildEnd {
  enum class Kind { Exited, Signaled, TimedOut, SpawnFailed };
  Kind kind = Kind::Exited;
  int value = 0;     // exit status, signal number, deadline in seconds, or errno
  std::string what;  // SpawnFailed: the step that failed ("execve ./x")
  bool operator==(const ChildEnd&) const = default;
};
std::string encode_child_end(const ChildEnd& end);
std::optional<ChildEnd> decode_child_end(std::string_view text);

// What the status pipe carried: the child's pid when reported, and the end
// line when there was one (a supervisor killed first leaves none).
struct StatusReport {
  std::optional<pid_t> child_pid;
  std::optional<ChildEnd> end;
};
StatusReport decode_status_report(std::string_view text);

}  // namespace signaltty::broker
