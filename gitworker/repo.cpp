// gitworker/repo.cpp: libgit2 set up for a sandboxed worker; opening the
// repository of a checkout.
// Runs in: gitworker.
#include "gitworker/repo.hpp"

namespace signaltty::gitworker {

void init_libgit2() {
  static const bool done = [] {
    git_libgit2_init();
    // Only the repository's own config: the user's and the system's are
    // outside what the sandbox may read, and a missing-but-denied file would
    // otherwise be an error on every call.
    for (int level : {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_GLOBAL,
                      GIT_CONFIG_LEVEL_PROGRAMDATA})
      git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, "");
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 1);
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
    // Pack windows stay well inside the worker's address-space limit.
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, static_cast<size_t>(256) << 20);
    // Open pack files stay well inside the worker's 256 open files: a
    // repository with hundreds of packs is read a window at a time.
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_FILE_LIMIT, static_cast<unsigned int>(128));
    return true;
  }();
  (void)done;
}

Error git_failure(std::string_view what) {
  const git_error* e = git_error_last();
  std::string message(what);
  if (e != nullptr && e->message != nullptr) message += std::string(": ") + e->message;
  return Error{ErrorCode::IoError, std::move(message)};
}

Result<Repo> open_repo(const std::string& path) {
  Repo repo;
  const int rc = git_repository_open_ext(out(repo), path.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND) return Error{ErrorCode::BadParams, path + " is not in a Git repository"};
  if (rc < 0) return git_failure("opening the repository at " + path);
  if (git_repository_is_bare(repo.get()))
    return Error{ErrorCode::BadParams, path + " is a bare repository, not a checkout"};
  return repo;
}

std::string workdir_of(git_repository* repo) {
  std::string dir = git_repository_workdir(repo) != nullptr ? git_repository_workdir(repo) : "";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::optional<std::string> head_branch(git_repository* repo) {
  GitPtr<git_reference> head;
  if (git_reference_lookup(out(head), repo, "HEAD") < 0) return std::nullopt;
  if (git_reference_type(head.get()) != GIT_REFERENCE_SYMBOLIC) return std::nullopt;
  std::string_view target = git_reference_symbolic_target(head.get());
  constexpr std::string_view kHeads = "refs/heads/";
  if (target.substr(0, kHeads.size()) == kHeads) target.remove_prefix(kHeads.size());
  return std::string(target);
}

std::optional<std::string> head_commit(git_repository* repo) {
  GitPtr<git_reference> head;
  if (git_repository_head(out(head), repo) < 0) return std::nullopt;
  GitPtr<git_object> commit;
  if (git_reference_peel(out(commit), head.get(), GIT_OBJECT_COMMIT) < 0) return std::nullopt;
  return std::string(git_oid_tostr_s(git_object_id(commit.get())));
}

std::string main_workdir(git_repository* repo) {
  if (!git_repository_is_worktree(repo)) return workdir_of(repo);
  std::string common = git_repository_commondir(repo);
  while (common.size() > 1 && common.back() == '/') common.pop_back();
  Repo main;
  const int rc =
      git_repository_open_ext(out(main), common.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc == 0 && !git_repository_is_bare(main.get())) return workdir_of(main.get());
  // A bare main repository (or one that cannot be opened): git prints the
  // common dir, "/.git" dropped.
  constexpr std::string_view kDotGit = "/.git";
  if (common.size() > kDotGit.size() && common.ends_with(kDotGit))
    common.resize(common.size() - kDotGit.size());
  return common;
}

}  // namespace signaltty::gitworker
