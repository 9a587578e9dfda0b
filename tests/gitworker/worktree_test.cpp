// tests/gitworker/worktree_test.cpp: the worktree ops (gitworker/
// worktree_op.cpp) in-process against real repositories: the list equals
// `git worktree list --porcelain` (locked and prunable included); add
// makes a clean checkout on a new branch that git lists, and refuses
// existing paths and branches, bad names, paths in .git and an unborn
// HEAD; remove refuses the main checkout and a dirty, locked or
// unregistered one or one with submodules, and otherwise deletes the
// checkout and its registration, keeps the branch and never follows a
// symlink out.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::GitRepo;

std::string wt_real(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? buf : path;
}

bool wt_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

gw::Request wt_request(gw::Op op, const std::string& repo, std::optional<std::string> path = {},
                       std::optional<std::string> branch = {}) {
  init_libgit2();
  gw::Request request;
  request.op = op;
  request.repo = repo;
  request.path = std::move(path);
  request.branch = std::move(branch);
  return request;
}

Result<gw::PathResult> wt_add(const GitRepo& repo, const std::string& path,
                              const std::string& branch) {
  return worktree_add(wt_request(gw::Op::WorktreeAdd, repo.root(), path, branch));
}

Result<gw::PathResult> wt_remove(const std::string& repo, const std::string& path) {
  return worktree_remove(wt_request(gw::Op::WorktreeRemove, repo, path));
}

bool wt_bad_params(const Result<gw::PathResult>& result) {
  return !result.ok() && result.error().code == ErrorCode::BadParams;
}

// One checkout as a comparable line.
std::string wt_line(const std::string& path, const std::string& branch, const std::string& head,
                    bool locked, bool prunable) {
  return path + " branch=" + branch + " head=" + head + (locked ? " locked" : "") +
         (prunable ? " prunable" : "");
}

std::vector<std::string> git_worktree_lines(const std::string& dir) {
  const std::string out = testing::git(dir, {"worktree", "list", "--porcelain"});
  std::vector<std::string> lines;
  std::string path, branch, head;
  bool locked = false, prunable = false;
  auto flush = [&] {
    if (!path.empty()) lines.push_back(wt_line(path, branch, head, locked, prunable));
    path.clear(), branch.clear(), head.clear(), locked = prunable = false;
  };
  std::size_t pos = 0;
  while (pos <= out.size()) {
    std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    const std::string line = out.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) flush();
    else if (line.rfind("worktree ", 0) == 0) path = line.substr(9);
    else if (line.rfind("HEAD ", 0) == 0) head = line.substr(5);
    else if (line.rfind("branch refs/heads/", 0) == 0) branch = line.substr(18);
    else if (line == "locked" || line.rfind("locked ", 0) == 0) locked = true;
    else if (line.rfind("prunable", 0) == 0) prunable = true;
  }
  flush();
  return lines;
}

std::vector<std::string> op_worktree_lines(const std::string& dir) {
  auto result = worktree_list(wt_request(gw::Op::WorktreeList, dir));
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  std::vector<std::string> lines;
  if (!result.ok()) return lines;
  for (std::size_t i = 0; i < result->worktrees.size(); ++i) {
    const gw::WorktreeInfo& w = result->worktrees[i];
    EXPECT_EQ(w.main, i == 0) << w.path;
    EXPECT_FALSE(w.bare);
    lines.push_back(
        wt_line(w.path, w.branch.value_or(""), w.head.value_or(""), w.locked, w.prunable));
  }
  return lines;
}

// ---- list ------------------------------------------------------------------------

TEST(GitWorktree, ListMatchesGitPorcelain) {
  GitRepo repo;
  testing::TempDir place("signaltty-wt-list");
  repo.git({"worktree", "add", "-q", "-b", "one", place.file("one")});
  repo.git({"worktree", "add", "-q", "--detach", place.file("detached")});
  repo.git({"worktree", "add", "-q", "-b", "locked", place.file("locked")});
  repo.git({"worktree", "lock", "--reason", "kept", place.file("locked")});
  repo.git({"worktree", "add", "-q", "-b", "gone", place.file("gone")});
  std::filesystem::remove_all(place.file("gone"));

  const std::vector<std::string> expected = git_worktree_lines(repo.root());
  ASSERT_EQ(expected.size(), 5u);
  EXPECT_EQ(op_worktree_lines(repo.root()), expected);
  // From a linked checkout the list is the same.
  EXPECT_EQ(op_worktree_lines(place.file("one")), expected);
}

// ---- add -------------------------------------------------------------------------

TEST(GitWorktree, AddMakesACleanCheckoutOnTheNewBranch) {
  GitRepo repo;
  repo.write("dir/file.txt", "content\n");
  ASSERT_EQ(::symlink("dir/file.txt", repo.path("link").c_str()), 0);
  repo.commit_all("more");
  testing::TempDir place("signaltty-wt-add");
  const std::string path = place.file("feature");

  auto added = wt_add(repo, path, "feature/one");
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->path, wt_real(path));
  EXPECT_EQ(testing::git(path, {"status", "--porcelain"}), "");
  EXPECT_EQ(testing::git(path, {"symbolic-ref", "HEAD"}), "refs/heads/feature/one\n");
  EXPECT_EQ(testing::git(path, {"rev-parse", "HEAD"}), repo.git({"rev-parse", "main"}));
  EXPECT_EQ(testing::read_file(path + "/dir/file.txt"), "content\n");
  EXPECT_EQ(op_worktree_lines(repo.root()), git_worktree_lines(repo.root()));
  EXPECT_NE(repo.git({"worktree", "list"}).find(wt_real(path)), std::string::npos);
}

TEST(GitWorktree, AddPicksAFreeRegistrationName) {
  GitRepo repo;
  testing::TempDir place("signaltty-wt-names");
  ASSERT_EQ(::mkdir(place.file("a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(place.file("b").c_str(), 0755), 0);
  ASSERT_TRUE(wt_add(repo, place.file("a/wt"), "x").ok());
  auto second = wt_add(repo, place.file("b/wt"), "y");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(wt_exists(repo.path(".git/worktrees/wt")));
  EXPECT_TRUE(wt_exists(repo.path(".git/worktrees/wt-2")));
  ASSERT_TRUE(wt_add(repo, place.file("odd name!"), "z").ok());
  EXPECT_TRUE(wt_exists(repo.path(".git/worktrees/odd-name-")));
  EXPECT_EQ(op_worktree_lines(repo.root()), git_worktree_lines(repo.root()));
}

TEST(GitWorktree, AddRefusesBadRequests) {
  GitRepo repo;
  testing::TempDir place("signaltty-wt-refuse");
  repo.git({"branch", "taken"});
  testing::write_file(place.file("file"), "x");
  const std::string fresh = place.file("fresh");

  EXPECT_TRUE(wt_bad_params(wt_add(repo, place.path(), "new1")));        // exists
  EXPECT_TRUE(wt_bad_params(wt_add(repo, place.file("file"), "new2")));  // exists
  EXPECT_TRUE(wt_bad_params(wt_add(repo, place.file("no/such/dir"), "new3")));
  EXPECT_TRUE(wt_bad_params(wt_add(repo, "relative/path", "new4")));
  EXPECT_TRUE(wt_bad_params(wt_add(repo, place.path() + "/../x", "new5")));
  EXPECT_TRUE(wt_bad_params(wt_add(repo, repo.path(".git/refs/heads/wt"), "new6")));
  EXPECT_TRUE(wt_bad_params(wt_add(repo, repo.path(".git/wt"), "new7")));
  EXPECT_TRUE(wt_bad_params(wt_add(repo, fresh, "taken")));
  EXPECT_TRUE(wt_bad_params(wt_add(repo, fresh, "main")));
  for (const char* bad : {"-x", "refs/heads/x", "a@{b", "a..b", "", "HEAD", "@", "a b", "a~1",
                          "a:b", "x.lock", "/x", "x/", "a\\b"})
    EXPECT_TRUE(wt_bad_params(wt_add(repo, fresh, bad))) << bad;
  EXPECT_FALSE(wt_exists(fresh));
  EXPECT_EQ(repo.git({"branch", "--list"}), "* main\n  taken\n");
  EXPECT_FALSE(wt_exists(repo.path(".git/worktrees")));
}

TEST(GitWorktree, AddRefusesAnUnbornHead) {
  testing::TempDir dir("signaltty-wt-unborn");
  testing::TempDir place("signaltty-wt-unborn-place");
  testing::git(dir.path(), {"init", "-q", "-b", "main", "."});
  auto result = worktree_add(
      wt_request(gw::Op::WorktreeAdd, dir.path(), place.file("wt"), std::string("b")));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadParams);
  EXPECT_NE(result.error().message.find("no commit to branch from"), std::string::npos);
}

// ---- remove ----------------------------------------------------------------------

TEST(GitWorktree, RemoveDeletesCheckoutAndRegistrationAndKeepsTheBranch) {
  GitRepo repo;
  repo.write(".gitignore", "*.log\n");
  repo.commit_all("ignore");
  testing::TempDir place("signaltty-wt-remove");
  testing::TempDir outside("signaltty-wt-outside");
  testing::write_file(outside.file("precious"), "keep me\n");
  const std::string path = place.file("wt");
  ASSERT_TRUE(wt_add(repo, path, "topic").ok());
  // Ignored content goes with the checkout; a symlink out is unlinked,
  // never followed.
  testing::write_file(path + "/build.log", "ignored\n");
  ASSERT_EQ(::mkdir((path + "/logs.log").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(outside.path().c_str(), (path + "/logs.log/out").c_str()), 0);

  auto removed = wt_remove(repo.root(), path + "/");
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(removed->path, wt_real(place.path()) + "/wt");
  EXPECT_FALSE(wt_exists(path));
  EXPECT_FALSE(wt_exists(repo.path(".git/worktrees/wt")));
  EXPECT_EQ(git_worktree_lines(repo.root()).size(), 1u);
  EXPECT_EQ(repo.git({"rev-parse", "--verify", "-q", "refs/heads/topic"}),
            repo.git({"rev-parse", "main"}));
  EXPECT_EQ(testing::read_file(outside.file("precious")), "keep me\n");
}

TEST(GitWorktree, RemoveRefusesMainDirtyLockedAndStrangers) {
  GitRepo repo;
  GitRepo other;
  testing::TempDir place("signaltty-wt-remove-refuse");
  const std::string wt = place.file("wt");
  ASSERT_TRUE(wt_add(repo, wt, "topic").ok());
  const std::string foreign = place.file("foreign");
  other.git({"worktree", "add", "-q", "-b", "f", foreign});

  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), repo.root())));
  EXPECT_TRUE(wt_bad_params(wt_remove(wt, repo.root())));  // main, asked from the linked one
  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), foreign)));
  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), place.path())));
  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), wt + "/README")));

  testing::write_file(wt + "/README", "edited\n");
  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), wt)));
  testing::git(wt, {"checkout", "-q", "README"});
  testing::write_file(wt + "/untracked.txt", "new\n");
  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), wt)));
  ASSERT_EQ(::unlink((wt + "/untracked.txt").c_str()), 0);

  repo.git({"worktree", "lock", wt});
  EXPECT_TRUE(wt_bad_params(wt_remove(repo.root(), wt)));
  repo.git({"worktree", "unlock", wt});

  EXPECT_TRUE(wt_exists(wt + "/README"));
  auto removed = wt_remove(repo.root(), wt);
  EXPECT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_FALSE(wt_exists(wt));
}

TEST(GitWorktree, RemoveRefusesACheckoutWithSubmodules) {
  GitRepo sub;
  GitRepo repo;
  repo.git({"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root(), "sub"});
  repo.commit_all("add sub");
  testing::TempDir place("signaltty-wt-submodule");
  const std::string wt = place.file("wt");
  ASSERT_TRUE(wt_add(repo, wt, "topic").ok());
  auto removed = wt_remove(repo.root(), wt);
  ASSERT_TRUE(wt_bad_params(removed));
  EXPECT_NE(removed.error().message.find("submodules"), std::string::npos);
  EXPECT_TRUE(wt_exists(wt + "/README"));
}

TEST(GitWorktree, RemoveOfAVanishedCheckoutDropsTheRegistration) {
  GitRepo repo;
  testing::TempDir place("signaltty-wt-vanished");
  const std::string wt = place.file("wt");
  ASSERT_TRUE(wt_add(repo, wt, "topic").ok());
  std::filesystem::remove_all(wt);
  auto removed = wt_remove(repo.root(), wt);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_FALSE(wt_exists(repo.path(".git/worktrees/wt")));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker
