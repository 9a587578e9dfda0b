// gitworker/repo.hpp: what every gitworker operation shares: libgit2 set
// up once for a sandboxed process, owning handles for its objects, and its
// errors as ours.
// Runs in: gitworker (and its tests, in-process). Never: reads a global or
// system Git configuration, runs a filter, hook or external program.
//
// Usage:
//   init_libgit2();                                  // once, before any call
//   SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
//   GitPtr<git_reference> head;
//   if (int rc = git_repository_head(out(head), repo.get()); rc < 0)
//     return git_failure("reading HEAD");
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <git2.h>

#include "common/errors.hpp"

namespace signaltty::gitworker {

// An owning libgit2 pointer: GitPtr<git_tree> frees with git_tree_free.
template <class T>
struct GitFree;
#define SIGNALTTY_GIT_FREE(type, fn) \
  template <>                        \
  struct GitFree<type> {             \
    void operator()(type* p) const { fn(p); } \
  }
SIGNALTTY_GIT_FREE(git_repository, git_repository_free);
SIGNALTTY_GIT_FREE(git_reference, git_reference_free);
SIGNALTTY_GIT_FREE(git_object, git_object_free);
SIGNALTTY_GIT_FREE(git_commit, git_commit_free);
SIGNALTTY_GIT_FREE(git_tree, git_tree_free);
SIGNALTTY_GIT_FREE(git_blob, git_blob_free);
SIGNALTTY_GIT_FREE(git_index, git_index_free);
SIGNALTTY_GIT_FREE(git_diff, git_diff_free);
SIGNALTTY_GIT_FREE(git_patch, git_patch_free);
SIGNALTTY_GIT_FREE(git_status_list, git_status_list_free);
SIGNALTTY_GIT_FREE(git_worktree, git_worktree_free);
SIGNALTTY_GIT_FREE(git_config, git_config_free);
SIGNALTTY_GIT_FREE(git_odb, git_odb_free);
SIGNALTTY_GIT_FREE(git_signature, git_signature_free);
#undef SIGNALTTY_GIT_FREE

template <class T>
using GitPtr = std::unique_ptr<T, GitFree<T>>;

// For libgit2's out-parameters: git_x_lookup(out(ptr), ...).
template <class T>
class OutPtr {
 public:
  explicit OutPtr(GitPtr<T>& owner) : owner_(owner) {}
  ~OutPtr() { owner_.reset(raw_); }
  OutPtr(const OutPtr&) = delete;
  OutPtr& operator=(const OutPtr&) = delete;
  operator T**() { return &raw_; }  // NOLINT: the point of the class
 private:
  GitPtr<T>& owner_;
  T* raw_ = nullptr;
};
template <class T>
OutPtr<T> out(GitPtr<T>& owner) {
  return OutPtr<T>(owner);
}

using Repo = GitPtr<git_repository>;

// Once per process: libgit2 initialised, no global/XDG/system config
// searched (only the repository's own), strict object creation, owner
// validation on, no mmap window over the address-space limit.
void init_libgit2();

// IO_ERROR "<what>: <libgit2's last error>".
Error git_failure(std::string_view what);

// The repository whose checkout is `path` (a directory in it: discovery
// walks up, as git does, but never across a filesystem boundary).
// BAD_PARAMS when `path` is in no repository, IO_ERROR when it cannot be
// read. A bare repository is BAD_PARAMS: a workspace is a checkout.
Result<Repo> open_repo(const std::string& path);

// The checkout's top directory, without a trailing '/'.
std::string workdir_of(git_repository* repo);

// The short name of the branch HEAD names ("main" for refs/heads/main),
// also on a branch without commits yet; nullopt when HEAD is detached or
// cannot be read. For a linked worktree: that worktree's HEAD.
std::optional<std::string> head_branch(git_repository* repo);

// The id (hex) of the commit HEAD resolves to; nullopt before the first
// commit or when HEAD cannot be resolved to a commit.
std::optional<std::string> head_commit(git_repository* repo);

// The main checkout's top directory: workdir_of(repo), or for a linked
// worktree its repository's main checkout (the common dir's, as `git
// worktree list` prints it first). Without a trailing '/'.
std::string main_workdir(git_repository* repo);

}  // namespace signaltty::gitworker
