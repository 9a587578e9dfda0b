// tests/gitworker/numstat_test.cpp: the diff op (gitworker/numstat_op.cpp)
// in-process against real repositories: its tracked files equal what `git
// diff --numstat --no-renames HEAD` prints for a corpus of changes
// (staged and unstaged, deleted, binary, CRLF, renamed, mode, huge,
// typechange, submodule, unborn HEAD); untracked files carry their line
// counts; ignored files are absent. And read_untracked
// (gitworker/untracked.hpp) directly: symlinks, FIFOs, caps, NUL.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
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

// One file as a comparable line: "path added removed [binary] [untracked]".
std::string numstat_line(const protocol::DiffFile& f) {
  return f.path + " " + std::to_string(f.added) + " " + std::to_string(f.removed) +
         (f.binary ? " binary" : "") + (f.untracked ? " untracked" : "");
}

// `git diff --numstat -z --no-renames <args>` as numstat_lines, in git's order.
std::vector<std::string> git_numstat(const std::string& dir, std::initializer_list<std::string> args) {
  std::vector<std::string> argv{SIGNALTTY_GIT_PROGRAM, "diff",          "--numstat",
                                "-z",                  "--no-renames",  "--no-ext-diff",
                                "--no-textconv"};
  argv.insert(argv.end(), args.begin(), args.end());
  const testing::Run run = testing::run_program(argv, dir);
  EXPECT_TRUE(run.exited_with(0)) << run.err;
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < run.out.size()) {
    const std::size_t end = run.out.find('\0', pos);
    const std::string record = run.out.substr(pos, end - pos);
    pos = end + 1;
    const auto tab1 = record.find('\t'), tab2 = record.find('\t', tab1 + 1);
    const std::string added = record.substr(0, tab1), removed = record.substr(tab1 + 1, tab2 - tab1 - 1);
    const std::string path = record.substr(tab2 + 1);
    lines.push_back(added == "-" ? path + " 0 0 binary" : path + " " + added + " " + removed);
  }
  return lines;
}

Result<gw::DiffResult> numstat_at(const std::string& root,
                                  std::optional<std::string> base = std::nullopt) {
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::Diff;
  request.repo = root;
  request.base_tree = std::move(base);
  return diff_numstat(request);
}

// The op's files, tracked and untracked apart; expected OK.
struct NumstatSplit {
  std::vector<std::string> tracked, untracked, all;
};
NumstatSplit numstat_split(const std::string& root) {
  NumstatSplit split;
  auto result = numstat_at(root);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (!result.ok()) return split;
  for (const auto& f : result->files) {
    (f.untracked ? split.untracked : split.tracked).push_back(numstat_line(f));
    split.all.push_back(f.path);
  }
  return split;
}

std::string many_lines(int n, const std::string& word) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += word + " " + std::to_string(i) + "\n";
  return s;
}

bool sorted_bytewise(const std::vector<std::string>& paths) {
  return std::is_sorted(paths.begin(), paths.end());
}

// ---- against git -------------------------------------------------------------

TEST(GitNumstat, CorpusMatchesGitDiffNumstatHead) {
  GitRepo repo;
  repo.write("edit.txt", many_lines(30, "line"));
  repo.write("both.txt", many_lines(20, "line"));
  repo.write("gone.txt", many_lines(5, "line"));
  repo.write("bin.dat", std::string("a\0b\0c", 5));
  repo.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
  repo.write("old-name.txt", many_lines(8, "moving"));
  repo.write("mode.sh", "echo hi\n");
  repo.write("big.txt", many_lines(200'000, "row"));  // about 2 MiB
  repo.write("link-later", "a file, then a symlink\n");
  repo.write("dir/nested.txt", "x\n");
  repo.write("uncached.txt", "kept on disk\n");
  repo.write(".gitignore", "*.log\n");
  repo.commit_all("corpus");

  std::string edit = many_lines(30, "line");
  edit.replace(edit.find("line 7\n"), 7, "seven\nand more\n");
  repo.write("edit.txt", edit);
  repo.write("both.txt", "staged\n" + many_lines(20, "line"));
  repo.git({"add", "both.txt"});
  repo.write("both.txt", "staged\n" + many_lines(19, "line") + "unstaged tail\n");
  ASSERT_EQ(::unlink(repo.path("gone.txt").c_str()), 0);
  repo.write("bin.dat", std::string("a\0b\0d\0e", 7));
  repo.write("crlf.txt", "one\r\n2\r\nthree\r\nfour\r\n");
  repo.git({"mv", "old-name.txt", "new-name.txt"});
  ASSERT_EQ(::chmod(repo.path("mode.sh").c_str(), 0755), 0);
  std::string big = many_lines(200'000, "row");
  big.replace(big.find("row 100000\n"), 11, "ROW 100000\n");
  repo.write("big.txt", big + "appended\n");
  ASSERT_EQ(::unlink(repo.path("link-later").c_str()), 0);
  ASSERT_EQ(::symlink("dir/nested.txt", repo.path("link-later").c_str()), 0);
  repo.write("dir/nested.txt", "x\ny\n");
  repo.write("staged-new.txt", "new\nfile\n");
  repo.git({"add", "staged-new.txt"});
  repo.write("debug.log", "ignored\n");
  repo.git({"rm", "-q", "--cached", "uncached.txt"});  // a deletion, as git shows it

  const NumstatSplit split = numstat_split(repo.root());
  const std::vector<std::string> expected = git_numstat(repo.root(), {"HEAD"});
  EXPECT_EQ(split.tracked, expected);
  EXPECT_TRUE(sorted_bytewise(split.all));
  EXPECT_TRUE(split.untracked.empty());
}

TEST(GitNumstat, UnbornHeadComparesWithTheEmptyTree) {
  testing::TempDir dir("signaltty-numstat-unborn");
  testing::git(dir.path(), {"init", "-q", "-b", "main", "."});
  testing::write_file(dir.file("a.txt"), "one\ntwo\n");
  testing::write_file(dir.file("b.txt"), "b\n");
  testing::git(dir.path(), {"add", "a.txt", "b.txt"});
  testing::write_file(dir.file("a.txt"), "one\ntwo\nthree\n");  // unstaged on top
  testing::write_file(dir.file("c.txt"), "untracked\n");

  auto result = numstat_at(dir.path());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->branch, "main");
  std::vector<std::string> tracked, untracked;
  for (const auto& f : result->files) (f.untracked ? untracked : tracked).push_back(numstat_line(f));
  // git diff against the empty tree is `git diff HEAD` before the first commit.
  EXPECT_EQ(tracked, git_numstat(dir.path(), {"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}));
  EXPECT_EQ(untracked, std::vector<std::string>{"c.txt 1 0 untracked"});
}

TEST(GitNumstat, MovedSubmoduleCountsLikeGit) {
  GitRepo sub;
  GitRepo repo;
  repo.git({"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root(), "sub"});
  repo.commit_all("add sub");
  const std::string sub_checkout = repo.path("sub");
  testing::write_file(sub_checkout + "/README", "moved on\n");
  testing::git(sub_checkout, {"commit", "-q", "-am", "move"});

  const NumstatSplit split = numstat_split(repo.root());
  const std::vector<std::string> expected = git_numstat(repo.root(), {"HEAD"});
  ASSERT_EQ(expected, std::vector<std::string>{"sub 1 1"});
  EXPECT_EQ(split.tracked, expected);

  // A submodule with uncommitted changes on top: still one line each way.
  testing::write_file(sub_checkout + "/README", "dirty too\n");
  EXPECT_EQ(numstat_split(repo.root()).tracked, git_numstat(repo.root(), {"HEAD"}));
}

// ---- untracked files -------------------------------------------------------------

TEST(GitNumstat, UntrackedFilesAreListedOneByOneWithTheirLines) {
  GitRepo repo;
  repo.write(".gitignore", "*.log\nbuild/\n");
  repo.commit_all("ignore");
  repo.write("newdir/a.txt", "1\n2\n3\n");
  repo.write("newdir/deeper/b.txt", "no newline at end");
  repo.write("newdir/empty.txt", "");
  repo.write("newdir/crlf.txt", "a\r\nb\r\n");
  repo.write("top.txt", many_lines(10, "t"));
  repo.write("skip.log", "ignored\n");
  repo.write("build/out.txt", "ignored dir\n");

  const NumstatSplit split = numstat_split(repo.root());
  EXPECT_TRUE(split.tracked.empty());
  EXPECT_EQ(split.untracked, (std::vector<std::string>{
                                 "newdir/a.txt 3 0 untracked",
                                 "newdir/crlf.txt 2 0 untracked",
                                 "newdir/deeper/b.txt 1 0 untracked",
                                 "newdir/empty.txt 0 0 untracked",
                                 "top.txt 10 0 untracked",
                             }));
}

TEST(GitNumstat, UntrackedSpecialFilesAreBinaryWithZeroCounts) {
  GitRepo repo;
  repo.write("nul.bin", std::string("text\0more", 9));
  repo.write("large.txt", std::string(kUntrackedReadCap + 1, 'x'));
  repo.write("exact.txt", std::string(kUntrackedReadCap - 1, 'x') + "\n");
  ASSERT_EQ(::symlink("/etc/passwd", repo.path("link").c_str()), 0);
  ASSERT_EQ(::mkfifo(repo.path("fifo").c_str(), 0644), 0);
  GitRepo nested_source;
  testing::git(repo.root(), {"clone", "-q", nested_source.root(), "nested"});

  const NumstatSplit split = numstat_split(repo.root());
  // libgit2's walk of the checkout skips the FIFO; nothing opens it. A
  // repository inside is one entry, not its files.
  EXPECT_EQ(split.untracked, (std::vector<std::string>{
                                 "exact.txt 1 0 untracked",
                                 "large.txt 0 0 binary untracked",
                                 "link 0 0 binary untracked",
                                 "nested 0 0 binary untracked",
                                 "nul.bin 0 0 binary untracked",
                             }));
}

TEST(GitNumstat, CleanCheckoutHasNoFilesAndNamesItsBranch) {
  GitRepo repo;
  auto result = numstat_at(repo.root());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->files.empty());
  EXPECT_EQ(result->branch, "main");

  repo.git({"checkout", "-q", "--detach"});
  result = numstat_at(repo.root());
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->branch.has_value());
}

TEST(GitNumstat, BadBaseTreesAreRefused) {
  GitRepo repo;
  const std::string commit = testing::git(repo.root(), {"rev-parse", "HEAD"}).substr(0, 40);
  const std::string blob = testing::git(repo.root(), {"rev-parse", "HEAD:README"}).substr(0, 40);
  for (const std::string& bad : {std::string("xyz"), std::string(40, 'g'), std::string(40, '1'),
                                 blob, commit.substr(0, 39)}) {
    auto result = numstat_at(repo.root(), bad);
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_EQ(result.error().code, ErrorCode::BadParams) << bad << ": " << result.error().message;
  }
}

TEST(GitNumstat, BaseTreeIsComparedWithTheFilesOnDisk) {
  GitRepo repo;
  repo.write("a.txt", "1\n2\n");
  repo.commit_all("a");
  const std::string tree = testing::git(repo.root(), {"rev-parse", "HEAD^{tree}"}).substr(0, 40);
  repo.write("a.txt", "1\n2\n3\n");
  repo.git({"add", "a.txt"});      // staged or not: the file on disk counts
  repo.write("b.txt", "b\n");
  repo.git({"add", "b.txt"});      // in the index, not in the base tree: untracked
  ASSERT_EQ(::unlink(repo.path("README").c_str()), 0);

  auto result = numstat_at(repo.root(), tree);
  ASSERT_TRUE(result.ok()) << result.error().message;
  std::vector<std::string> lines;
  for (const auto& f : result->files) lines.push_back(numstat_line(f));
  EXPECT_EQ(lines, (std::vector<std::string>{"README 0 1", "a.txt 1 0", "b.txt 1 0 untracked"}));
}

TEST(GitNumstat, NotARepositoryIsBadParams) {
  testing::TempDir dir("signaltty-numstat-none");
  auto result = numstat_at(dir.path());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadParams);
}

// ---- read_untracked --------------------------------------------------------------

TEST(GitUntrackedReader, TextIsReadAndCountedLikeGit) {
  testing::TempDir dir("signaltty-untracked");
  ASSERT_EQ(::mkdir(dir.file("d").c_str(), 0755), 0);
  testing::write_file(dir.file("d/f"), "a\nb\nc");
  const UntrackedFile f = read_untracked(dir.path(), "d/f");
  EXPECT_EQ(f.kind, UntrackedKind::Text);
  EXPECT_EQ(f.content, "a\nb\nc");
  EXPECT_EQ(f.lines, 3u);
  EXPECT_EQ(count_lines(""), 0u);
  EXPECT_EQ(count_lines("\n"), 1u);
  EXPECT_EQ(count_lines("x\ny\n"), 2u);
}

TEST(GitUntrackedReader, NulInTheFirst8000BytesIsBinary) {
  testing::TempDir dir("signaltty-untracked");
  testing::write_file(dir.file("early"), std::string(7999, 'a') + std::string(1, '\0'));
  testing::write_file(dir.file("late"), std::string(8000, 'a') + std::string(1, '\0') + "\n");
  EXPECT_EQ(read_untracked(dir.path(), "early").kind, UntrackedKind::Binary);
  EXPECT_EQ(read_untracked(dir.path(), "late").kind, UntrackedKind::Text);
}

TEST(GitUntrackedReader, SizeCapIsExact) {
  testing::TempDir dir("signaltty-untracked");
  testing::write_file(dir.file("at"), std::string(kUntrackedReadCap, 'a'));
  testing::write_file(dir.file("over"), std::string(kUntrackedReadCap + 1, 'a'));
  EXPECT_EQ(read_untracked(dir.path(), "at").kind, UntrackedKind::Text);
  const UntrackedFile over = read_untracked(dir.path(), "over");
  EXPECT_EQ(over.kind, UntrackedKind::TooLarge);
  EXPECT_TRUE(over.content.empty());
}

TEST(GitUntrackedReader, NoSymlinkIsFollowedAndNoFifoOpened) {
  testing::TempDir dir("signaltty-untracked");
  testing::TempDir outside("signaltty-untracked-outside");
  testing::write_file(outside.file("secret"), "secret\n");
  ASSERT_EQ(::symlink(outside.file("secret").c_str(), dir.file("link").c_str()), 0);
  ASSERT_EQ(::symlink(outside.path().c_str(), dir.file("linkdir").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0644), 0);
  ASSERT_EQ(::mkdir(dir.file("sub").c_str(), 0755), 0);

  EXPECT_EQ(read_untracked(dir.path(), "link").kind, UntrackedKind::NotRegular);
  EXPECT_EQ(read_untracked(dir.path(), "linkdir/secret").kind, UntrackedKind::Unreadable);
  EXPECT_EQ(read_untracked(dir.path(), "fifo").kind, UntrackedKind::NotRegular);
  EXPECT_EQ(read_untracked(dir.path(), "sub").kind, UntrackedKind::NotRegular);
  EXPECT_EQ(read_untracked(dir.path(), "missing").kind, UntrackedKind::Unreadable);
  for (const char* bad : {"", "/etc/passwd", "../x", "a//b", "./link", "sub/..", "sub/"})
    EXPECT_EQ(read_untracked(dir.path(), bad).kind, UntrackedKind::Unreadable) << bad;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker
