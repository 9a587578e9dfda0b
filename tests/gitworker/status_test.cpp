// tests/gitworker/status_test.cpp: the status op (gitworker/status_op.cpp)
// in-process against real repositories: clean and each way of being dirty
// (untracked, staged, unstaged, moved submodule) and the ways of not
// (ignored files, empty directories); detached and unborn HEADs; a
// directory in no repository; a linked worktree's name; a bare repository;
// and the index file left as it was.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::GitRepo;

Result<gw::StatusResult> status_at(const std::string& dir) {
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::Status;
  request.repo = dir;
  return repo_status(request);
}

// The status of `dir`, expected OK.
gw::StatusResult status_ok(const std::string& dir) {
  auto result = status_at(dir);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : gw::StatusResult{};
}

std::string real_path_of(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? buf : path;
}

std::string base_name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string head_id(const std::string& dir) {
  return testing::git(dir, {"rev-parse", "HEAD"}).substr(0, 40);
}

TEST(GitStatus, CleanCheckout) {
  GitRepo repo;
  const gw::StatusResult s = status_ok(repo.root());
  EXPECT_EQ(s.root, real_path_of(repo.root()));
  EXPECT_EQ(s.name, base_name_of(real_path_of(repo.root())));
  EXPECT_EQ(s.branch, "main");
  EXPECT_FALSE(s.detached);
  EXPECT_EQ(s.head, head_id(repo.root()));
  EXPECT_EQ(s.dirty, false);
}

TEST(GitStatus, ADirectoryInsideFindsTheTop) {
  GitRepo repo;
  repo.write("sub/dir/file", "x\n");
  repo.commit_all("sub");
  const gw::StatusResult s = status_ok(repo.path("sub/dir"));
  EXPECT_EQ(s.root, real_path_of(repo.root()));
  EXPECT_EQ(s.dirty, false);
}

TEST(GitStatus, UntrackedFileIsDirtyIgnoredOrEmptyDirIsNot) {
  GitRepo repo;
  repo.write(".gitignore", "*.log\n");
  repo.commit_all("ignore");
  repo.write("debug.log", "x\n");
  repo.write("only-ignored/inner.log", "x\n");
  ASSERT_EQ(::mkdir(repo.path("empty").c_str(), 0755), 0);
  EXPECT_EQ(status_ok(repo.root()).dirty, false);
  repo.write("deep/new/file.txt", "x\n");
  EXPECT_EQ(status_ok(repo.root()).dirty, true);
}

TEST(GitStatus, StagedOrUnstagedChangeIsDirty) {
  GitRepo repo;
  repo.write("README", "changed\n");
  EXPECT_EQ(status_ok(repo.root()).dirty, true);
  repo.git({"add", "README"});
  EXPECT_EQ(status_ok(repo.root()).dirty, true);
  repo.git({"commit", "-q", "-m", "c"});
  EXPECT_EQ(status_ok(repo.root()).dirty, false);
  repo.git({"rm", "-q", "README"});
  EXPECT_EQ(status_ok(repo.root()).dirty, true);
}

TEST(GitStatus, DetachedHeadHasNoBranch) {
  GitRepo repo;
  repo.git({"checkout", "-q", "--detach"});
  const gw::StatusResult s = status_ok(repo.root());
  EXPECT_TRUE(s.detached);
  EXPECT_FALSE(s.branch.has_value());
  EXPECT_EQ(s.head, head_id(repo.root()));
}

TEST(GitStatus, UnbornBranchIsNamedWithoutAHead) {
  testing::TempDir dir("signaltty-status-unborn");
  testing::git(dir.path(), {"init", "-q", "-b", "feature/x", "."});
  gw::StatusResult s = status_ok(dir.path());
  EXPECT_EQ(s.root, real_path_of(dir.path()));
  EXPECT_EQ(s.branch, "feature/x");
  EXPECT_FALSE(s.detached);
  EXPECT_FALSE(s.head.has_value());
  EXPECT_EQ(s.dirty, false);
  testing::write_file(dir.file("a"), "a\n");
  testing::git(dir.path(), {"add", "a"});
  EXPECT_EQ(status_ok(dir.path()).dirty, true);
}

TEST(GitStatus, DirectoryInNoRepositoryHasNoRoot) {
  testing::TempDir dir("signaltty-status-none");
  const gw::StatusResult s = status_ok(dir.path());
  EXPECT_FALSE(s.root.has_value());
  EXPECT_FALSE(s.name.has_value());
  EXPECT_FALSE(s.dirty.has_value());
}

TEST(GitStatus, BareRepositoryIsBadParams) {
  testing::TempDir dir("signaltty-status-bare");
  testing::git(dir.path(), {"init", "-q", "--bare", "."});
  auto result = status_at(dir.path());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadParams);
}

TEST(GitStatus, LinkedWorktreeIsNamedAfterTheMainCheckout) {
  GitRepo repo;
  testing::TempDir place("signaltty-status-wt");
  const std::string wt = place.file("elsewhere");
  repo.git({"worktree", "add", "-q", "-b", "feat", wt});
  const gw::StatusResult s = status_ok(wt);
  EXPECT_EQ(s.root, real_path_of(wt));
  EXPECT_EQ(s.name, base_name_of(real_path_of(repo.root())));
  EXPECT_EQ(s.branch, "feat");
  EXPECT_EQ(s.head, head_id(repo.root()));
  EXPECT_EQ(s.dirty, false);
  testing::write_file(wt + "/new", "x\n");
  EXPECT_EQ(status_ok(wt).dirty, true);
  EXPECT_EQ(status_ok(repo.root()).dirty, false);
}

TEST(GitStatus, MovedSubmoduleIsDirty) {
  GitRepo sub;
  GitRepo repo;
  repo.git({"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root(), "sub"});
  repo.commit_all("add sub");
  EXPECT_EQ(status_ok(repo.root()).dirty, false);
  testing::write_file(repo.path("sub/README"), "moved\n");
  testing::git(repo.path("sub"), {"commit", "-q", "-am", "move"});
  EXPECT_EQ(status_ok(repo.root()).dirty, true);
}

TEST(GitStatus, IndexFileIsNotRewritten) {
  GitRepo repo;
  repo.write("a.txt", "a\n");
  repo.commit_all("a");
  // Same content, new mtime: a status that refreshed the index would
  // rewrite it with the new stat data.
  repo.write("a.txt", "a\n");
  const std::string index = repo.path(".git/index");
  const std::string before = testing::read_file(index);
  struct stat st_before {};
  ASSERT_EQ(::stat(index.c_str(), &st_before), 0);
  EXPECT_EQ(status_ok(repo.root()).dirty, false);
  struct stat st_after {};
  ASSERT_EQ(::stat(index.c_str(), &st_after), 0);
  EXPECT_EQ(testing::read_file(index), before);
  EXPECT_EQ(st_after.st_ino, st_before.st_ino);
  EXPECT_EQ(st_after.st_mtim.tv_nsec, st_before.st_mtim.tv_nsec);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker
