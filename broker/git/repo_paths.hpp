// broker/git/repo_paths.hpp: which directories a gitworker needs for a
// checkout, found without reading the repository: the checkout's top
// directory, its git dir and the common dir it shares with its other
// worktrees. The broker hands exactly these to the worker's sandbox.
// Discovery walks up from a directory, as git does, looking at `.git`
// entries only: a directory, or a file "gitdir: <path>" (a linked
// worktree), whose `commondir` file names the shared dir. It reads at most
// two files of kRepoPointerMax bytes and never crosses a filesystem.
// Runs in: broker (io thread: a few stat calls and tiny reads).
// Never: opens an object, the index or a config file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/errors.hpp"

namespace signaltty::broker::git {

inline constexpr std::size_t kRepoPointerMax = 4096;

struct RepoPaths {
  std::string root;        // the checkout's top directory, canonical
  std::string git_dir;     // <root>/.git, or where its .git file points
  std::string common_dir;  // git_dir, or where its `commondir` points
  bool operator==(const RepoPaths&) const = default;
};

// nullopt: `dir` is in no checkout. IO_ERROR when a `.git` file or
// `commondir` is malformed or points nowhere; BAD_PARAMS when `dir` is not
// a directory.
Result<std::optional<RepoPaths>> find_repo(const std::string& dir);

// The canonical form of `path` (symlinks resolved), or nullopt.
std::optional<std::string> canonical(const std::string& path);

// Whether `path` is `dir` or inside it, comparing whole components.
bool path_within(std::string_view path, std::string_view dir);

}  // namespace signaltty::broker::git
