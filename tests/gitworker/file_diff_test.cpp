// tests/gitworker/file_diff_test.cpp: the file_diff op (gitworker/
// file_diff_op.cpp) in-process against real repositories: its hunks equal
// what `git diff -U3 --no-renames` prints for a corpus of changes; bad paths
// are refused; caps, binary, untracked and special files; a base tree.
// And its rule helpers (gitworker/file_diff.hpp) directly.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "gitworker/file_diff.hpp"
#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "gitworker/untracked.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using testing::GitRepo;

// ---- git's unified diff, parsed ---------------------------------------------

struct Line {
  std::string kind;
  std::string text;
  std::optional<int> old_line;
  std::optional<int> new_line;
  bool operator==(const Line&) const = default;
};

struct Hunk {
  int old_start = 0, old_count = 0, new_start = 0, new_count = 0;
  std::string heading;
  std::vector<Line> lines;
  bool operator==(const Hunk&) const = default;
};

void PrintTo(const Hunk& h, std::ostream* os) {
  *os << "\n@@ -" << h.old_start << "," << h.old_count << " +" << h.new_start << ","
      << h.new_count << " @@ [" << h.heading << "]\n";
  for (const Line& l : h.lines)
    *os << "  " << l.kind << " " << l.old_line.value_or(0) << " " << l.new_line.value_or(0)
        << " |" << l.text << "|\n";
}

// "-a,b" or "-a" (count 1).
void parse_range(const std::string& s, int& start, int& count) {
  const auto comma = s.find(',');
  start = std::stoi(s.substr(1, comma == std::string::npos ? std::string::npos : comma - 1));
  count = comma == std::string::npos ? 1 : std::stoi(s.substr(comma + 1));
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(0, 1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Hunks of one file's `git diff` output, with the line numbers git implies.
std::vector<Hunk> parse_git_diff(const std::string& out) {
  std::vector<Hunk> hunks;
  int old_no = 0, new_no = 0;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    const std::string line = out.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.rfind("@@ -", 0) == 0) {
      Hunk h;
      const auto plus = line.find(" +");
      const auto end = line.find(" @@", plus);
      parse_range(line.substr(3, plus - 3), h.old_start, h.old_count);
      parse_range(line.substr(plus + 1, end - plus - 1), h.new_start, h.new_count);
      h.heading = trimmed(line.substr(end + 3));
      old_no = h.old_start;
      new_no = h.new_start;
      hunks.push_back(h);
      continue;
    }
    if (hunks.empty() || line.empty()) continue;
    if (line.rfind("diff --git", 0) == 0) break;
    const std::string text = line.substr(1);
    std::vector<Line>& lines = hunks.back().lines;
    switch (line[0]) {
      case ' ': lines.push_back({"context", text, old_no++, new_no++}); break;
      case '-': lines.push_back({"removed", text, old_no++, std::nullopt}); break;
      case '+': lines.push_back({"added", text, std::nullopt, new_no++}); break;
      case '\\':
        lines.push_back({"no_newline", "No newline at end of file", std::nullopt, std::nullopt});
        break;
      default: break;
    }
  }
  return hunks;
}

std::vector<Hunk> hunks_of(const Json& content) {
  std::vector<Hunk> hunks;
  for (const Json& j : content.at("hunks")) {
    Hunk h{j.at("old_start"), j.at("old_count"), j.at("new_start"), j.at("new_count"),
           j.at("heading"), {}};
    for (const Json& l : j.at("lines")) {
      Line line{l.at("kind"), l.at("text"), std::nullopt, std::nullopt};
      if (l.contains("old_line")) line.old_line = l.at("old_line").get<int>();
      if (l.contains("new_line")) line.new_line = l.at("new_line").get<int>();
      h.lines.push_back(line);
    }
    hunks.push_back(h);
  }
  return hunks;
}

// ---- running the op -------------------------------------------------------------

Result<gw::FileDiffResult> diff_of(const GitRepo& repo, const std::string& path,
                                   std::optional<std::string> base = std::nullopt) {
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::FileDiff;
  request.repo = repo.root();
  request.path = path;
  request.base_tree = std::move(base);
  return file_diff(request);
}

// The op's text content for `path`, expected OK.
Json content_of(const GitRepo& repo, const std::string& path,
                std::optional<std::string> base = std::nullopt) {
  auto result = diff_of(repo, path, std::move(base));
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (!result.ok()) return Json();
  return result->content;
}

std::vector<Hunk> git_hunks(const GitRepo& repo, std::initializer_list<std::string> args) {
  std::vector<std::string> argv{SIGNALTTY_GIT_PROGRAM, "--literal-pathspecs", "diff",
                                "-U3", "--no-renames", "--no-ext-diff", "--no-textconv"};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::Run run = testing::run_program(argv, repo.root());
  EXPECT_TRUE(run.exited_with(0)) << run.err;
  return parse_git_diff(run.out);
}

// file_diff's hunks equal `git diff HEAD -- path`'s, and are not empty.
void expect_like_git(const GitRepo& repo, const std::string& path) {
  const Json content = content_of(repo, path);
  ASSERT_EQ(content.value("kind", ""), "text") << content.dump();
  EXPECT_FALSE(content.at("truncated").get<bool>());
  const std::vector<Hunk> expected = git_hunks(repo, {"HEAD", "--", path});
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(hunks_of(content), expected);
}

std::string numbered(int from, int to, const std::string& prefix = "line ") {
  std::string s;
  for (int i = from; i <= to; ++i) s += prefix + std::to_string(i) + "\n";
  return s;
}

// Lines 1..n, with the ones in `changed` rewritten.
std::string edited(int n, std::initializer_list<int> changed) {
  std::string s;
  for (int i = 1; i <= n; ++i) {
    bool c = false;
    for (int x : changed) c = c || x == i;
    s += (c ? "changed " : "line ") + std::to_string(i) + "\n";
  }
  return s;
}

bool refused(const GitRepo& repo, const std::string& path) {
  auto result = diff_of(repo, path);
  return !result.ok() && result.error().code == ErrorCode::BadParams;
}

// ---- the corpus, against git -------------------------------------------------------

TEST(GitFileDiff, OneLineEditMatchesGit) {
  GitRepo repo;
  repo.write("a.txt", numbered(1, 10));
  repo.commit_all("a");
  repo.write("a.txt", edited(10, {5}));
  expect_like_git(repo, "a.txt");
}

TEST(GitFileDiff, FarApartChangesAreSeparateHunks) {
  GitRepo repo;
  repo.write("a.txt", numbered(1, 100));
  repo.commit_all("a");
  repo.write("a.txt", edited(100, {10, 50, 90}));
  expect_like_git(repo, "a.txt");
  EXPECT_EQ(hunks_of(content_of(repo, "a.txt")).size(), 3u);
}

TEST(GitFileDiff, ChangesWithinSixLinesShareAHunk) {
  GitRepo repo;
  repo.write("a.txt", numbered(1, 40));
  repo.commit_all("a");
  repo.write("a.txt", edited(40, {10, 17, 25}));  // 6 lines apart, then 7
  expect_like_git(repo, "a.txt");
  EXPECT_EQ(hunks_of(content_of(repo, "a.txt")).size(), 2u);
}

TEST(GitFileDiff, StagedAndUnstagedEditsBothShowAgainstHead) {
  GitRepo repo;
  repo.write("a.txt", numbered(1, 30));
  repo.commit_all("a");
  repo.write("a.txt", edited(30, {2}));
  repo.git({"add", "a.txt"});
  repo.write("a.txt", edited(30, {2, 28}));
  expect_like_git(repo, "a.txt");
  EXPECT_EQ(hunks_of(content_of(repo, "a.txt")).size(), 2u);
}

TEST(GitFileDiff, DeletedFilesMatchGit) {
  GitRepo repo;
  repo.write("gone.txt", numbered(1, 5));
  repo.write("staged-gone.txt", numbered(1, 3));
  repo.commit_all("files");
  ::unlink(repo.path("gone.txt").c_str());
  repo.git({"rm", "-q", "staged-gone.txt"});
  expect_like_git(repo, "gone.txt");
  expect_like_git(repo, "staged-gone.txt");
}

TEST(GitFileDiff, NewStagedFileMatchesGit) {
  GitRepo repo;
  repo.write("new.txt", numbered(1, 4));
  repo.git({"add", "new.txt"});
  expect_like_git(repo, "new.txt");
  EXPECT_FALSE(diff_of(repo, "new.txt")->untracked);
}

