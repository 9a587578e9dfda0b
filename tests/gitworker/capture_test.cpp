// tests/gitworker/capture_test.cpp: the capture op (gitworker/
// capture_op.cpp) in-process against real repositories: its tree is the
// one `git add -A && git write-tree` writes from a copy of the index; the
// index file is byte for byte as before; large untracked files are left
// out; a racily clean file is seen; and a diff against the captured tree
// shows only what changed since.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "gitworker/untracked.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::GitRepo;

Result<gw::CaptureResult> capture_at(const std::string& root) {
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::Capture;
  request.repo = root;
  return capture_tree(request);
}

// The captured tree id, expected OK.
std::string captured_tree(const std::string& root) {
  auto result = capture_at(root);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? result->tree : "";
}

// What git writes for "everything on disk": `git add -A` into a copy of
// the index (GIT_INDEX_FILE), then `git write-tree` from it.
std::string git_add_all_tree(const std::string& root) {
  testing::TempDir scratch("signaltty-capture-index");
  const std::string index = scratch.file("index");
  const std::string real_index = root + "/.git/index";
  if (::access(real_index.c_str(), F_OK) == 0)
    testing::write_file(index, testing::read_file(real_index));
  const std::string env = "GIT_INDEX_FILE=" + index;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"add", "-A"}, std::vector<std::string>{"write-tree"}}) {
    std::vector<std::string> argv{"/usr/bin/env", env, SIGNALTTY_GIT_PROGRAM};
    argv.insert(argv.end(), args.begin(), args.end());
    const testing::Run run = testing::run_program(argv, root);
    EXPECT_TRUE(run.exited_with(0)) << run.err;
    if (args.front() == "write-tree") return run.out.substr(0, 40);
  }
  return "";
}

std::vector<std::string> tree_paths(const std::string& root, const std::string& tree) {
  const std::string out = testing::git(root, {"ls-tree", "-r", "--name-only", "-z", tree});
  std::vector<std::string> paths;
  for (std::size_t pos = 0; pos < out.size();) {
    const std::size_t end = out.find('\0', pos);
    paths.push_back(out.substr(pos, end - pos));
    pos = end + 1;
  }
  return paths;
}

void mix_of_changes(const GitRepo& repo) {
  repo.write(".gitignore", "*.log\n");
  repo.write("keep.txt", "keep\n");
  repo.write("edit.txt", "old\n");
  repo.write("gone.txt", "gone\n");
  repo.write("exec.sh", "echo\n");
  repo.commit_all("base");
  repo.write("edit.txt", "new\ncontent\n");
  ASSERT_EQ(::unlink(repo.path("gone.txt").c_str()), 0);
  ASSERT_EQ(::chmod(repo.path("exec.sh").c_str(), 0755), 0);
  repo.write("staged.txt", "staged\n");
  repo.git({"add", "staged.txt"});
  repo.write("untracked/deep/file.txt", "u\n");
  repo.write("untracked/other.txt", "o\n");
  repo.write("debug.log", "ignored\n");
  ASSERT_EQ(::symlink("keep.txt", repo.path("link").c_str()), 0);
}

TEST(GitCapture, TreeIsWhatGitAddAllWrites) {
  GitRepo repo;
  mix_of_changes(repo);
  const std::string tree = captured_tree(repo.root());
  EXPECT_EQ(tree, git_add_all_tree(repo.root()));
  const std::vector<std::string> paths = tree_paths(repo.root(), tree);
  EXPECT_EQ(paths, (std::vector<std::string>{".gitignore", "README", "edit.txt", "exec.sh",
                                             "keep.txt", "link", "staged.txt",
                                             "untracked/deep/file.txt", "untracked/other.txt"}));
}

TEST(GitCapture, IndexFileIsByteForByteUnchanged) {
  GitRepo repo;
  mix_of_changes(repo);
  const std::string index = repo.path(".git/index");
  const std::string before = testing::read_file(index);
  struct stat st_before {};
  ASSERT_EQ(::stat(index.c_str(), &st_before), 0);
  ASSERT_FALSE(captured_tree(repo.root()).empty());
  struct stat st_after {};
  ASSERT_EQ(::stat(index.c_str(), &st_after), 0);
  EXPECT_EQ(testing::read_file(index), before);
  EXPECT_EQ(st_after.st_ino, st_before.st_ino);
  EXPECT_EQ(st_after.st_mtim.tv_sec, st_before.st_mtim.tv_sec);
  EXPECT_EQ(st_after.st_mtim.tv_nsec, st_before.st_mtim.tv_nsec);
  // And git still sees the same staged state.
  EXPECT_EQ(repo.git({"diff", "--cached", "--name-only"}), "staged.txt\n");
}

TEST(GitCapture, UnbornHeadIsCaptured) {
  testing::TempDir dir("signaltty-capture-unborn");
  testing::git(dir.path(), {"init", "-q", "-b", "main", "."});
  testing::write_file(dir.file("a.txt"), "a\n");
  testing::git(dir.path(), {"add", "a.txt"});
  testing::write_file(dir.file("b.txt"), "b\n");
  EXPECT_EQ(captured_tree(dir.path()), git_add_all_tree(dir.path()));
}

