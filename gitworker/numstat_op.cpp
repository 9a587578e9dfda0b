// gitworker/numstat_op.cpp: diff_numstat, the per-file line counts of the
// checkout against HEAD (what `git diff --numstat --no-renames HEAD`
// prints: staged and unstaged changes together) or against a turn
// baseline tree, plus the untracked files.
// Runs in: gitworker. Never: writes anything, runs a diff driver, textconv
// or filter program, or opens an untracked file except through
// read_untracked.
//
// Rules, each as git has it unless said:
// - No rename or copy detection: a rename is a deletion and an addition.
//   A type change (file to symlink) is one line, both counts summed.
// - A binary file (NUL in its first 8000 bytes, or a `binary` / `-diff`
//   attribute) is binary with zero counts (git prints "-\t-").
// - A submodule whose commit moved counts 1 added, 1 removed (git diffs
//   the lines "Subproject commit <id>").
// - Files over kMaxBlobBytes on either side are binary with zero counts;
//   git's own threshold (core.bigFileThreshold) is 512 MiB.
// - Untracked, not ignored files (scope HEAD: not in the index; with a
//   base tree: not in that tree) are listed one by one, untracked, with
//   their lines as added; one that is not a small regular file (see
//   read_untracked) is binary with zero counts. FIFOs, sockets and
//   devices are not listed (libgit2's walk skips them). A file removed
//   from the index but still on disk is only its deletion, as git shows.
// - Files sorted by path, bytewise; at most kMaxFiles, the first ones in
//   that order (the rest are left out: the wire has no "truncated" flag).
#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <vector>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "gitworker/untracked.hpp"

namespace signaltty::gitworker {
namespace {

constexpr std::size_t kMaxFiles = 100'000;
constexpr git_off_t kMaxBlobBytes = git_off_t{64} << 20;

bool is_hex_id(const std::string& id) {
  return id.size() == GIT_OID_HEXSZ &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

Result<GitPtr<git_tree>> lookup_base_tree(git_repository* repo, const std::string& id) {
  if (!is_hex_id(id)) return bad_params("base_tree must be a tree id (40 hex digits)");
  git_oid oid;
  if (git_oid_fromstr(&oid, id.c_str()) < 0) return bad_params("base_tree is not a tree id");
  GitPtr<git_tree> tree;
  const int rc = git_tree_lookup(out(tree), repo, &oid);
  if (rc == GIT_ENOTFOUND) return bad_params("base_tree " + id + " is not a tree of this repository");
  if (rc < 0) return git_failure("reading base_tree " + id);
  return tree;
}

// HEAD's tree; null before the first commit.
Result<GitPtr<git_tree>> head_tree(git_repository* repo) {
  GitPtr<git_reference> head;
  const int rc = git_repository_head(out(head), repo);
  if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) return GitPtr<git_tree>{};
  if (rc < 0) return git_failure("reading HEAD");
  GitPtr<git_object> tree;
  if (git_reference_peel(out(tree), head.get(), GIT_OBJECT_TREE) < 0)
    return git_failure("reading HEAD's tree");
  return GitPtr<git_tree>(reinterpret_cast<git_tree*>(tree.release()));
}

Result<GitPtr<git_diff>> checkout_diff(git_repository* repo, const gw::Request& request) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
  opts.context_lines = 0;
  opts.interhunk_lines = 0;
  opts.max_size = kMaxBlobBytes;
  GitPtr<git_diff> diff;
  if (request.base_tree) {
    SIGNALTTY_TRY(GitPtr<git_tree> base, lookup_base_tree(repo, *request.base_tree));
    if (git_diff_tree_to_workdir(out(diff), repo, base.get(), &opts) < 0)
      return git_failure("diffing the checkout against base_tree");
  } else {
    SIGNALTTY_TRY(GitPtr<git_tree> head, head_tree(repo));
    if (git_diff_tree_to_workdir_with_index(out(diff), repo, head.get(), &opts) < 0)
      return git_failure("diffing the checkout against HEAD");
  }
  return diff;
}

std::string delta_path(const git_diff_delta& delta) {
  std::string path =
      delta.status == GIT_DELTA_DELETED ? delta.old_file.path : delta.new_file.path;
  if (path.size() > 1 && path.back() == '/') path.pop_back();  // an untracked nested repository
  return path;
}

void count_untracked(const std::string& root, protocol::DiffFile& file) {
  file.untracked = true;
  const UntrackedFile content = read_untracked(root, file.path);
  if (content.kind == UntrackedKind::Text)
    file.added = content.lines;
  else
    file.binary = true;
}

Status count_tracked(git_diff* diff, std::size_t index, protocol::DiffFile& file) {
  GitPtr<git_patch> patch;  // null for a binary or unmodified file
  if (git_patch_from_diff(out(patch), diff, index) < 0)
    return git_failure("diffing " + file.path);
  if ((git_diff_get_delta(diff, index)->flags & GIT_DIFF_FLAG_BINARY) != 0) {
    file.binary = true;
    return {};
  }
  if (patch == nullptr) return {};
  std::size_t context = 0, added = 0, removed = 0;
  if (git_patch_line_stats(&context, &added, &removed, patch.get()) < 0)
    return git_failure("counting the lines of " + file.path);
  file.added = added;
  file.removed = removed;
  return {};
}

// A file that became a symlink (or the reverse) is a deletion and an
// addition of one path in libgit2; git prints one line with both counts.
void merge_typechange(protocol::DiffFile& into, const protocol::DiffFile& other) {
  into.binary = into.binary || other.binary;
  into.added = into.binary ? 0 : into.added + other.added;
  into.removed = into.binary ? 0 : into.removed + other.removed;
}

// Delta indexes in bytewise path order (libgit2 folds case when
// core.ignorecase is set).
std::vector<std::size_t> sorted_deltas(git_diff* diff, std::vector<std::string>& paths) {
  const std::size_t n = git_diff_num_deltas(diff);
  paths.resize(n);
  for (std::size_t i = 0; i < n; ++i) paths[i] = delta_path(*git_diff_get_delta(diff, i));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return paths[a] < paths[b]; });
  return order;
}

}  // namespace

Result<gw::DiffResult> diff_numstat(const gw::Request& request) {
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  SIGNALTTY_TRY(GitPtr<git_diff> diff, checkout_diff(repo.get(), request));
  const std::string root = workdir_of(repo.get());
  gw::DiffResult result;
  if (git_repository_head_detached(repo.get()) != 1) result.branch = head_branch(repo.get());
  std::vector<std::string> paths;
  for (const std::size_t i : sorted_deltas(diff.get(), paths)) {
    if (result.files.size() == kMaxFiles) break;
    const git_delta_t status = git_diff_get_delta(diff.get(), i)->status;
    if (status == GIT_DELTA_UNMODIFIED || status == GIT_DELTA_IGNORED) continue;
    protocol::DiffFile file;
    file.path = std::move(paths[i]);
    if (status == GIT_DELTA_UNTRACKED)
      count_untracked(root, file);
    else
      SIGNALTTY_RETURN_IF_ERROR(count_tracked(diff.get(), i, file));
    if (!result.files.empty() && result.files.back().path == file.path &&
        !result.files.back().untracked && !file.untracked)
      merge_typechange(result.files.back(), file);
    else
      result.files.push_back(std::move(file));
  }
  return result;
}

}  // namespace signaltty::gitworker