TEST(GitFileDiff, UntrackedFileIsAllAdditions) {
  GitRepo repo;
  repo.write("dir/new.txt", numbered(1, 4));
  auto result = diff_of(repo, "dir/new.txt");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->untracked);
  const std::vector<Hunk> ours = hunks_of(result->content);
  repo.git({"add", "-N", "dir/new.txt"});  // now git diff shows it
  EXPECT_EQ(ours, git_hunks(repo, {"HEAD", "--", "dir/new.txt"}));
  ASSERT_EQ(ours.size(), 1u);
  EXPECT_EQ(ours[0].old_start, 0);
  EXPECT_EQ(ours[0].new_count, 4);
}

TEST(GitFileDiff, MissingNewlineAtEndMatchesGit) {
  GitRepo repo;
  repo.write("old.txt", "a\nb\nc");
  repo.write("both.txt", "a\nb\nc");
  repo.commit_all("no newline");
  repo.write("old.txt", "a\nb\nc\n");
  repo.write("both.txt", "a\nb\nd");
  repo.write("new.txt", "x\ny");
  repo.git({"add", "new.txt"});
  for (const char* path : {"old.txt", "both.txt", "new.txt"}) {
    SCOPED_TRACE(path);
    expect_like_git(repo, path);
  }
  const std::vector<Hunk> hunks = hunks_of(content_of(repo, "both.txt"));
  ASSERT_EQ(hunks.size(), 1u);
  EXPECT_EQ(hunks[0].lines.back().kind, "no_newline");
}

TEST(GitFileDiff, CarriageReturnsStayInTheText) {
  GitRepo repo;
  repo.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
  repo.commit_all("crlf");
  repo.write("crlf.txt", "one\r\nTWO\r\nthree\r\n");
  expect_like_git(repo, "crlf.txt");
  EXPECT_EQ(hunks_of(content_of(repo, "crlf.txt"))[0].lines[1].text, "two\r");
}

TEST(GitFileDiff, HeadingIsTheEnclosingFunctionLine) {
  GitRepo repo;
  const std::string body = "  int x = a;\n" + numbered(1, 12, "  x += ") + "  return x;\n}\n";
  repo.write("f.c", "#include <stdio.h>\n\nint add(int a, int b)\n{\n" + body);
  repo.commit_all("c");
  std::string changed = "#include <stdio.h>\n\nint add(int a, int b)\n{\n" + body;
  changed.replace(changed.find("x += 9"), 6, "x -= 9");
  repo.write("f.c", changed);
  expect_like_git(repo, "f.c");
  EXPECT_EQ(hunks_of(content_of(repo, "f.c"))[0].heading, "int add(int a, int b)");
}

TEST(GitFileDiff, UnbornHeadComparesWithTheEmptyTree) {
  testing::TempDir dir("signaltty-unborn");
  testing::git(dir.path(), {"init", "-q", "-b", "main", "."});
  testing::write_file(dir.file("first.txt"), "1\n2\n");
  testing::git(dir.path(), {"add", "first.txt"});
  init_libgit2();
  gw::Request request;
  request.op = gw::Op::FileDiff;
  request.repo = dir.path();
  request.path = "first.txt";
  auto result = file_diff(request);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_FALSE(result->untracked);
  const std::vector<Hunk> hunks = hunks_of(result->content);
  const std::vector<Hunk> expected{
      {0, 0, 1, 2, "", {{"added", "1", std::nullopt, 1}, {"added", "2", std::nullopt, 2}}}};
  EXPECT_EQ(hunks, expected);
}

TEST(GitFileDiff, WildcardNamesAreLiteral) {
  GitRepo repo;
  repo.write("*.txt", "star\n");
  repo.write("b.txt", "bee\n");
  repo.commit_all("glob");
  repo.write("*.txt", "star 2\n");
  repo.write("b.txt", "bee 2\n");
  expect_like_git(repo, "*.txt");
  EXPECT_EQ(content_of(repo, "*.txt").dump().find("bee"), std::string::npos);
  repo.write("[ab].txt", "class\n");  // untracked, and "b.txt" would match it as a glob
  EXPECT_TRUE(diff_of(repo, "[ab].txt")->untracked);
  EXPECT_EQ(content_of(repo, "[ab].txt").dump().find("bee"), std::string::npos);
}

TEST(GitFileDiff, UnmergedFileShowsTheConflictAsGitDoes) {
  GitRepo repo;
  repo.write("c.txt", "base\n");
  repo.commit_all("base");
  repo.git({"checkout", "-q", "-b", "other"});
  repo.write("c.txt", "other\n");
  repo.commit_all("other");
  repo.git({"checkout", "-q", "main"});
  repo.write("c.txt", "main\n");
  repo.commit_all("main");
  EXPECT_FALSE(testing::run_program({SIGNALTTY_GIT_PROGRAM, "merge", "-q", "other"}, repo.root())
                   .exited_with(0));  // the conflict
  expect_like_git(repo, "c.txt");
}

