// gitworker/worktree_op.cpp: worktree_list, worktree_add and
// worktree_remove: the checkouts of one repository, as `git worktree
// list / add -b / remove` manage them.
// Runs in: gitworker. Never: removes the main checkout, a locked or dirty
// checkout, or one with submodules; deletes a branch it did not just
// create; follows a symlink out of a checkout it removes.
//
// A linked worktree is known by its registration in the common dir
// (.git/worktrees/<name>: "gitdir" names its checkout), never by the .git
// file inside the checkout, which the checkout's content could rewrite.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"

namespace signaltty::gitworker {
namespace {

// ---- names and paths ------------------------------------------------------

std::string trimmed(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// realpath() when the path resolves, else the path as given (a
// registration whose checkout is gone still compares by its name).
std::string canonical(const std::string& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) return resolved;
  return trimmed(path);
}

bool exists_no_follow(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// An absolute path with no empty, "." or ".." component (one trailing '/'
// is dropped).
Result<std::string> clean_absolute(const std::string& raw) {
  std::string path = trimmed(raw);
  if (path.size() < 2 || path.front() != '/') return bad_params("path must be an absolute path");
  for (std::size_t start = 1; start <= path.size();) {
    const auto end = std::min(path.find('/', start), path.size());
    const std::string_view part(path.data() + start, end - start);
    if (part.empty() || part == "." || part == "..")
      return bad_params("path must not have empty, '.' or '..' components: " + raw);
    start = end + 1;
  }
  return path;
}

// A new checkout's directory: absent, in an existing directory.
Result<std::string> check_new_checkout_path(const std::string& raw) {
  SIGNALTTY_TRY(std::string path, clean_absolute(raw));
  if (exists_no_follow(path)) return bad_params(path + " already exists");
  const std::string parent = path.substr(0, std::max<std::size_t>(path.rfind('/'), 1));
  struct stat st {};
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return bad_params("the directory " + parent + " does not exist");
  return path;
}

// `git branch <name>` would accept it, and it cannot be read as an option,
// a full ref name or a reflog selector.
Status check_branch_name(const std::string& name) {
  if (name.empty() || name.front() == '-' || name.rfind("refs/", 0) == 0 ||
      name.find("@{") != std::string::npos || name == "HEAD" || name == "@")
    return bad_params("invalid branch name '" + name + "'");
  int valid = 0;
  if (git_reference_name_is_valid(&valid, ("refs/heads/" + name).c_str()) < 0 || valid == 0)
    return bad_params("invalid branch name '" + name + "'");
  return {};
}

std::string common_dir(git_repository* repo) { return trimmed(git_repository_commondir(repo)); }

bool is_within(const std::string& path, const std::string& dir) {
  return path == dir || path.rfind(dir + "/", 0) == 0;
}

// A checkout inside .git would write files among refs and objects.
Status check_outside_git_dirs(git_repository* repo, const std::string& path) {
  const std::string parent = canonical(path.substr(0, std::max<std::size_t>(path.rfind('/'), 1)));
  for (const std::string& dir : {common_dir(repo), trimmed(git_repository_path(repo))})
    if (is_within(parent, canonical(dir))) return bad_params(path + " is inside " + dir);
  return {};
}

// The registration name for a checkout at `path`: its basename with
// anything but [A-Za-z0-9._-] as '-', no leading '.'; "-2", "-3"... when
// .git/worktrees/<name> is taken.
Result<std::string> free_admin_name(git_repository* repo, const std::string& path) {
  std::string base;
  for (const char c : basename_of(path)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    base += plain ? c : '-';
  }
  while (!base.empty() && base.front() == '.') base.erase(0, 1);
  if (base.empty()) base = "worktree";
  const std::string dir = common_dir(repo) + "/worktrees/";
  std::string name = base;
  for (int n = 2; exists_no_follow(dir + name); ++n) {
    if (n > 1000) return Error{ErrorCode::IoError, "no free worktree name for " + base};
    name = base + "-" + std::to_string(n);
  }
  return name;
}

// ---- the registrations ------------------------------------------------------

// The repository as seen from a linked worktree's registration.
Result<Repo> open_registration(git_repository* repo, const char* name) {
  const std::string admin = common_dir(repo) + "/worktrees/" + name;
  Repo linked;
  if (git_repository_open_ext(out(linked), admin.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) <
      0)
    return git_failure(std::string("opening worktree ") + name);
  return linked;
}

// The repository of the main checkout (the common dir's).
Result<Repo> open_main(git_repository* repo) {
  const std::string common = common_dir(repo);
  Repo main;
  if (git_repository_open_ext(out(main), common.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) <
      0)
    return git_failure("opening the main repository");
  return main;
}

void fill_head(git_repository* repo, gw::WorktreeInfo& entry) {
  if (git_repository_head_detached(repo) != 1) entry.branch = head_branch(repo);
  entry.head = head_commit(repo);
}

struct Names {
  git_strarray list{};
  ~Names() { git_strarray_dispose(&list); }
};

gw::WorktreeInfo linked_entry(git_repository* repo, git_worktree* wt) {
  gw::WorktreeInfo entry;
  entry.path = trimmed(git_worktree_path(wt));
  entry.locked = git_worktree_is_locked(nullptr, wt) > 0;
  entry.prunable = git_worktree_validate(wt) != 0;
  auto linked = open_registration(repo, git_worktree_name(wt));
  if (linked.ok()) fill_head(linked->get(), entry);
  return entry;
}

// The registered linked worktree whose checkout is `target` (canonical).
Result<GitPtr<git_worktree>> find_linked(git_repository* repo, const std::string& target) {
  Names names;
  if (git_worktree_list(&names.list, repo) < 0) return git_failure("listing worktrees");
  for (std::size_t i = 0; i < names.list.count; ++i) {
    GitPtr<git_worktree> wt;
    if (git_worktree_lookup(out(wt), repo, names.list.strings[i]) < 0) continue;
    if (canonical(git_worktree_path(wt.get())) == target) return wt;
  }
  return bad_params(target + " is not a linked worktree of this repository");
}

// ---- removal checks ---------------------------------------------------------

// As git refuses: a submodule's repository may live in the registration
// (modules/), and removing the checkout would lose it.
Result<bool> has_submodules(git_repository* linked) {
  if (exists_no_follow(trimmed(git_repository_path(linked)) + "/modules")) return true;
  GitPtr<git_index> index;
  if (git_repository_index(out(index), linked) < 0) return git_failure("reading its index");
  const std::size_t n = git_index_entrycount(index.get());
  for (std::size_t i = 0; i < n; ++i)
    if (git_index_get_byindex(index.get(), i)->mode == GIT_FILEMODE_COMMIT) return true;
  return false;
}

Status check_removable(git_repository* repo, git_worktree* wt, const std::string& path) {
  if (git_worktree_is_locked(nullptr, wt) > 0) return bad_params(path + " is locked");
  if (!exists_no_follow(path)) return {};  // only the registration is left
  // Without it libgit2 would drop the registration and leave the files.
  if (!exists_no_follow(path + "/.git")) return bad_params(path + " has no .git file");
  const std::string admin = common_dir(repo) + "/worktrees/" + git_worktree_name(wt);
  gw::Request probe;
  probe.repo = admin;
  SIGNALTTY_TRY(gw::StatusResult status, repo_status(probe));
  if (!status.root || canonical(*status.root) != canonical(path))
    return bad_params(path + " is not the checkout its registration names");
  if (status.dirty.value_or(true))
    return bad_params(path + " has uncommitted changes or untracked files");
  SIGNALTTY_TRY(Repo linked, open_registration(repo, git_worktree_name(wt)));
  SIGNALTTY_TRY(bool submodules, has_submodules(linked.get()));
  if (submodules) return bad_params(path + " contains submodules");
  return {};
}

}  // namespace

Result<gw::WorktreeListResult> worktree_list(const gw::Request& request) {
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  gw::WorktreeListResult result;
  gw::WorktreeInfo main;
  main.path = main_workdir(repo.get());
  main.main = true;
  if (auto main_repo = open_main(repo.get()); main_repo.ok()) fill_head(main_repo->get(), main);
  result.worktrees.push_back(std::move(main));
  Names names;
  if (git_worktree_list(&names.list, repo.get()) < 0) return git_failure("listing worktrees");
  for (std::size_t i = 0; i < names.list.count; ++i) {
    GitPtr<git_worktree> wt;
    if (git_worktree_lookup(out(wt), repo.get(), names.list.strings[i]) < 0) continue;
    result.worktrees.push_back(linked_entry(repo.get(), wt.get()));
  }
  // git lists the linked ones by path, after the main one.
  std::sort(result.worktrees.begin() + 1, result.worktrees.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return result;
}

Result<gw::PathResult> worktree_add(const gw::Request& request) {
  SIGNALTTY_TRY(std::string path, check_new_checkout_path(*request.path));
  const std::string& branch = *request.branch;
  SIGNALTTY_RETURN_IF_ERROR(check_branch_name(branch));
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  GitPtr<git_reference> existing;
  if (git_branch_lookup(out(existing), repo.get(), branch.c_str(), GIT_BRANCH_LOCAL) == 0)
    return bad_params("branch '" + branch + "' already exists");
  GitPtr<git_reference> head;
  GitPtr<git_object> commit;
  if (git_repository_head(out(head), repo.get()) < 0)
    return bad_params("no commit to branch from: HEAD has none");
  if (git_reference_peel(out(commit), head.get(), GIT_OBJECT_COMMIT) < 0)
    return git_failure("reading HEAD's commit");
  SIGNALTTY_RETURN_IF_ERROR(check_outside_git_dirs(repo.get(), path));
  SIGNALTTY_TRY(std::string name, free_admin_name(repo.get(), path));
  GitPtr<git_reference> ref;
  if (git_branch_create(out(ref), repo.get(), branch.c_str(),
                        reinterpret_cast<git_commit*>(commit.get()), 0) < 0)
    return git_failure("creating branch " + branch);
  git_worktree_add_options opts = GIT_WORKTREE_ADD_OPTIONS_INIT;
  opts.ref = ref.get();
  GitPtr<git_worktree> wt;
  if (git_worktree_add(out(wt), repo.get(), name.c_str(), path.c_str(), &opts) < 0) {
    Error error = git_failure("adding worktree " + path);
    // Everything this call made is taken back, as git's own `worktree add`
    // does: a checkout that failed half way (a tree entry git refuses to
    // write) leaves no directory, registration or branch. The path did not
    // exist before (check_new_checkout_path), so removing it removes ours.
    GitPtr<git_worktree> registered;
    if (git_worktree_lookup(out(registered), repo.get(), name.c_str()) == 0) {
      git_worktree_prune_options prune = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
      prune.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE |
                    GIT_WORKTREE_PRUNE_LOCKED;
      if (git_worktree_prune(registered.get(), &prune) < 0 || exists_no_follow(path))
        error.message += "; the partial checkout at " + path + " could not be removed";
    }
    git_branch_delete(ref.get());
    return error;
  }
  return gw::PathResult{trimmed(git_worktree_path(wt.get()))};
}

Result<gw::PathResult> worktree_remove(const gw::Request& request) {
  SIGNALTTY_TRY(std::string requested, clean_absolute(*request.path));
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  const std::string target = canonical(requested);
  if (target == canonical(main_workdir(repo.get())))
    return bad_params(requested + " is the main checkout");
  SIGNALTTY_TRY(GitPtr<git_worktree> wt, find_linked(repo.get(), target));
  const std::string path = trimmed(git_worktree_path(wt.get()));
  SIGNALTTY_RETURN_IF_ERROR(check_removable(repo.get(), wt.get(), path));
  // libgit2 removes the registration, then the checkout: lstat before each
  // entry, symlinks unlinked and never followed.
  git_worktree_prune_options opts = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
  opts.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE;
  if (git_worktree_prune(wt.get(), &opts) < 0) return git_failure("removing worktree " + path);
  if (exists_no_follow(path))
    return Error{ErrorCode::IoError, "worktree " + path + " is unregistered but still on disk"};
  return gw::PathResult{path};
}

}  // namespace signaltty::gitworker
