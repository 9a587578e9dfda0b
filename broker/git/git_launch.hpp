// broker/git/git_launch.hpp: starting one signaltty-gitworker, on the
// launcher's side of the broker (docs/gitworker.md "Process").
//
// The broker names no program and no argv: it sends the directories the
// worker may read and write and the operation's deadline. The launcher
// starts the gitworker path it was given at fork time under a supervisor
// "sigtty-git" (broker/supervised_child.hpp) with those directories on its
// command line, an empty environment, cwd "/", in a process group of its
// own; the supervisor reports the worker's pid first, so the broker holds
// its pidfd and kills the group at the deadline itself. The supervisor's
// own deadline is later (kGitSupervisorGrace): it holds when the broker is
// gone.
//
// Runs in: the launcher (start_gitworker); the codec also in the broker.
// Never: passes a relative path, a path holding a newline, or more than
// kGitMaxDirs directories.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/supervised_child.hpp"
#include "common/errors.hpp"

namespace signaltty::broker {
struct LauncherConfig;
}

namespace signaltty::broker::git {

inline constexpr std::size_t kGitMaxDirs = 8;
inline constexpr std::size_t kGitMaxPath = 4096;
// The supervisor's deadline is the broker's plus this.
inline constexpr std::chrono::milliseconds kGitSupervisorGrace{2000};

struct GitLaunch {
  std::chrono::milliseconds deadline{0};
  std::vector<std::string> read_dirs;
  std::vector<std::string> write_dirs;
  bool operator==(const GitLaunch&) const = default;
};

// "<deadline_ms>\n" then one "r <dir>\n" or "w <dir>\n" per directory.
std::string encode_git_launch(const GitLaunch& launch);
std::optional<GitLaunch> decode_git_launch(std::string_view text);
// A directory the channel can carry: absolute, no newline or NUL, not over
// kGitMaxPath.
bool is_passable_dir(std::string_view dir);

// In the launcher: the gitworker started under its supervisor on `pipes`.
// The supervisor's pid, or why nothing was started.
Result<pid_t> start_gitworker(const LauncherConfig& config, const GitLaunch& launch,
                              ChildPipes pipes);

}  // namespace signaltty::broker::git