// ---- what is refused, what has no text ------------------------------------------------

TEST(GitFileDiff, BadPathsAreRefused) {
  GitRepo repo;
  repo.write("sub/x", "x\n");
  repo.write("dir/y", "y\n");
  repo.commit_all("dirs");
  for (const std::string& path :
       {std::string(""), std::string("/etc/passwd"), std::string("../x"), std::string("a/../b"),
        std::string("."), std::string(".git/config"), std::string(".GIT/config"),
        std::string("sub/.git/x"), std::string("a\0b", 3), std::string("dir/"),
        std::string("dir//y"), std::string("dir"), std::string("bad\xff.txt"),
        std::string("nonexistent.txt")}) {
    EXPECT_TRUE(refused(repo, path)) << path;
  }
}

TEST(GitFileDiff, UnchangedFileIsUnchanged) {
  GitRepo repo;
  EXPECT_EQ(content_of(repo, "README").value("kind", ""), "unchanged");
}

TEST(GitFileDiff, IgnoredFileIsUnavailable) {
  GitRepo repo;
  repo.write(".gitignore", "*.log\nbuild/\n");
  repo.commit_all("ignore");
  repo.write("x.log", "secret\n");
  repo.write("build/out.txt", "out\n");
  for (const char* path : {"x.log", "build/out.txt"}) {
    auto result = diff_of(repo, path);
    ASSERT_TRUE(result.ok()) << path;
    EXPECT_TRUE(result->untracked) << path;
    EXPECT_EQ(result->content, reason_content("unavailable", "ignored by .gitignore")) << path;
  }
  // Tracked despite the rule: its changes show.
  repo.git({"add", "-f", "x.log"});
  repo.commit_all("forced");
  repo.write("x.log", "public\n");
  expect_like_git(repo, "x.log");
}

TEST(GitFileDiff, BinaryTrackedFileIsBinary) {
  GitRepo repo;
  repo.write("blob.bin", std::string("a\0b\0c", 5));
  repo.commit_all("bin");
  repo.write("blob.bin", std::string("a\0b\0d", 5));
  const Json content = content_of(repo, "blob.bin");
  EXPECT_EQ(content.value("kind", ""), "binary");
  EXPECT_EQ(content.value("reason", ""), "binary file");
}

TEST(GitFileDiff, TrackedFilesOver4MiBAreNotDiffed) {
  GitRepo repo;
  repo.write("huge.txt", std::string(5 << 20, 'a'));
  repo.commit_all("huge");
  repo.write("huge.txt", std::string(5 << 20, 'b'));
  EXPECT_EQ(content_of(repo, "huge.txt"), reason_content("binary", "over 4 MiB"));
}

TEST(GitFileDiff, ModeChangeOnlyIsANotice) {
  GitRepo repo;
  ASSERT_EQ(::chmod(repo.path("README").c_str(), 0755), 0);
  const Json content = content_of(repo, "README");
  EXPECT_EQ(content.value("kind", ""), "text");
  EXPECT_TRUE(content.at("hunks").empty());
  EXPECT_EQ(content.value("notice", ""), "mode changed 100644 → 100755");
}

TEST(GitFileDiff, EmptyNewFilesAreANotice) {
  GitRepo repo;
  repo.write("staged-empty", "");
  repo.git({"add", "staged-empty"});
  repo.write("untracked-empty", "");
  for (const char* path : {"staged-empty", "untracked-empty"}) {
    const Json content = content_of(repo, path);
    EXPECT_EQ(content.value("kind", ""), "text") << path;
    EXPECT_TRUE(content.at("hunks").empty()) << path;
    EXPECT_EQ(content.value("notice", ""), "empty file") << path;
  }
}

TEST(GitFileDiff, InvalidUtf8IsReplacedWithANotice) {
  GitRepo repo;
  repo.write("latin1.txt", "caf\xe9\n");
  const Json content = content_of(repo, "latin1.txt");
  ASSERT_EQ(content.value("kind", ""), "text");
  EXPECT_EQ(hunks_of(content)[0].lines[0].text, "caf\xEF\xBF\xBD");
  EXPECT_NE(content.value("notice", "").find("U+FFFD"), std::string::npos);
  EXPECT_NO_THROW((void)content.dump());
}

