// tests/gitworker/merge_test.cpp: merge_preview, merge and merge_restore
// (gitworker/merge_op.cpp) against real repositories, checked with the git
// CLI: a fast-forward and a true merge leave the branch, index and files as
// `git merge` would; conflicts, a moved or dirty target, a detached HEAD,
// unrelated histories and an untracked file in the way leave the target
// untouched; a merge killed after its checkout (in a forked child, at the
// test build's pause) and one killed after moving the branch are both put
// back by merge_restore, the checkout's untracked files kept; stale locks
// are removed only when the merge made them; and the program merges under
// its sandbox, in a linked worktree too.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::GitRepo;

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

using testing::Branches;
using testing::trim;

gw::Request merge_request(const Branches& b, const std::string& source) {
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::Merge;
  request.repo = b.repo.root();
  request.source = source;
  request.expect_head = b.main;
  request.author_name = "Merger";
  request.author_email = "merger@example.invalid";
  return request;
}

Result<gw::MergeResult> restore(const Branches& b) {
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::MergeRestore;
  request.repo = b.repo.root();
  request.expect_head = b.main;
  return merge_restore(request);
}

void expect_untouched(const Branches& b) {
  EXPECT_EQ(b.head(), b.main);
  EXPECT_EQ(b.status(), "");
  EXPECT_FALSE(exists(b.repo.path(".git/SIGNALTTY_MERGE")));
}

std::string err(const Result<gw::MergeResult>& r) { return r.ok() ? "" : r.error().message; }

TEST(MergePreview, TellsCleanFromConflictedAndWritesNoRef) {
  Branches clean;
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::MergePreview;
  request.repo = clean.repo.root();
  request.branch = "main";
  request.source = clean.feature;
  auto preview = merge_preview(request);
  ASSERT_TRUE(preview.ok()) << preview.error().message;
  EXPECT_EQ(preview->target, "main");
  EXPECT_TRUE(preview->clean);
  EXPECT_TRUE(preview->conflicted.empty());
  expect_untouched(clean);

  Branches conflicting(true, true);
  request.repo = conflicting.repo.root();
  request.source = conflicting.feature;
  preview = merge_preview(request);
  ASSERT_TRUE(preview.ok()) << preview.error().message;
  EXPECT_FALSE(preview->clean);
  EXPECT_EQ(preview->conflicted, std::vector<std::string>{"README"});
  expect_untouched(conflicting);

  request.branch = "no-such-branch";
  preview = merge_preview(request);
  ASSERT_FALSE(preview.ok());
  EXPECT_EQ(preview.error().code, ErrorCode::BadParams);
}

TEST(Merge, AFastForwardMovesTheBranchAndTheCheckoutAsGitWould) {
  Branches b(false);
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_TRUE(merged.ok()) << err(merged);
  EXPECT_TRUE(merged->fast_forward);
  EXPECT_EQ(merged->sha, b.feature);
  EXPECT_EQ(merged->target, "main");
  EXPECT_EQ(b.head(), b.feature);
  EXPECT_EQ(trim(b.repo.git({"symbolic-ref", "HEAD"})), "refs/heads/main");
  EXPECT_EQ(testing::read_file(b.repo.path("feature.txt")), "new\n");
  EXPECT_EQ(b.status(), "");  // index and files both match the new HEAD
  EXPECT_FALSE(exists(b.repo.path(".git/SIGNALTTY_MERGE")));
}

TEST(Merge, ATrueMergeCommitsBothParentsWithTheGivenIdentity) {
  Branches b;
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_TRUE(merged.ok()) << err(merged);
  EXPECT_FALSE(merged->fast_forward);
  EXPECT_FALSE(merged->up_to_date);
  EXPECT_EQ(b.head(), merged->sha);
  EXPECT_EQ(trim(b.repo.git({"rev-list", "--parents", "-n", "1", "HEAD"})),
            merged->sha + " " + b.main + " " + b.feature);
  EXPECT_EQ(trim(b.repo.git({"log", "-1", "--format=%an <%ae>"})), "Merger <merger@example.invalid>");
  EXPECT_EQ(testing::read_file(b.repo.path("README")), "hello\nline two, from feature\n");
  EXPECT_EQ(testing::read_file(b.repo.path("other.txt")), "main's own\n");
  EXPECT_EQ(b.status(), "");
  // git agrees the result holds both sides.
  b.repo.git({"merge-base", "--is-ancestor", b.feature, "HEAD"});
  b.repo.git({"merge-base", "--is-ancestor", b.main, "HEAD"});
}

TEST(Merge, AnAncestorIsAlreadyMergedAndNothingMoves) {
  Branches b;
  auto merged = merge_commit(merge_request(b, b.base));
  ASSERT_TRUE(merged.ok()) << err(merged);
  EXPECT_TRUE(merged->up_to_date);
  EXPECT_EQ(merged->sha, b.main);
  expect_untouched(b);
}

