// gitworker/status_op.cpp: repo_status, what a workspace shows of its
// checkout: top directory, repository name, branch or detached HEAD, head
// commit and whether anything is uncommitted.
// Runs in: gitworker. Never: writes anything (status runs without
// GIT_STATUS_OPT_UPDATE_INDEX, so the index file is not refreshed).
//
// Dirty means what `git status` would list: a staged or unstaged change to
// a tracked file, or an untracked file that is not ignored. Submodules
// count (they are not excluded): a submodule whose commit moved, or whose
// checkout has changes or untracked files, makes its parent dirty, as
// `git status` reports "modified: sub (new commits)".
#include <string>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"

namespace signaltty::gitworker {
namespace {

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Any entry git status would show. Untracked directories are not recursed
// into: one entry is enough, and libgit2 still leaves out a directory
// holding only ignored files.
Result<bool> has_changes(git_repository* repo) {
  git_status_options opts = GIT_STATUS_OPTIONS_INIT;
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED;
  GitPtr<git_status_list> list;
  if (git_status_list_new(out(list), repo, &opts) < 0) return git_failure("reading the status");
  return git_status_list_entrycount(list.get()) > 0;
}

}  // namespace

Result<gw::StatusResult> repo_status(const gw::Request& request) {
  // Only "in no repository at all" is a plain answer; a bare repository
  // and an unreadable one stay errors (open_repo).
  if (git_repository_open_ext(nullptr, request.repo.c_str(), 0, nullptr) == GIT_ENOTFOUND)
    return gw::StatusResult{};
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  gw::StatusResult result;
  result.root = workdir_of(repo.get());
  result.name = basename_of(main_workdir(repo.get()));
  result.detached = git_repository_head_detached(repo.get()) == 1;
  if (!result.detached) result.branch = head_branch(repo.get());
  result.head = head_commit(repo.get());
  SIGNALTTY_TRY(result.dirty, has_changes(repo.get()));
  return result;
}

}  // namespace signaltty::gitworker