// ---- caps -------------------------------------------------------------------------------

TEST(GitFileDiff, LinesAreCappedAtTenThousand) {
  GitRepo repo;
  repo.write("big.txt", numbered(1, 20000));
  repo.commit_all("big");
  repo.write("big.txt", numbered(1, 20000, "new "));
  const Json content = content_of(repo, "big.txt");
  ASSERT_EQ(content.value("kind", ""), "text");
  EXPECT_TRUE(content.at("truncated").get<bool>());
  EXPECT_NE(content.value("notice", "").find("10000 lines"), std::string::npos);
  std::size_t lines = 0;
  for (const Hunk& h : hunks_of(content)) lines += h.lines.size();
  EXPECT_EQ(lines, kMaxPreviewLines);
  const Hunk first = hunks_of(content).at(0);
  EXPECT_EQ(first.old_count, 20000);  // as git printed it
}

TEST(GitFileDiff, BytesAreCappedAt512KiBOfCompleteLines) {
  GitRepo repo;
  const std::string line(99, 'x');
  std::string text;
  while (text.size() < 600 * 1024) text += line + "\n";
  repo.write("wide.txt", text);
  repo.git({"add", "wide.txt"});
  const Json content = content_of(repo, "wide.txt");
  ASSERT_EQ(content.value("kind", ""), "text");
  EXPECT_TRUE(content.at("truncated").get<bool>());
  EXPECT_NE(content.value("notice", "").find("512 KiB"), std::string::npos);
  std::size_t bytes = 0;
  const std::vector<Hunk> hunks = hunks_of(content);
  ASSERT_EQ(hunks.size(), 1u);
  for (const Line& l : hunks[0].lines) {
    EXPECT_EQ(l.text, line);
    bytes += l.text.size();
  }
  EXPECT_LE(bytes, kMaxPreviewBytes);
  EXPECT_GT(bytes, kMaxPreviewBytes - line.size() - 1);
}

// ---- untracked special files ------------------------------------------------------------

TEST(GitFileDiff, UntrackedSymlinkIsNeverFollowed) {
  GitRepo repo;
  ASSERT_EQ(::symlink("/etc/passwd", repo.path("passwd").c_str()), 0);
  ASSERT_EQ(::symlink("/etc", repo.path("etc").c_str()), 0);
  auto result = diff_of(repo, "passwd");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->untracked);
  EXPECT_EQ(result->content, reason_content("binary", "symlink"));
  EXPECT_EQ(result->content.dump().find("root:"), std::string::npos);
  // Through a symlinked directory there is no file, as for git.
  EXPECT_TRUE(refused(repo, "etc/passwd"));
}

TEST(GitFileDiff, UntrackedFifoDoesNotBlock) {
  GitRepo repo;
  ASSERT_EQ(::mkfifo(repo.path("pipe").c_str(), 0644), 0);
  auto result = diff_of(repo, "pipe");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->untracked);
  EXPECT_EQ(result->content, reason_content("binary", "not a regular file"));
}

TEST(GitFileDiff, LargeOrBinaryUntrackedFilesAreBinary) {
  GitRepo repo;
  repo.write("large.txt", std::string(kUntrackedReadCap + 1, 'a'));
  repo.write("nul.dat", std::string("text\0more\n", 10));
  EXPECT_EQ(content_of(repo, "large.txt"), reason_content("binary", "over 512 KiB"));
  EXPECT_EQ(content_of(repo, "nul.dat"), reason_content("binary", "binary file"));
}

// ---- base_tree ---------------------------------------------------------------------------

TEST(GitFileDiff, BaseTreeIsComparedWithTheFileOnDisk) {
  GitRepo repo;
  repo.write("a.txt", numbered(1, 20));
  repo.commit_all("v0");
  repo.write("a.txt", edited(20, {3}));
  repo.git({"add", "a.txt"});
  std::string tree = repo.git({"write-tree"});
  tree.pop_back();  // '\n'
  repo.git({"reset", "-q"});
  repo.write("a.txt", edited(20, {3, 15}));
  const Json content = content_of(repo, "a.txt", tree);
  ASSERT_EQ(content.value("kind", ""), "text") << content.dump();
  const std::vector<Hunk> expected = git_hunks(repo, {tree, "--", "a.txt"});
  EXPECT_EQ(hunks_of(content), expected);
  ASSERT_EQ(expected.size(), 1u);  // line 3 is the same as in the base tree
  EXPECT_EQ(hunks_of(content_of(repo, "a.txt")).size(), 2u);  // against HEAD: both
  auto bad = diff_of(repo, "a.txt", std::string(40, '0'));
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(diff_of(repo, "a.txt", "HEAD").ok());
}

