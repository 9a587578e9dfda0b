// gitworker/capture_op.cpp: capture_tree, the checkout as it is on disk
// written as a tree object: a turn's baseline, which a later diff with
// base_tree compares the checkout against.
// Runs in: gitworker. Never: writes the index file (the work happens on an
// in-memory copy the repository is pointed at, which has no file to be
// written to), or writes anything but blobs and trees to the object store.
//
// What the tree holds, as `git add -A && git write-tree` would, except:
// - an untracked file larger than kUntrackedReadCap (512 KiB) is left out,
//   so a capture never copies a big unignored file (a dataset, a build
//   output) into the object store; a later diff lists it as untracked.
//   Tracked files are captured whatever their size.
// - a conflicted path is captured as the file on disk.
// Ignored files stay out; FIFOs, sockets and devices are never read
// (libgit2's working-tree walk skips them); symlinks are links.
#include <sys/stat.h>

#include <string>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "gitworker/untracked.hpp"

#include <git2/sys/repository.h>

namespace signaltty::gitworker {
namespace {

bool at_or_after(const git_index_time& t, const timespec& stamp) {
  if (t.seconds != static_cast<std::int32_t>(stamp.tv_sec))
    return t.seconds > static_cast<std::int32_t>(stamp.tv_sec);
  return t.nanoseconds >= static_cast<std::uint32_t>(stamp.tv_nsec);
}

// The index file's entries (stage 0: a conflict is resolved from disk) in
// an index that has no file. An entry written in the same instant as the
// index file may hide a later edit of the same size ("racy git"): its
// mtime is cleared so the working-tree comparison hashes that file.
Result<GitPtr<git_index>> in_memory_copy(git_repository* repo) {
  GitPtr<git_index> on_disk;
  if (git_repository_index(out(on_disk), repo) < 0) return git_failure("reading the index");
  struct stat written {};
  const char* path = git_index_path(on_disk.get());
  const bool has_file = path != nullptr && ::stat(path, &written) == 0;
  GitPtr<git_index> copy;
  if (git_index_new(out(copy)) < 0) return git_failure("creating an in-memory index");
  // Filled while it has no owner: libgit2 then takes the ids as they are
  // instead of looking each one up in the object store.
  const std::size_t n = git_index_entrycount(on_disk.get());
  for (std::size_t i = 0; i < n; ++i) {
    git_index_entry entry = *git_index_get_byindex(on_disk.get(), i);
    if (git_index_entry_stage(&entry) != 0) continue;
    if (has_file && at_or_after(entry.mtime, written.st_mtim)) entry.mtime = {0, 0};
    if (git_index_add(copy.get(), &entry) < 0)
      return git_failure(std::string("copying the index entry ") + entry.path);
  }
  if (git_repository_set_index(repo, copy.get()) < 0 ||
      git_index_set_caps(copy.get(), GIT_INDEX_CAPABILITY_FROM_OWNER) < 0)
    return git_failure("setting up the in-memory index");
  return copy;
}

struct AddContext {
  git_index* index;
  std::string root;
};

// git_index_add_all's per-path veto: >0 leaves a large untracked file out.
int skip_large_untracked(const char* path, const char* /*matched*/, void* payload) {
  const auto* ctx = static_cast<const AddContext*>(payload);
  if (git_index_get_bypath(ctx->index, path, 0) != nullptr) return 0;  // tracked
  struct stat st {};
  const std::string full = ctx->root + "/" + path;
  if (::lstat(full.c_str(), &st) != 0) return 0;
  return S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > kUntrackedReadCap ? 1 : 0;
}

}  // namespace

Result<gw::CaptureResult> capture_tree(const gw::Request& request) {
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  SIGNALTTY_TRY(GitPtr<git_index> index, in_memory_copy(repo.get()));
  AddContext ctx{index.get(), workdir_of(repo.get())};
  // Adds modified and untracked files and drops deleted ones (add_all
  // removes an entry whose file is gone), writing each new blob.
  if (git_index_add_all(index.get(), nullptr, GIT_INDEX_ADD_DEFAULT, skip_large_untracked, &ctx) <
      0)
    return git_failure("adding the checkout's files");
  git_oid tree;
  if (git_index_write_tree_to(&tree, index.get(), repo.get()) < 0)
    return git_failure("writing the tree");
  return gw::CaptureResult{git_oid_tostr_s(&tree)};
}

}  // namespace signaltty::gitworker