TEST(Merge, ConflictsLeaveTheTargetUntouchedAndNameThePaths) {
  Branches b(true, true);
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::MergeConflict);
  EXPECT_EQ(merged.error().details["conflicted"], protocol::Json::array({"README"}));
  EXPECT_EQ(merged.error().details["target_dirty"], false);
  expect_untouched(b);
  EXPECT_FALSE(exists(b.repo.path(".git/MERGE_HEAD")));
}

TEST(Merge, RefusesAMovedDirtyOrDetachedTargetAndBadSources) {
  Branches b;
  auto request = merge_request(b, b.feature);
  request.expect_head = b.base;
  auto merged = merge_commit(request);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::BadParams);
  EXPECT_NE(merged.error().message.find("moved"), std::string::npos) << merged.error().message;

  for (const char* bad : {"", "1234", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
                          "0000000000000000000000000000000000000001"}) {
    merged = merge_commit(merge_request(b, bad));
    ASSERT_FALSE(merged.ok()) << bad;
    EXPECT_EQ(merged.error().code, ErrorCode::BadParams) << bad;
  }

  b.repo.write("README", "edited, not committed\n");
  merged = merge_commit(merge_request(b, b.feature));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::BadParams);
  EXPECT_NE(merged.error().message.find("README"), std::string::npos) << merged.error().message;
  b.repo.git({"checkout", "-q", "--", "README"});

  b.repo.git({"checkout", "-q", "--detach"});
  merged = merge_commit(merge_request(b, b.feature));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::BadParams);
  b.repo.git({"checkout", "-q", "main"});
  expect_untouched(b);
}

TEST(Merge, UnrelatedHistoriesAndAMissingIdentityAreIoErrorsThatTouchNothing) {
  Branches b;
  b.repo.git({"checkout", "-q", "--orphan", "island"});
  b.repo.git({"rm", "-q", "-r", "-f", "."});
  b.repo.write("island.txt", "alone\n");
  b.repo.commit_all("island");
  const std::string island = b.head();
  b.repo.git({"checkout", "-q", "-f", "main"});
  auto merged = merge_commit(merge_request(b, island));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::IoError);
  EXPECT_NE(merged.error().message.find("unrelated"), std::string::npos);
  EXPECT_EQ(merged.error().details["target_dirty"], false);

  auto anonymous = merge_request(b, b.feature);
  anonymous.author_name.reset();
  anonymous.author_email.reset();
  merged = merge_commit(anonymous);  // the test repositories set no user.name
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::IoError);
  EXPECT_NE(merged.error().message.find("user.name"), std::string::npos);
  expect_untouched(b);

  b.repo.git({"config", "user.name", "Repo Person"});
  b.repo.git({"config", "user.email", "repo@example.invalid"});
  merged = merge_commit(anonymous);
  ASSERT_TRUE(merged.ok()) << err(merged);
  EXPECT_EQ(trim(b.repo.git({"log", "-1", "--format=%an"})), "Repo Person");
}

TEST(Merge, AnUntrackedFileInTheWayIsNeverOverwritten) {
  Branches b;
  b.repo.write("feature.txt", "mine, untracked\n");
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::IoError);
  EXPECT_EQ(merged.error().details["target_dirty"], false) << merged.error().message;
  EXPECT_EQ(testing::read_file(b.repo.path("feature.txt")), "mine, untracked\n");
  EXPECT_EQ(b.head(), b.main);
  EXPECT_EQ(b.status(), "?? feature.txt\n");
  EXPECT_FALSE(exists(b.repo.path(".git/SIGNALTTY_MERGE")));
}

// A merge in a forked child that pauses after writing the checkout (the
// test build's pause) and is killed there: files written, branch not moved.
void kill_merge_after_checkout(const Branches& b) {
  auto request = merge_request(b, b.feature);
  request.stall_ms = 60000;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    (void)merge_commit(request);
    ::_exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!exists(b.repo.path("feature.txt")) && std::chrono::steady_clock::now() < deadline)
    ::usleep(2000);
  // The checkout writes the index last: wait for it too.
  while (b.repo.git({"ls-files", "feature.txt"}).empty() && std::chrono::steady_clock::now() < deadline)
    ::usleep(2000);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(exists(b.repo.path("feature.txt")));
  ASSERT_TRUE(exists(b.repo.path(".git/SIGNALTTY_MERGE")));
  ASSERT_EQ(b.head(), b.main);  // the branch had not moved yet
}

TEST(MergeRestore, PutsBackAMergeKilledAfterItsCheckoutKeepingUntrackedFiles) {
  Branches b;
  b.repo.write("notes.txt", "the user's untracked notes\n");
  kill_merge_after_checkout(b);
  EXPECT_NE(b.status(), "?? notes.txt\n");  // the kill left the checkout changed

  auto restored = restore(b);
  ASSERT_TRUE(restored.ok()) << err(restored);
  EXPECT_EQ(restored->sha, b.main);
  EXPECT_EQ(b.head(), b.main);
  EXPECT_EQ(b.status(), "?? notes.txt\n");
  EXPECT_FALSE(exists(b.repo.path("feature.txt")));
  EXPECT_EQ(testing::read_file(b.repo.path("README")), "hello\nline two\n");
  EXPECT_EQ(testing::read_file(b.repo.path("notes.txt")), "the user's untracked notes\n");
  EXPECT_FALSE(exists(b.repo.path(".git/SIGNALTTY_MERGE")));

  // Once restored, the same merge goes through.
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_TRUE(merged.ok()) << err(merged);
}