// ---- the rule helpers ----------------------------------------------------------------------

TEST(GitFileDiffRules, LiteralPaths) {
  EXPECT_TRUE(check_literal_path("a.txt").ok());
  EXPECT_TRUE(check_literal_path("dir/*.txt").ok());
  EXPECT_TRUE(check_literal_path(".gitignore").ok());
  EXPECT_TRUE(check_literal_path("a/.github/x").ok());
  EXPECT_TRUE(check_literal_path("caf\xC3\xA9").ok());
  for (std::string_view bad : {"", "/a", "a//b", "a/", "./a", "a/..", ".Git", "x/.gIT/y",
                               "\xC0\xAF", "\xED\xA0\x80"})
    EXPECT_FALSE(check_literal_path(bad).ok()) << bad;
}

TEST(GitFileDiffRules, RepairUtf8) {
  bool replaced = false;
  EXPECT_EQ(repair_utf8("h\xC3\xA9llo \xF0\x9F\x98\x80", replaced), "h\xC3\xA9llo \xF0\x9F\x98\x80");
  EXPECT_FALSE(replaced);
  EXPECT_EQ(repair_utf8("a\xFF" "b\xE2\x82", replaced), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(replaced);
}

TEST(GitFileDiffRules, HunkHeading) {
  EXPECT_EQ(hunk_heading("@@ -1,2 +1,3 @@ int main()\n"), "int main()");
  EXPECT_EQ(hunk_heading("@@ -1 +1 @@\n"), "");
  EXPECT_EQ(hunk_heading("@@ -1 +1 @@  spaced  \r\n"), "spaced");
}

TEST(GitFileDiffRules, PreviewKeepsCompleteLinesUpToTheCap) {
  TextPreview preview(PreviewLimits{12, 100});
  git_diff_hunk hunk{};
  const std::string header = "@@ -1,3 +1,3 @@ f\n";
  std::memcpy(hunk.header, header.data(), header.size());
  hunk.header_len = header.size();
  hunk.old_start = hunk.new_start = 1;
  hunk.old_lines = hunk.new_lines = 3;
  preview.begin_hunk(hunk);
  git_diff_line line{};
  line.origin = GIT_DIFF_LINE_CONTEXT;
  line.old_lineno = line.new_lineno = 1;
  line.content = "12345\n";
  line.content_len = 6;
  EXPECT_TRUE(preview.add_line(line));
  EXPECT_TRUE(preview.add_line(line));   // 10 bytes
  EXPECT_FALSE(preview.add_line(line));  // 15 > 12: left out, and all after it
  line.content = "1\n";
  line.content_len = 2;
  EXPECT_FALSE(preview.add_line(line));
  const Json content = std::move(preview).content();
  EXPECT_TRUE(content.at("truncated").get<bool>());
  EXPECT_EQ(content.at("notice"), "the preview stops at 12 bytes");
  const std::vector<Hunk> hunks = hunks_of(content);
  ASSERT_EQ(hunks.size(), 1u);
  EXPECT_EQ(hunks[0].heading, "f");
  EXPECT_EQ(hunks[0].old_count, 3);
  EXPECT_EQ(hunks[0].lines.size(), 2u);
}

TEST(GitFileDiffRules, PreviewDropsAHunkCappedBeforeItsFirstLine) {
  TextPreview preview(PreviewLimits{100, 1});
  git_diff_hunk hunk{};
  hunk.old_start = hunk.new_start = 1;
  git_diff_line line{};
  line.origin = GIT_DIFF_LINE_ADDITION;
  line.new_lineno = 1;
  line.content = "x";
  line.content_len = 1;
  preview.begin_hunk(hunk);
  EXPECT_TRUE(preview.add_line(line));
  preview.begin_hunk(hunk);
  EXPECT_FALSE(preview.add_line(line));
  const Json content = std::move(preview).content();
  EXPECT_EQ(content.at("hunks").size(), 1u);
  EXPECT_EQ(content.at("notice"), "the preview stops at 1 lines");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker
