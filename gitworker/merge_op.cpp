// gitworker/merge_op.cpp: merge_preview, merge and merge_restore
// (docs/gitworker.md "Merge"): a commit merged into the branch a checkout
// has checked out, as `git merge --no-edit <commit>` would, and the
// checkout put back when a merge was interrupted.
// Runs in: gitworker. Never: leaves a conflicted checkout (the merge is
// computed in memory first; conflicts touch nothing), runs a hook or merge
// driver, overwrites a file the checkout does not track, or moves the
// branch unless it still points where the caller saw it.
//
// A merge that writes leaves a marker in the checkout's own git dir
// (kMarkerName: the commit it started from and the tree it is writing)
// from just before the checkout is written until the branch has moved.
// merge_restore reads it: no marker means nothing was written; a marker
// means the branch goes back to the recorded commit and every path the
// merge changes is checked out again as that commit has it.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/fs.hpp"
#include "common/unique_fd.hpp"
#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"

namespace signaltty::gitworker {
namespace {

constexpr const char* kMarkerName = "SIGNALTTY_MERGE";

std::string hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

Result<git_oid> parse_commit_id(const std::optional<std::string>& id, std::string_view field) {
  git_oid oid;
  if (!id || id->size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, id->c_str()) < 0)
    return bad_params(std::string(field) + " must be a full commit id");
  return oid;
}

Result<GitPtr<git_commit>> lookup_commit(git_repository* repo, const git_oid& oid) {
  GitPtr<git_commit> commit;
  if (git_commit_lookup(out(commit), repo, &oid) < 0)
    return bad_params("no commit " + hex(&oid) + " in this repository");
  return commit;
}

Result<GitPtr<git_tree>> tree_of(git_commit* commit) {
  GitPtr<git_tree> tree;
  if (git_commit_tree(out(tree), commit) < 0) return git_failure("reading a commit's tree");
  return tree;
}

// ---- the target: the branch the checkout has checked out ------------------

struct Target {
  GitPtr<git_reference> ref;  // refs/heads/<branch>
  std::string branch;         // short name
  git_oid head{};
};

Result<Target> read_target(git_repository* repo) {
  if (git_repository_head_unborn(repo) == 1)
    return bad_params("the target branch has no commit yet");
  if (git_repository_head_detached(repo) == 1)
    return bad_params("the target checkout is on a detached HEAD, not a branch");
  Target target;
  GitPtr<git_reference> head;
  if (git_repository_head(out(head), repo) < 0) return git_failure("reading HEAD");
  if (git_reference_resolve(out(target.ref), head.get()) < 0) return git_failure("resolving HEAD");
  target.branch = head_branch(repo).value_or(git_reference_name(target.ref.get()));
  target.head = *git_reference_target(target.ref.get());
  return target;
}

Status check_expected(const Target& target, const std::optional<std::string>& expect_head) {
  SIGNALTTY_TRY(git_oid expected, parse_commit_id(expect_head, "expect_head"));
  if (git_oid_cmp(&expected, &target.head) != 0)
    return bad_params("the target moved: " + target.branch + " is at " + hex(&target.head) +
                      ", not " + hex(&expected));
  return {};
}

// Tracked paths with staged or unstaged changes (untracked files do not
// stop a merge; the checkout refuses to overwrite one).
Result<std::vector<std::string>> tracked_changes(git_repository* repo) {
  git_status_options opts = GIT_STATUS_OPTIONS_INIT;
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = 0;
  GitPtr<git_status_list> list;
  if (git_status_list_new(out(list), repo, &opts) < 0) return git_failure("reading the status");
  std::vector<std::string> paths;
  const std::size_t n = git_status_list_entrycount(list.get());
  for (std::size_t i = 0; i < n; ++i) {
    const git_status_entry* entry = git_status_byindex(list.get(), i);
    const git_diff_delta* delta = entry->index_to_workdir ? entry->index_to_workdir
                                                          : entry->head_to_index;
    if (delta != nullptr) paths.emplace_back(delta->new_file.path ? delta->new_file.path
                                                                  : delta->old_file.path);
  }
  return paths;
}

std::string listed(const std::vector<std::string>& paths) {
  std::string text;
  for (std::size_t i = 0; i < paths.size() && i < 5; ++i) text += (i ? ", " : "") + paths[i];
  if (paths.size() > 5) text += ", ... (" + std::to_string(paths.size()) + " in all)";
  return text;
}

// ---- the merge, in memory ----------------------------------------------------

enum class Kind { UpToDate, FastForward, Merge };

struct Plan {
  Kind kind = Kind::UpToDate;
  GitPtr<git_tree> tree;                // the result (not for UpToDate)
  std::vector<std::string> conflicted;  // sorted; a Merge with conflicts has no tree
};

Result<std::vector<std::string>> conflicted_paths(git_index* index) {
  std::vector<std::string> paths;
  git_index_conflict_iterator* raw = nullptr;
  if (git_index_conflict_iterator_new(&raw, index) < 0) return git_failure("listing conflicts");
  const git_index_entry *ancestor = nullptr, *ours = nullptr, *theirs = nullptr;
  while (git_index_conflict_next(&ancestor, &ours, &theirs, raw) == 0) {
    const git_index_entry* any = ours ? ours : theirs ? theirs : ancestor;
    if (any != nullptr) paths.emplace_back(any->path);
  }
  git_index_conflict_iterator_free(raw);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

// As `git merge`: no merge base is "unrelated histories", refused; the
// default merge options (rename detection on, no merge drivers: the
// worker runs no program).
Result<Plan> plan_merge(git_repository* repo, git_commit* ours, git_commit* theirs) {
  Plan plan;
  git_oid base;
  const int found = git_merge_base(&base, repo, git_commit_id(ours), git_commit_id(theirs));
  if (found == GIT_ENOTFOUND) return Error{ErrorCode::IoError, "refusing to merge unrelated histories"};
  if (found < 0) return git_failure("finding the merge base");
  if (git_oid_cmp(&base, git_commit_id(theirs)) == 0) return plan;  // already contained
  if (git_oid_cmp(&base, git_commit_id(ours)) == 0) {
    plan.kind = Kind::FastForward;
    SIGNALTTY_TRY(plan.tree, tree_of(theirs));
    return plan;
  }
  plan.kind = Kind::Merge;
  git_merge_options opts = GIT_MERGE_OPTIONS_INIT;
  GitPtr<git_index> index;
  if (git_merge_commits(out(index), repo, ours, theirs, &opts) < 0) return git_failure("merging");
  if (git_index_has_conflicts(index.get())) {
    SIGNALTTY_TRY(plan.conflicted, conflicted_paths(index.get()));
    return plan;
  }
  git_oid tree_id;
  if (git_index_write_tree_to(&tree_id, index.get(), repo) < 0)
    return git_failure("writing the merged tree");
  if (git_tree_lookup(out(plan.tree), repo, &tree_id) < 0) return git_failure("reading the merged tree");
  return plan;
}

// Every path whose entry differs between `a` and `b`, both sides' names.
Result<std::vector<std::string>> changed_paths(git_repository* repo, git_tree* a, git_tree* b) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  GitPtr<git_diff> diff;
  if (git_diff_tree_to_tree(out(diff), repo, a, b, &opts) < 0) return git_failure("comparing trees");
  std::vector<std::string> paths;
  const std::size_t n = git_diff_num_deltas(diff.get());
  for (std::size_t i = 0; i < n; ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    paths.emplace_back(delta->old_file.path);
    if (std::strcmp(delta->old_file.path, delta->new_file.path) != 0)
      paths.emplace_back(delta->new_file.path);
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

// No file may stand where the merge adds one: an untracked or ignored
// file at an added path (or a file where an added path needs a directory)
// is refused before anything is written, as `git merge` refuses. This also
// lets a restore remove what stands at an added path: the merge put it there.
Status check_nothing_in_the_way(git_repository* repo, git_tree* orig, git_tree* result) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  GitPtr<git_diff> diff;
  if (git_diff_tree_to_tree(out(diff), repo, orig, result, &opts) < 0)
    return git_failure("comparing trees");
  const std::string root = workdir_of(repo) + "/";
  std::vector<std::string> blocked;
  const std::size_t n = git_diff_num_deltas(diff.get());
  for (std::size_t i = 0; i < n; ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    if (delta->status != GIT_DELTA_ADDED) continue;
    struct stat st {};
    const std::string path = root + delta->new_file.path;
    if (::lstat(path.c_str(), &st) == 0 || errno == ENOTDIR) blocked.emplace_back(delta->new_file.path);
  }
  if (blocked.empty()) return {};
  return Error{ErrorCode::IoError, "the merge would overwrite files the target does not track: " +
                                       listed(blocked) + "; move them away first"};
}

Result<GitPtr<git_signature>> merge_identity(git_repository* repo, const gw::Request& request) {
  GitPtr<git_signature> sig;
  if (request.author_name && request.author_email) {
    if (git_signature_now(out(sig), request.author_name->c_str(), request.author_email->c_str()) < 0)
      return bad_params("author_name / author_email are not a valid identity");
    return sig;
  }
  if (git_signature_default(out(sig), repo) < 0)
    return Error{ErrorCode::IoError,
                 "no identity for the merge commit: the repository sets no user.name and user.email"};
  return sig;
}

// ---- the marker ---------------------------------------------------------------

std::string marker_path(git_repository* repo) {
  std::string dir = git_repository_path(repo);
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir + kMarkerName;
}

struct Marker {
  git_oid orig{};
  git_oid tree{};
  struct timespec written {};
};

Status write_marker(git_repository* repo, const git_oid& orig, const git_oid& tree) {
  const std::string path = marker_path(repo);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  SIGNALTTY_RETURN_IF_ERROR(
      fs::write_all(fd.get(), "orig " + hex(&orig) + "\ntree " + hex(&tree) + "\n", path));
  if (::fsync(fd.get()) != 0) return Error::from_errno(ErrorCode::IoError, "fsync", errno, path);
  return {};
}

// nullopt when there is none. A marker that is not ours (unreadable,
// malformed, not a regular file) is an error: nothing is guessed.
Result<std::optional<Marker>> read_marker(git_repository* repo) {
  const std::string path = marker_path(repo);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<Marker>{};
    return Error::from_errno(ErrorCode::IoError, "lstat", errno, path);
  }
  if (!S_ISREG(st.st_mode) || st.st_size > 256)
    return Error{ErrorCode::IoError, path + " is not a merge marker"};
  SIGNALTTY_TRY(std::string text, fs::read_file(path, 256));
  Marker marker;
  marker.written = st.st_mtim;
  const std::string orig_tag = "orig ", tree_tag = "\ntree ";
  const auto tree_at = text.find(tree_tag);
  if (text.rfind(orig_tag, 0) != 0 || tree_at != orig_tag.size() + GIT_OID_HEXSZ ||
      text.size() < tree_at + tree_tag.size() + GIT_OID_HEXSZ ||
      git_oid_fromstrn(&marker.orig, text.data() + orig_tag.size(), GIT_OID_HEXSZ) < 0 ||
      git_oid_fromstrn(&marker.tree, text.data() + tree_at + tree_tag.size(), GIT_OID_HEXSZ) < 0)
    return Error{ErrorCode::IoError, path + " is not a merge marker"};
  return std::optional<Marker>{marker};
}

bool newer_or_same(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}

// A lock file a killed merge left: removed only when it is no older than
// the marker (a lock from before the merge belongs to someone else).
Status drop_stale_lock(const std::string& lock, const struct timespec& since) {
  struct stat st {};
  if (::lstat(lock.c_str(), &st) != 0) return {};
  if (!S_ISREG(st.st_mode) || !newer_or_same(st.st_mtim, since))
    return Error{ErrorCode::IoError, lock + " is held by another git process"};
  if (::unlink(lock.c_str()) != 0) return Error::from_errno(ErrorCode::IoError, "unlink", errno, lock);
  return {};
}

std::string trailing_slash(std::string dir) {
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir;
}

// ---- restore ----------------------------------------------------------------

// Puts the checkout back as the marker's commit has it: the branch, the
// index and every path the merge changes; then the marker goes. IO_ERROR
// with details.target_dirty when it cannot.
Status restore_from(git_repository* repo, const Target& target, const Marker& marker) {
  auto dirty = [](Error error) {
    error.details["target_dirty"] = true;
    return error;
  };
  const std::string git_dir = trailing_slash(git_repository_path(repo));
  const std::string common = trailing_slash(git_repository_commondir(repo));
  for (const std::string& lock : {git_dir + "index.lock", git_dir + "HEAD.lock",
                                  common + git_reference_name(target.ref.get()) + ".lock"})
    if (Status dropped = drop_stale_lock(lock, marker.written); !dropped.ok())
      return dirty(std::move(dropped).error());

  GitPtr<git_commit> orig;
  if (git_commit_lookup(out(orig), repo, &marker.orig) < 0)
    return dirty(git_failure("reading the commit the merge started from"));
  GitPtr<git_tree> merged;
  if (git_tree_lookup(out(merged), repo, &marker.tree) < 0)
    return dirty(git_failure("reading the tree the merge was writing"));
  auto orig_tree = tree_of(orig.get());
  if (!orig_tree.ok()) return dirty(std::move(orig_tree).error());
  auto paths = changed_paths(repo, orig_tree->get(), merged.get());
  if (!paths.ok()) return dirty(std::move(paths).error());

  if (git_oid_cmp(&target.head, &marker.orig) != 0) {
    GitPtr<git_reference> moved;
    if (git_reference_create_matching(out(moved), repo, git_reference_name(target.ref.get()),
                                      &marker.orig, 1, &target.head,
                                      "signaltty: interrupted merge undone") < 0)
      return dirty(git_failure("moving " + target.branch + " back"));
  }
  if (!paths->empty()) {
    // Forced over the merged tree: a path the merge added is removed, one it
    // changed or removed is written back; paths it did not touch are not
    // looked at, so the checkout's untracked files stay.
    std::vector<char*> specs;
    for (auto& path : *paths) specs.push_back(path.data());
    git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
    opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
    opts.baseline = merged.get();
    opts.paths = {specs.data(), specs.size()};
    if (git_checkout_tree(repo, reinterpret_cast<git_object*>(orig_tree->get()), &opts) < 0)
      return dirty(git_failure("checking out " + hex(&marker.orig) + " again"));
  }
  auto left = tracked_changes(repo);
  if (!left.ok()) return dirty(std::move(left).error());
  if (!left->empty())
    return dirty(Error{ErrorCode::IoError, "the target still has changes after the restore: " + listed(*left)});
  if (::unlink(marker_path(repo).c_str()) != 0 && errno != ENOENT)
    return dirty(Error::from_errno(ErrorCode::IoError, "unlink", errno, marker_path(repo)));
  return {};
}

#ifdef SIGNALTTY_GITWORKER_TEST_OPS
void test_pause(const gw::Request& request) {
  const std::uint32_t ms = request.stall_ms.value_or(0);
  timespec left{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000L};
  while (ms != 0 && ::clock_nanosleep(CLOCK_MONOTONIC, 0, &left, &left) != 0) {
  }
}
#else
void test_pause(const gw::Request&) {}
#endif

// Writes `plan` into the checkout and moves the branch from target.head to
// `to`. The marker covers the whole write; on failure the checkout is put
// back before the error returns.
Status write_merge(git_repository* repo, const Target& target, git_tree* orig_tree,
                   git_tree* result, const git_oid& to, const gw::Request& request) {
  SIGNALTTY_RETURN_IF_ERROR(check_nothing_in_the_way(repo, orig_tree, result));
  SIGNALTTY_RETURN_IF_ERROR(write_marker(repo, target.head, *git_tree_id(result)));
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_SAFE;
  opts.baseline = orig_tree;
  Status written;
  if (const int rc = git_checkout_tree(repo, reinterpret_cast<const git_object*>(result), &opts);
      rc == GIT_ECONFLICT) {
    // Refused before writing anything (a file appeared in the way since
    // the check): nothing to put back.
    Error error = git_failure("checking out the merge");
    ::unlink(marker_path(repo).c_str());
    return error;
  } else if (rc < 0) {
    written = git_failure("checking out the merge");
  }
  test_pause(request);
  GitPtr<git_reference> moved;
  if (written.ok() &&
      git_reference_create_matching(out(moved), repo, git_reference_name(target.ref.get()), &to,
                                    1, &target.head, ("merge " + *request.source).c_str()) < 0)
    written = git_failure("moving " + target.branch);
  if (written.ok()) {
    if (::unlink(marker_path(repo).c_str()) != 0)
      return Error::from_errno(ErrorCode::IoError, "unlink", errno, marker_path(repo));
    return {};
  }
  Error error = std::move(written).error();
  SIGNALTTY_TRY(Target now, read_target(repo));
  auto marker = read_marker(repo);
  Status restored = Error{ErrorCode::IoError, "the merge marker is gone"};
  if (marker.ok() && *marker) restored = restore_from(repo, now, **marker);
  if (!restored.ok()) {
    error.message += "; restoring the target failed: " + restored.error().message;
    error.details["target_dirty"] = true;
  }
  return error;
}

}  // namespace

Result<gw::MergePreviewResult> merge_preview(const gw::Request& request) {
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  SIGNALTTY_TRY(git_oid source_id, parse_commit_id(request.source, "source"));
  SIGNALTTY_TRY(GitPtr<git_commit> theirs, lookup_commit(repo.get(), source_id));
  GitPtr<git_reference> branch;
  if (git_branch_lookup(out(branch), repo.get(), request.branch->c_str(), GIT_BRANCH_LOCAL) < 0)
    return bad_params("no branch '" + *request.branch + "'");
  GitPtr<git_object> tip;
  if (git_reference_peel(out(tip), branch.get(), GIT_OBJECT_COMMIT) < 0)
    return git_failure("reading " + *request.branch);
  SIGNALTTY_TRY(GitPtr<git_commit> ours, lookup_commit(repo.get(), *git_object_id(tip.get())));
  SIGNALTTY_TRY(Plan plan, plan_merge(repo.get(), ours.get(), theirs.get()));
  return gw::MergePreviewResult{*request.branch, plan.conflicted.empty(), std::move(plan.conflicted)};
}

static Result<gw::MergeResult> merge_into(const gw::Request& request) {
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  SIGNALTTY_TRY(Target target, read_target(repo.get()));
  SIGNALTTY_RETURN_IF_ERROR(check_expected(target, request.expect_head));
  SIGNALTTY_TRY(std::optional<Marker> stale, read_marker(repo.get()));
  if (stale) {
    Error error{ErrorCode::IoError, "an interrupted merge was never undone (" +
                                        marker_path(repo.get()) + "): restore the target first"};
    error.details["target_dirty"] = true;
    return error;
  }
  // As git: another git process at work in this checkout stops the merge
  // before anything is written.
  if (const std::string lock = trailing_slash(git_repository_path(repo.get())) + "index.lock";
      ::access(lock.c_str(), F_OK) == 0)
    return Error{ErrorCode::IoError, lock + " exists: another git process is at work here"};
  SIGNALTTY_TRY(std::vector<std::string> changed, tracked_changes(repo.get()));
  if (!changed.empty())
    return bad_params("the target " + target.branch + " has uncommitted changes: " + listed(changed));
  SIGNALTTY_TRY(git_oid source_id, parse_commit_id(request.source, "source"));
  SIGNALTTY_TRY(GitPtr<git_commit> theirs, lookup_commit(repo.get(), source_id));
  SIGNALTTY_TRY(GitPtr<git_commit> ours, lookup_commit(repo.get(), target.head));
  SIGNALTTY_TRY(Plan plan, plan_merge(repo.get(), ours.get(), theirs.get()));

  gw::MergeResult result{target.branch, hex(&target.head), false, false};
  if (plan.kind == Kind::UpToDate) {
    result.up_to_date = true;
    return result;
  }
  if (!plan.conflicted.empty()) {
    Error error{ErrorCode::MergeConflict,
                "merging " + *request.source + " into " + target.branch + " conflicts in " +
                    listed(plan.conflicted) + "; the target was not touched"};
    error.details["conflicted"] = plan.conflicted;
    return error;
  }
  SIGNALTTY_TRY(GitPtr<git_tree> orig_tree, tree_of(ours.get()));
  git_oid to = source_id;
  if (plan.kind == Kind::Merge) {
    SIGNALTTY_TRY(GitPtr<git_signature> sig, merge_identity(repo.get(), request));
    const std::string message = "Merge commit '" + *request.source + "' into " + target.branch + "\n";
    const git_commit* parents[] = {ours.get(), theirs.get()};
    if (git_commit_create(&to, repo.get(), nullptr, sig.get(), sig.get(), nullptr, message.c_str(),
                          plan.tree.get(), 2, parents) < 0)
      return git_failure("writing the merge commit");
  }
  SIGNALTTY_RETURN_IF_ERROR(
      write_merge(repo.get(), target, orig_tree.get(), plan.tree.get(), to, request));
  result.sha = hex(&to);
  result.fast_forward = plan.kind == Kind::FastForward;
  return result;
}

// Every error says whether the target is as it was: details.target_dirty.
Result<gw::MergeResult> merge_commit(const gw::Request& request) {
  auto merged = merge_into(request);
  if (merged.ok() || merged.error().details.contains("target_dirty")) return merged;
  Error error = std::move(merged).error();
  error.details["target_dirty"] = false;
  return error;
}

Result<gw::MergeResult> merge_restore(const gw::Request& request) {
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  SIGNALTTY_TRY(Target target, read_target(repo.get()));
  SIGNALTTY_TRY(std::optional<Marker> marker, read_marker(repo.get()));
  if (marker) {
    if (request.expect_head) {
      SIGNALTTY_TRY(git_oid expected, parse_commit_id(request.expect_head, "expect_head"));
      if (git_oid_cmp(&expected, &marker->orig) != 0)
        return bad_params("the interrupted merge started from " + hex(&marker->orig) + ", not " +
                          *request.expect_head);
    }
    SIGNALTTY_RETURN_IF_ERROR(restore_from(repo.get(), target, *marker));
    return gw::MergeResult{target.branch, hex(&marker->orig), false, false};
  }
  // Nothing was written: the branch must still be where the merge began.
  SIGNALTTY_RETURN_IF_ERROR(check_expected(target, request.expect_head));
  return gw::MergeResult{target.branch, hex(&target.head), false, false};
}

}  // namespace signaltty::gitworker