TEST(MergeRestore, MovesTheBranchBackWhenTheKillCameAfterIt) {
  Branches b;
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_TRUE(merged.ok()) << err(merged);
  // The merge died between moving the branch and removing its marker.
  const std::string tree = trim(b.repo.git({"rev-parse", "HEAD^{tree}"}));
  testing::write_file(b.repo.path(".git/SIGNALTTY_MERGE"), "orig " + b.main + "\ntree " + tree + "\n");
  auto restored = restore(b);
  ASSERT_TRUE(restored.ok()) << err(restored);
  expect_untouched(b);
  EXPECT_FALSE(exists(b.repo.path("feature.txt")));
}

TEST(MergeRestore, WithoutAMarkerItChecksTheBranchAndChangesNothing) {
  Branches b;
  auto restored = restore(b);
  ASSERT_TRUE(restored.ok()) << err(restored);
  expect_untouched(b);
  Branches moved;
  moved.repo.git({"reset", "-q", "--hard", moved.base});
  restored = restore(moved);
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.error().code, ErrorCode::BadParams);
}

TEST(MergeRestore, AStaleMarkerBlocksNewMergesAndAForeignLockIsNotTaken) {
  Branches b;
  kill_merge_after_checkout(b);
  auto merged = merge_commit(merge_request(b, b.feature));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().details["target_dirty"], true) << merged.error().message;

  // A lock older than the marker is someone else's: the restore refuses.
  const std::string lock = b.repo.path(".git/index.lock");
  testing::write_file(lock, "");
  const struct timespec old_times[2] = {{1, 0}, {1, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, lock.c_str(), old_times, 0), 0);
  auto restored = restore(b);
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.error().details["target_dirty"], true);
  EXPECT_TRUE(exists(lock));

  // One the merge left (no older than the marker) is removed.
  ASSERT_EQ(::utimensat(AT_FDCWD, lock.c_str(), nullptr, 0), 0);
  restored = restore(b);
  ASSERT_TRUE(restored.ok()) << err(restored);
  expect_untouched(b);
  EXPECT_FALSE(exists(lock));

  testing::write_file(b.repo.path(".git/SIGNALTTY_MERGE"), "not a marker");
  restored = restore(b);
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.error().code, ErrorCode::IoError);
}

TEST(MergeSandboxed, TheProgramMergesWithOnlyTheCheckoutsDirectoriesWritable) {
  Branches b;
  // feature also makes README executable and adds a symlink; side deletes
  // other.txt.
  b.repo.git({"checkout", "-q", "feature"});
  ASSERT_EQ(::chmod(b.repo.path("README").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("README", b.repo.path("link").c_str()), 0);
  b.repo.commit_all("more feature work");
  b.feature = b.head();
  b.repo.git({"checkout", "-q", "main"});
  // Merge feature into `side`, checked out in the linked worktree: its git
  // dir lives in the main repository's .git/worktrees/; side has a commit of
  // its own, so this is a true merge.
  b.repo.git({"worktree", "add", "-q", "-b", "side", b.repo.path("side-wt"), b.main});
  const std::string linked = b.repo.path("side-wt");
  testing::write_file(linked + "/side.txt", "side\n");
  testing::git(linked, {"add", "side.txt"});
  testing::git(linked, {"rm", "-q", "other.txt"});
  testing::git(linked, {"commit", "-q", "-m", "side work"});
  const std::string side = trim(testing::git(linked, {"rev-parse", "HEAD"}));
  auto request = merge_request(b, b.feature);
  request.repo = linked;
  request.expect_head = side;
  const std::string common = b.repo.path(".git");
  const std::string gitdir = trim(testing::git(linked, {"rev-parse", "--absolute-git-dir"}));
  const std::vector<std::string> dirs{"--read",  linked, "--read",  gitdir, "--read",  common,
                                      "--write", linked, "--write", gitdir, "--write", common};
  const testing::WorkerRun worker = testing::run_gitworker(dirs, request);
  ASSERT_TRUE(worker.run.exited_with(0)) << testing::describe_status(worker.run.status) << worker.run.err;
  ASSERT_TRUE(worker.reply && worker.reply->ok) << worker.run.out;
  auto merged = protocol::decode<gw::MergeResult>(*worker.reply->result);
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE(merged->fast_forward);
  EXPECT_EQ(trim(testing::git(linked, {"rev-parse", "HEAD"})), merged->sha);
  EXPECT_EQ(testing::git(linked, {"status", "--porcelain"}), "");
  struct stat st {};
  ASSERT_EQ(::stat((linked + "/README").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  ASSERT_EQ(::lstat((linked + "/link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_FALSE(exists(linked + "/other.txt"));
  EXPECT_EQ(testing::read_file(linked + "/side.txt"), "side\n");
  EXPECT_EQ(b.head(), b.main);  // the main checkout's branch is another one
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::gitworker