TEST(GitCapture, EmptyCheckoutIsTheEmptyTree) {
  testing::TempDir dir("signaltty-capture-empty");
  testing::git(dir.path(), {"init", "-q", "-b", "main", "."});
  EXPECT_EQ(captured_tree(dir.path()), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
}

TEST(GitCapture, LargeUntrackedFilesAreLeftOutTrackedOnesAreNot) {
  GitRepo repo;
  repo.write("tracked-big.txt", "small at first\n");
  repo.commit_all("tracked");
  const std::string big(kUntrackedReadCap + 1, 'x');
  repo.write("tracked-big.txt", big);
  repo.write("untracked-big.txt", big);
  repo.write("untracked-at-cap.txt", std::string(kUntrackedReadCap, 'y'));
  const std::string tree = captured_tree(repo.root());
  EXPECT_EQ(tree_paths(repo.root(), tree),
            (std::vector<std::string>{"README", "tracked-big.txt", "untracked-at-cap.txt"}));
  EXPECT_EQ(testing::git(repo.root(), {"cat-file", "-s", tree + ":tracked-big.txt"}),
            std::to_string(big.size()) + "\n");
}

TEST(GitCapture, ConflictedPathIsCapturedFromDisk) {
  GitRepo repo;
  repo.write("c.txt", "base\n");
  repo.commit_all("base");
  repo.git({"checkout", "-q", "-b", "other"});
  repo.write("c.txt", "other\n");
  repo.commit_all("other");
  repo.git({"checkout", "-q", "main"});
  repo.write("c.txt", "mine\n");
  repo.commit_all("mine");
  const testing::Run merge =
      testing::run_program({SIGNALTTY_GIT_PROGRAM, "merge", "-q", "other"}, repo.root());
  ASSERT_FALSE(merge.exited_with(0));  // a conflict
  const std::string tree = captured_tree(repo.root());
  ASSERT_FALSE(tree.empty());
  EXPECT_EQ(testing::git(repo.root(), {"cat-file", "-p", tree + ":c.txt"}),
            testing::read_file(repo.path("c.txt")));
}

// A file rewritten with the same size and mtime after `git add`, in the
// same instant as the index file: only the racy-git rule catches it.
TEST(GitCapture, RacilyCleanFileIsRehashed) {
  GitRepo repo;
  repo.git({"config", "core.trustctime", "false"});
  repo.write("r.txt", "aaaa\n");
  repo.git({"add", "r.txt"});
  const std::string stamp = repo.path("stamp");
  testing::write_file(stamp, "");
  ASSERT_EQ(testing::run_program({"/usr/bin/touch", "-r", repo.path("r.txt"), stamp}, "").status, 0);
  repo.write("r.txt", "bbbb\n");
  ASSERT_EQ(testing::run_program({"/usr/bin/touch", "-r", stamp, repo.path("r.txt")}, "").status, 0);
  ASSERT_EQ(
      testing::run_program({"/usr/bin/touch", "-r", stamp, repo.path(".git/index")}, "").status, 0);
  ASSERT_EQ(::unlink(stamp.c_str()), 0);
  const std::string tree = captured_tree(repo.root());
  EXPECT_EQ(testing::git(repo.root(), {"cat-file", "-p", tree + ":r.txt"}), "bbbb\n");
}

TEST(GitCapture, DiffAgainstTheCaptureShowsOnlyLaterEdits) {
  GitRepo repo;
  mix_of_changes(repo);
  const std::string tree = captured_tree(repo.root());
  ASSERT_FALSE(tree.empty());

  init_libgit2();
  gw::Request request;
  request.op = gw::Op::Diff;
  request.repo = repo.root();
  request.base_tree = tree;
  auto unchanged = diff_numstat(request);
  ASSERT_TRUE(unchanged.ok()) << unchanged.error().message;
  EXPECT_TRUE(unchanged->files.empty());

  repo.write("edit.txt", "new\ncontent\nmore\n");
  repo.write("untracked/other.txt", "o\nchanged\n");
  ASSERT_EQ(::unlink(repo.path("keep.txt").c_str()), 0);
  repo.write("later.txt", "l\n");
  auto later = diff_numstat(request);
  ASSERT_TRUE(later.ok()) << later.error().message;
  std::vector<std::string> lines;
  for (const auto& f : later->files)
    lines.push_back(f.path + " " + std::to_string(f.added) + " " + std::to_string(f.removed) +
                    (f.untracked ? " untracked" : ""));
  EXPECT_EQ(lines, (std::vector<std::string>{"edit.txt 1 0", "keep.txt 0 1",
                                             "later.txt 1 0 untracked",
                                             "untracked/other.txt 1 0"}));
}

TEST(GitCapture, NotARepositoryIsBadParams) {
  testing::TempDir dir("signaltty-capture-none");
  auto result = capture_at(dir.path());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadParams);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker
