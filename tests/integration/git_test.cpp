// tests/integration/git_test.cpp: the repository methods end to end against
// the real broker and its sandboxed gitworker (docs/gitworker.md):
// workspace.refresh_git reads root, branch and dirtiness and emits
// workspace.updated and git.branch_changed; workspace.diff matches
// `git diff --numstat` and rolls files up into dirs; workspace.file_diff
// returns typed hunks matching git's headers and refuses paths outside the
// checkout; a non-repository workspace and a turn-scoped read before any
// turn are refused or empty; worktree.create/list/open/remove keep Git's
// registrations, the open workspaces and worktree.changed in step; and a
// repository whose config names filters, textconv, fsmonitor and hooks
// never gets any of them run.
// Runs in: the integration test binary. Builds repositories with the git
// CLI (the test only: the product never runs git).
// Never: runs git with the user's or the system's git config.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The git CLI on the test's PATH, "" when there is none.
std::string git_program() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/git";
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// A fixed environment for git: no user or system config, a fixed identity
// and dates, so every run sees the same git.
std::vector<std::string> git_env(const TempDirs& dirs) {
  return {"PATH=/usr/local/bin:/usr/bin:/bin",
          "HOME=" + dirs.home(),
          "GIT_CONFIG_NOSYSTEM=1",
          "GIT_CONFIG_GLOBAL=/dev/null",
          "GIT_AUTHOR_NAME=Test",
          "GIT_AUTHOR_EMAIL=test@example.invalid",
          "GIT_COMMITTER_NAME=Test",
          "GIT_COMMITTER_EMAIL=test@example.invalid",
          "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
          "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
          "LC_ALL=C"};
}

std::string canonical(const std::string& path) { return std::filesystem::canonical(path).string(); }

void write_bytes(const std::string& path, std::string_view bytes, mode_t mode = 0644) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_text_file(path, bytes);
  ::chmod(path.c_str(), mode);
}

std::string lines(int from, int to) {
  std::string text;
  for (int i = from; i <= to; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

// One of git's numstat rows.
struct NumStat {
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  bool binary = false;
};

// A hunk header "@@ -a,b +c,d @@".
struct HunkHeader {
  std::uint64_t old_start, old_count, new_start, new_count;
};

class GitMethods : public BrokerTest {
 protected:
  void SetUp() override {
    git_ = git_program();
    if (git_.empty()) GTEST_SKIP() << "no git CLI on PATH";
    start();
    client_.emplace(connect());
  }

  Client& client() { return *client_; }

  // git with `args` in `dir`; a test failure (with git's stderr) when it fails.
  std::string git(const std::string& dir, std::vector<std::string> args) {
    args.insert(args.begin(), {git_, "-C", dir});
    RunResult run = run_program(dirs_, args, git_env(dirs_));
    EXPECT_EQ(run.status.code, 0) << "git " << args[3] << " in " << dir << ": " << run.err;
    return run.out;
  }

  // A fresh repository under the test's root on branch main with one commit
  // of README; returns its canonical path.
  std::string make_repo(const std::string& name) {
    const std::string dir = dirs_.scratch(name);
    std::filesystem::create_directories(dir);
    git(dir, {"init", "-q", "-b", "main", "."});
    write_bytes(dir + "/README", "hello\n");
    commit_all(dir, "initial");
    return canonical(dir);
  }

  void commit_all(const std::string& dir, const std::string& message) {
    git(dir, {"add", "-A"});
    git(dir, {"commit", "-q", "--allow-empty", "-m", message});
  }

  Json open_workspace(const std::string& cwd) {
    return client().call("workspace.create", {{"cwd", cwd}})["workspace"];
  }

  // The error code of `method` (an empty string when it succeeded), with the
  // whole response for the failure message.
  std::pair<std::string, std::string> error_of(std::string_view method, const Json& params) {
    const Json response = client().request(method, params);
    return {error_code(response), response.dump()};
  }

  // A subscriber to `events`, connected before the actions it is to see.
  Client subscriber(const std::vector<std::string>& events) {
    Client sub = connect();
    sub.call("subscribe", {{"events", events}});
    return sub;
  }

  std::map<std::string, NumStat> numstat(const std::string& repo) {
    std::map<std::string, NumStat> rows;
    std::stringstream out(git(repo, {"diff", "--numstat", "--no-renames", "HEAD"}));
    for (std::string line; std::getline(out, line);) {
      std::stringstream fields(line);
      std::string added, removed, path;
      std::getline(fields, added, '\t');
      std::getline(fields, removed, '\t');
      std::getline(fields, path);
      NumStat& row = rows[path];
      row.binary = added == "-";
      if (!row.binary) {
        row.added = std::stoull(added);
        row.removed = std::stoull(removed);
      }
    }
    return rows;
  }

  std::vector<HunkHeader> hunk_headers(const std::string& repo, const std::string& file) {
    std::vector<HunkHeader> headers;
    const std::regex header(R"(^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@)");
    std::stringstream out(git(repo, {"diff", "-U3", "--no-renames", "--no-ext-diff", "HEAD", "--", file}));
    for (std::string line; std::getline(out, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, header)) continue;
      auto num = [&](int i) { return m[i].matched ? std::stoull(m[i].str()) : 1ull; };
      headers.push_back({num(1), num(2), num(3), num(4)});
    }
    return headers;
  }

  std::string git_;
  std::optional<Client> client_;
};

// The first event named `name` whose payload satisfies `pred`, nullopt when
// none arrives before the deadline.
template <class Pred>
std::optional<Json> wait_event(Client& sub, const std::string& name, Pred pred,
                               Deadline deadline = deadline_after()) {
  while (auto ev = sub.next_event(deadline)) {
    if (ev->value("event", "") == name && pred((*ev)["payload"])) return ev;
  }
  return std::nullopt;
}

const Json* find_file(const Json& diff, const std::string& path) {
  for (const Json& file : diff["files"])
    if (file["path"] == path) return &file;
  return nullptr;
}

const Json* find_worktree(const Json& list, const std::string& path) {
  for (const Json& wt : list["worktrees"])
    if (wt["path"] == path) return &wt;
  return nullptr;
}

// ---- refresh_git -------------------------------------------------------------

TEST_F(GitMethods, RefreshReadsBranchAndDirtinessAndEmitsTheirEvents) {
  const std::string repo = make_repo("repo");
  Client sub = subscriber({"workspace.updated", "git.branch_changed"});
  const Json ws = open_workspace(repo);
  const std::string id = ws["id"];

  Json info = client().call("workspace.refresh_git", {{"workspace_id", id}})["workspace"]["git"];
  EXPECT_EQ(info["root"], repo) << info.dump();
  EXPECT_EQ(info["name"], "repo") << info.dump();
  EXPECT_EQ(info["branch"], "main") << info.dump();
  EXPECT_EQ(info.value("detached", true), false) << info.dump();
  EXPECT_EQ(info["dirty"], false) << info.dump();

  write_bytes(repo + "/untracked.txt", "new\n");
  info = client().call("workspace.refresh_git", {{"workspace_id", id}})["workspace"]["git"];
  EXPECT_EQ(info["dirty"], true) << info.dump();
  EXPECT_EQ(info["branch"], "main") << info.dump();
  EXPECT_TRUE(wait_event(sub, "workspace.updated", [&](const Json& p) {
    return p["workspace"]["id"] == id && p["workspace"]["git"].value("dirty", false);
  }).has_value()) << "a dirtiness change is a workspace.updated";

  git(repo, {"checkout", "-q", "-b", "feature"});
  info = client().call("workspace.refresh_git", {{"workspace_id", id}})["workspace"]["git"];
  EXPECT_EQ(info["branch"], "feature") << info.dump();
  const auto changed = wait_event(sub, "git.branch_changed", [&](const Json& p) {
    return p["workspace_id"] == id && p.value("branch", "") == "feature";
  });
  ASSERT_TRUE(changed.has_value()) << "a branch switch is a git.branch_changed";
  EXPECT_EQ((*changed)["payload"]["prev_branch"], "main") << changed->dump();
  EXPECT_EQ((*changed)["payload"]["detached"], false) << changed->dump();

  // Nothing changed: no event, the same workspace.
  const Json again = client().call("workspace.refresh_git", {{"workspace_id", id}})["workspace"];
  EXPECT_EQ(again["git"], info);
}

TEST_F(GitMethods, AWorkspaceOutsideAnyRepositoryHasNoGitAndNoDiff) {
  const std::string plain = dirs_.scratch("plain");
  std::filesystem::create_directories(plain);
  const std::string id = open_workspace(plain)["id"];

  const Json ws = client().call("workspace.refresh_git", {{"workspace_id", id}})["workspace"];
  EXPECT_FALSE(ws.contains("git") && ws["git"].contains("root")) << ws.dump();

  auto [code, response] = error_of("workspace.diff", {{"workspace_id", id}});
  EXPECT_EQ(code, "BAD_PARAMS") << response;
  std::tie(code, response) = error_of("workspace.file_diff", {{"workspace_id", id}, {"path", "x"}});
  EXPECT_EQ(code, "BAD_PARAMS") << response;
  std::tie(code, response) = error_of("worktree.list", {{"workspace_id", id}});
  EXPECT_EQ(code, "BAD_PARAMS") << response;
}

// ---- workspace.diff ------------------------------------------------------------

TEST_F(GitMethods, DiffMatchesGitNumstatAndRollsUpDirs) {
  const std::string repo = make_repo("repo");
  write_bytes(repo + "/notes.txt", lines(1, 6));
  write_bytes(repo + "/src/a.txt", lines(1, 3));
  write_bytes(repo + "/src/deep/b.txt", lines(1, 2));
  write_bytes(repo + "/blob.bin", std::string("\x00\x01\x02\x03 binary", 12));
  commit_all(repo, "files");

  // notes.txt: line 2 removed, three lines added at the end.
  write_bytes(repo + "/notes.txt", "line 1\n" + lines(3, 6) + "added a\nadded b\nadded c\n");
  write_bytes(repo + "/src/a.txt", lines(1, 3) + "one more\n");
  write_bytes(repo + "/src/deep/b.txt", "line 1\n");
  write_bytes(repo + "/blob.bin", std::string("\x00\x09\x08\x07 changed", 13));
  write_bytes(repo + "/fresh.txt", "first\nsecond\n");
  const std::map<std::string, NumStat> expected = numstat(repo);
  ASSERT_EQ(expected.size(), 4u);

  const std::string id = open_workspace(repo)["id"];
  const Json diff = client().call("workspace.diff", {{"workspace_id", id}});
  EXPECT_EQ(diff["workspace_id"], id);
  EXPECT_EQ(diff["scope"], "head");
  EXPECT_EQ(diff.value("branch", ""), "main") << diff.dump();

  std::uint64_t added = 0, removed = 0;
  for (const auto& [path, row] : expected) {
    const Json* file = find_file(diff, path);
    ASSERT_NE(file, nullptr) << path << " missing from " << diff.dump();
    EXPECT_EQ((*file)["added"], row.added) << path;
    EXPECT_EQ((*file)["removed"], row.removed) << path;
    EXPECT_EQ((*file)["binary"], row.binary) << path;
    EXPECT_EQ((*file)["untracked"], false) << path;
    added += row.added;
    removed += row.removed;
  }
  EXPECT_EQ(expected.at("notes.txt").added, 3u);
  EXPECT_EQ(expected.at("notes.txt").removed, 1u);
  EXPECT_TRUE(expected.at("blob.bin").binary);

  const Json* fresh = find_file(diff, "fresh.txt");
  ASSERT_NE(fresh, nullptr) << diff.dump();
  EXPECT_EQ((*fresh)["untracked"], true);
  EXPECT_EQ((*fresh)["added"], 2);
  EXPECT_EQ((*fresh)["removed"], 0);
  EXPECT_EQ(diff["files"].size(), expected.size() + 1) << diff.dump();

  EXPECT_EQ(diff["added"], added) << "totals sum the tracked files only";
  EXPECT_EQ(diff["removed"], removed);

  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> dirs;
  for (const Json& dir : diff["dirs"]) dirs[dir["dir"]] = {dir["added"], dir["removed"]};
  const auto& a = expected.at("src/a.txt");
  const auto& b = expected.at("src/deep/b.txt");
  ASSERT_TRUE(dirs.count("src")) << diff.dump();
  EXPECT_EQ(dirs["src"], std::make_pair(a.added + b.added, a.removed + b.removed));
  ASSERT_TRUE(dirs.count("src/deep")) << diff.dump();
  EXPECT_EQ(dirs["src/deep"], std::make_pair(b.added, b.removed));
  EXPECT_EQ(dirs.size(), 2u) << "root-level files roll up into no dir: " << diff.dump();
}

TEST_F(GitMethods, TurnScopeBeforeAnyTurnIsEmptyAndFileDiffIsRefused) {
  const std::string repo = make_repo("repo");
  write_bytes(repo + "/README", "changed\n");
  const std::string id = open_workspace(repo)["id"];

  const Json diff = client().call("workspace.diff", {{"workspace_id", id}, {"scope", "turn"}});
  EXPECT_EQ(diff["scope"], "turn");
  ASSERT_TRUE(diff.contains("turn")) << diff.dump();
  EXPECT_TRUE(diff["turn"].is_null()) << diff.dump();
  EXPECT_TRUE(diff["files"].empty()) << diff.dump();
  EXPECT_EQ(diff["added"], 0);

  auto [code, response] = error_of("workspace.file_diff",
                                   {{"workspace_id", id}, {"path", "README"}, {"scope", "turn"}});
  EXPECT_EQ(code, "BAD_PARAMS") << response;
  // The head scope still sees the change.
  EXPECT_EQ(client().call("workspace.diff", {{"workspace_id", id}})["files"].size(), 1u);
}

// ---- workspace.file_diff ---------------------------------------------------------

TEST_F(GitMethods, FileDiffHunksMatchGitAndPathsStayInTheCheckout) {
  const std::string repo = make_repo("repo");
  write_bytes(repo + "/notes.txt", lines(1, 20));
  commit_all(repo, "notes");
  // Two hunks: line 2 replaced near the top, three lines added at the end.
  write_bytes(repo + "/notes.txt",
              "line 1\nline two\n" + lines(3, 20) + "added a\nadded b\nadded c\n");
  write_bytes(repo + "/fresh.txt", "first\nsecond\n");
  const std::vector<HunkHeader> expected = hunk_headers(repo, "notes.txt");
  ASSERT_EQ(expected.size(), 2u);

  const std::string id = open_workspace(repo)["id"];
  const Json diff = client().call("workspace.file_diff", {{"workspace_id", id}, {"path", "notes.txt"}});
  EXPECT_EQ(diff["workspace_id"], id);
  EXPECT_EQ(diff["path"], "notes.txt");
  EXPECT_EQ(diff["untracked"], false);
  const Json& content = diff["content"];
  ASSERT_EQ(content["kind"], "text") << diff.dump();
  EXPECT_EQ(content["truncated"], false);
  ASSERT_EQ(content["hunks"].size(), expected.size()) << diff.dump();
  std::set<std::string> kinds;
  int added = 0, removed = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Json& hunk = content["hunks"][i];
    EXPECT_EQ(hunk["old_start"], expected[i].old_start) << hunk.dump();
    EXPECT_EQ(hunk["old_count"], expected[i].old_count) << hunk.dump();
    EXPECT_EQ(hunk["new_start"], expected[i].new_start) << hunk.dump();
    EXPECT_EQ(hunk["new_count"], expected[i].new_count) << hunk.dump();
    for (const Json& line : hunk["lines"]) {
      kinds.insert(line["kind"].get<std::string>());
      added += line["kind"] == "added";
      removed += line["kind"] == "removed";
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"context", "added", "removed"}));
  EXPECT_EQ(added, 4);
  EXPECT_EQ(removed, 1);
  const Json& first = content["hunks"][0]["lines"];
  ASSERT_GE(first.size(), 3u);
  EXPECT_EQ(first[0], (Json{{"kind", "context"}, {"text", "line 1"}, {"old_line", 1}, {"new_line", 1}}))
      << first.dump();
  EXPECT_EQ(first[1]["kind"], "removed");
  EXPECT_EQ(first[1]["text"], "line 2");
  EXPECT_EQ(first[2]["kind"], "added");
  EXPECT_EQ(first[2]["text"], "line two");

  for (const std::string bad : {"../x", "/etc/passwd", ".git/config", "", "./notes.txt", "a/../notes.txt"}) {
    auto [code, response] = error_of("workspace.file_diff", {{"workspace_id", id}, {"path", bad}});
    EXPECT_EQ(code, "BAD_PARAMS") << "path \"" << bad << "\": " << response;
  }

  const Json fresh = client().call("workspace.file_diff", {{"workspace_id", id}, {"path", "fresh.txt"}});
  EXPECT_EQ(fresh["untracked"], true) << fresh.dump();
  ASSERT_EQ(fresh["content"]["kind"], "text") << fresh.dump();
  ASSERT_EQ(fresh["content"]["hunks"].size(), 1u) << fresh.dump();
  const Json& hunk = fresh["content"]["hunks"][0];
  EXPECT_EQ(hunk["new_start"], 1);
  EXPECT_EQ(hunk["new_count"], 2);
  ASSERT_EQ(hunk["lines"].size(), 2u) << fresh.dump();
  for (const Json& line : hunk["lines"]) EXPECT_EQ(line["kind"], "added") << line.dump();
  EXPECT_EQ(hunk["lines"][1]["text"], "second");
}

// ---- worktree.* ------------------------------------------------------------------

TEST_F(GitMethods, CreateRegistersTheCheckoutAndOpensAWorkspaceThere) {
  const std::string repo = make_repo("repo");
  Client sub = subscriber({"worktree.changed", "workspace.updated"});
  const std::string source = open_workspace(repo)["id"];
  const std::string wt1 = canonical(dirs_.root()) + "/wt1";

  const Json created = client().call(
      "worktree.create", {{"workspace_id", source}, {"path", wt1}, {"branch", "feat-1"}});
  EXPECT_EQ(created["path"], wt1);
  EXPECT_EQ(created["reused"], false);
  EXPECT_EQ(created["workspace"]["cwd"], wt1) << created.dump();
  const std::string opened = created["workspace"]["id"];
  EXPECT_NE(opened, source);
  const auto changed = wait_event(sub, "worktree.changed", [](const Json&) { return true; });
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ((*changed)["payload"],
            (Json{{"operation", "create"}, {"path", wt1}, {"workspace_id", source}}));

  EXPECT_TRUE(wait_event(sub, "workspace.updated", [&](const Json& p) {
    return p["workspace"]["id"] == opened && p["workspace"]["git"].value("branch", "") == "feat-1";
  }).has_value()) << "the new workspace's git fields are read in the background";

  EXPECT_TRUE(path_exists(wt1 + "/README"));
  EXPECT_NE(git(repo, {"worktree", "list", "--porcelain"}).find("worktree " + wt1 + "\n"),
            std::string::npos);
  EXPECT_EQ(git(wt1, {"rev-parse", "--abbrev-ref", "HEAD"}), "feat-1\n");

  const Json list = client().call("worktree.list", {{"workspace_id", source}});
  ASSERT_EQ(list["worktrees"].size(), 2u) << list.dump();
  const Json* main = find_worktree(list, repo);
  ASSERT_NE(main, nullptr) << list.dump();
  EXPECT_EQ((*main)["main"], true);
  EXPECT_EQ((*main).value("branch", ""), "main");
  EXPECT_EQ((*main).value("workspace_id", ""), source);
  const Json* wt = find_worktree(list, wt1);
  ASSERT_NE(wt, nullptr) << list.dump();
  EXPECT_EQ((*wt)["main"], false);
  EXPECT_EQ((*wt).value("branch", ""), "feat-1");
  EXPECT_EQ((*wt).value("workspace_id", ""), opened);

  auto [code, response] = error_of(
      "worktree.create", {{"workspace_id", source}, {"path", wt1}, {"branch", "feat-2"}});
  EXPECT_EQ(code, "BAD_PARAMS") << response;
  const std::string wt2 = canonical(dirs_.root()) + "/wt2";
  for (const std::string bad : {"-x", "", "a..b", "with space", "main"}) {
    std::tie(code, response) =
        error_of("worktree.create", {{"workspace_id", source}, {"path", wt2}, {"branch", bad}});
    EXPECT_EQ(code, "BAD_PARAMS") << "branch \"" << bad << "\": " << response;
    EXPECT_FALSE(path_exists(wt2)) << "a refused create leaves nothing behind (branch " << bad << ")";
  }
  std::tie(code, response) = error_of(
      "worktree.create", {{"workspace_id", source}, {"path", "relative/wt"}, {"branch", "feat-3"}});
  EXPECT_EQ(code, "BAD_PARAMS") << response;
  EXPECT_EQ(git(repo, {"for-each-ref", "refs/heads/feat-2", "refs/heads/feat-3", "refs/heads/-x"}), "")
      << "refused creates make no branch";
}

TEST_F(GitMethods, OpenReusesAndRemoveRefusesOpenMainAndUnknownCheckouts) {
  const std::string repo = make_repo("repo");
  Client sub = subscriber({"worktree.changed"});
  const std::string source = open_workspace(repo)["id"];
  const std::string wt1 = canonical(dirs_.root()) + "/wt1";
  const Json created = client().call(
      "worktree.create", {{"workspace_id", source}, {"path", wt1}, {"branch", "feat-1"}});
  const std::string opened = created["workspace"]["id"];
  ASSERT_TRUE(wait_event(sub, "worktree.changed", [](const Json& p) { return p["operation"] == "create"; }));

  const std::size_t workspaces = client().call("workspace.list")["workspaces"].size();
  const Json reopened = client().call("worktree.open", {{"workspace_id", source}, {"path", wt1}});
  EXPECT_EQ(reopened["reused"], true);
  EXPECT_EQ(reopened["workspace"]["id"], opened);
  EXPECT_EQ(reopened["path"], wt1);
  EXPECT_EQ(client().call("workspace.list")["workspaces"].size(), workspaces)
      << "reuse opens no workspace";

  auto [code, response] = error_of("worktree.remove", {{"workspace_id", source}, {"path", wt1}});
  EXPECT_EQ(code, "BAD_PARAMS") << "its workspace is open: " << response;
  EXPECT_TRUE(path_exists(wt1 + "/README"));

  // The main checkout, asked from the worktree's workspace with the main one closed.
  client().call("workspace.close", {{"workspace_id", source}});
  std::tie(code, response) = error_of("worktree.remove", {{"workspace_id", opened}, {"path", repo}});
  EXPECT_EQ(code, "BAD_PARAMS") << "the main checkout: " << response;
  EXPECT_TRUE(path_exists(repo + "/README"));
  EXPECT_TRUE(path_exists(repo + "/.git/HEAD"));

  const std::string main_ws = open_workspace(repo)["id"];
  client().call("workspace.close", {{"workspace_id", opened}});
  const Json removed = client().call("worktree.remove", {{"workspace_id", main_ws}, {"path", wt1}});
  EXPECT_EQ(removed, (Json{{"removed", true}, {"path", wt1}}));
  const auto changed = wait_event(sub, "worktree.changed", [](const Json& p) { return p["operation"] == "remove"; });
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ((*changed)["payload"],
            (Json{{"operation", "remove"}, {"path", wt1}, {"workspace_id", main_ws}}));
  EXPECT_FALSE(path_exists(wt1));
  EXPECT_EQ(git(repo, {"branch", "--list", "feat-1"}), "  feat-1\n") << "the branch is kept";
  EXPECT_EQ(git(repo, {"worktree", "list", "--porcelain"}).find(wt1), std::string::npos);
  EXPECT_EQ(client().call("worktree.list", {{"workspace_id", main_ws}})["worktrees"].size(), 1u);

  const std::string plain = dirs_.scratch("plain");
  std::filesystem::create_directories(plain);
  std::tie(code, response) = error_of("worktree.open", {{"workspace_id", main_ws}, {"path", plain}});
  EXPECT_EQ(code, "BAD_PARAMS") << "not a registered worktree: " << response;
  std::tie(code, response) = error_of("worktree.open", {{"workspace_id", main_ws}, {"path", wt1}});
  EXPECT_EQ(code, "BAD_PARAMS") << "a removed worktree: " << response;
  std::tie(code, response) = error_of("worktree.remove", {{"workspace_id", main_ws}, {"path", plain}});
  EXPECT_EQ(code, "BAD_PARAMS") << "not a registered worktree: " << response;
  EXPECT_TRUE(path_exists(plain));
}

TEST_F(GitMethods, OpenBindsAClosedWorktreeToANewWorkspace) {
  const std::string repo = make_repo("repo");
  const std::string source = open_workspace(repo)["id"];
  const std::string wt1 = canonical(dirs_.root()) + "/wt1";
  const Json created = client().call(
      "worktree.create",
      {{"workspace_id", source}, {"path", wt1}, {"branch", "feat-1"}, {"name", "side"}});
  EXPECT_EQ(created["workspace"]["name"], "side");
  client().call("workspace.close", {{"workspace_id", created["workspace"]["id"]}});

  Client sub = subscriber({"worktree.changed"});
  const Json opened = client().call("worktree.open", {{"workspace_id", source}, {"path", wt1 + "/"}});
  EXPECT_EQ(opened["reused"], false);
  EXPECT_EQ(opened["path"], wt1);
  EXPECT_EQ(opened["workspace"]["cwd"], wt1);
  EXPECT_NE(opened["workspace"]["id"], created["workspace"]["id"]);
  const auto changed = wait_event(sub, "worktree.changed", [](const Json&) { return true; });
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ((*changed)["payload"],
            (Json{{"operation", "open"}, {"path", wt1}, {"workspace_id", source}}));
}

TEST_F(GitMethods, RemoveRefusesADirtyOrLockedWorktreeAndKeepsIt) {
  const std::string repo = make_repo("repo");
  const std::string source = open_workspace(repo)["id"];
  const std::string root = canonical(dirs_.root());
  for (const std::string name : {"dirty", "locked"}) {
    const Json created = client().call(
        "worktree.create", {{"workspace_id", source}, {"path", root + "/" + name}, {"branch", name}});
    client().call("workspace.close", {{"workspace_id", created["workspace"]["id"]}});
  }
  write_bytes(root + "/dirty/README", "edited\n");
  git(repo, {"worktree", "lock", root + "/locked"});

  for (const std::string name : {"dirty", "locked"}) {
    auto [code, response] =
        error_of("worktree.remove", {{"workspace_id", source}, {"path", root + "/" + name}});
    EXPECT_EQ(code, "BAD_PARAMS") << name << ": " << response;
    EXPECT_TRUE(path_exists(root + "/" + name + "/README")) << name;
  }
  EXPECT_EQ(read_text_file(root + "/dirty/README"), "edited\n");
  const Json list = client().call("worktree.list", {{"workspace_id", source}});
  ASSERT_EQ(list["worktrees"].size(), 3u) << list.dump();
  const Json* locked = find_worktree(list, root + "/locked");
  ASSERT_NE(locked, nullptr) << list.dump();
  EXPECT_EQ((*locked)["locked"], true);
}

// ---- hostile repositories ----------------------------------------------------------

TEST_F(GitMethods, AHostileRepositoryNeverGetsAFilterHookOrMonitorRun) {
  const std::string repo = make_repo("evil");
  // The attributes are committed before the config names the programs, so
  // the git CLI below never runs them either.
  write_bytes(repo + "/.gitattributes", "* filter=evil diff=evil\n");
  write_bytes(repo + "/notes.txt", lines(1, 5));
  commit_all(repo, "attributes");

  // Markers in the directory the worker may write (the new worktree's
  // parent) and in /tmp under a unique name.
  const std::string parent = canonical(dirs_.root()) + "/wts";
  std::filesystem::create_directories(parent);
  std::random_device rd;
  const std::string tmp_marker =
      "/tmp/signaltty-git-it-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  std::vector<std::string> markers{tmp_marker};
  for (const char* what : {"clean", "smudge", "process", "textconv", "fsmonitor", "hook", "external"})
    markers.push_back(parent + "/ran-" + what);
  auto touch = [&](std::size_t i) { return "touch " + markers[i]; };
  std::string config = read_text_file(repo + "/.git/config");
  config += "[filter \"evil\"]\n\tclean = " + touch(1) + "; " + touch(0) + "; cat\n" +
            "\tsmudge = " + touch(2) + "; cat\n\tprocess = " + touch(3) + "\n\trequired = true\n" +
            "[diff \"evil\"]\n\ttextconv = " + touch(4) + "; cat\n\tcommand = " + touch(7) + "\n" +
            "[core]\n\tfsmonitor = " + touch(5) + "\n\thooksPath = " + repo + "/.git/hooks\n";
  write_text_file(repo + "/.git/config", config);
  std::filesystem::create_directories(repo + "/.git/hooks");
  for (const char* hook : {"post-checkout", "reference-transaction", "post-index-change"})
    write_bytes(repo + "/.git/hooks/" + hook, "#!/bin/sh\n" + touch(6) + "\n" + touch(0) + "\n", 0755);
  write_bytes(repo + "/notes.txt", lines(1, 4) + "changed\n");
  write_bytes(repo + "/fresh.txt", "untracked\n");

  const std::string id = open_workspace(repo)["id"];
  // Each succeeds or fails with a clear error; which is the worker's choice.
  auto outcome = [&](std::string_view method, const Json& params) {
    const Json response = client().request(method, params);
    if (!is_ok(response)) {
      const std::string message = response["error"].value("message", "");
      EXPECT_FALSE(message.empty()) << method << ": " << response.dump();
      EXPECT_TRUE(error_code(response) == "BAD_PARAMS" || error_code(response) == "IO_ERROR")
          << method << ": " << response.dump();
    }
    return response;
  };
  const Json refreshed = outcome("workspace.refresh_git", {{"workspace_id", id}});
  const Json diff = outcome("workspace.diff", {{"workspace_id", id}});
  if (is_ok(diff)) {
    const Json* notes = find_file(diff["result"], "notes.txt");
    ASSERT_NE(notes, nullptr) << diff.dump();
    EXPECT_EQ((*notes)["added"], 1);
    EXPECT_EQ((*notes)["removed"], 1);
  }
  const Json file = outcome("workspace.file_diff", {{"workspace_id", id}, {"path", "notes.txt"}});
  if (is_ok(file)) {
    EXPECT_EQ(file["result"]["content"]["kind"], "text") << file.dump();
  }
  outcome("workspace.file_diff", {{"workspace_id", id}, {"path", "fresh.txt"}});
  const std::string wt = parent + "/evil-wt";
  const Json created =
      outcome("worktree.create", {{"workspace_id", id}, {"path", wt}, {"branch", "evil-1"}});
  outcome("worktree.list", {{"workspace_id", id}});
  if (is_ok(created)) {
    EXPECT_TRUE(path_exists(wt + "/notes.txt")) << created.dump();
    client().call("workspace.close", {{"workspace_id", created["result"]["workspace"]["id"]}});
    outcome("worktree.remove", {{"workspace_id", id}, {"path", wt}});
  }

  for (const std::string& marker : markers) EXPECT_FALSE(path_exists(marker)) << marker << " was run";
  ::unlink(tmp_marker.c_str());
}

// A live pane working in a checkout keeps it: PANES_ALIVE naming the pane;
// once the pane is closed the checkout can go.
TEST_F(GitMethods, RemoveRefusesACheckoutALivePaneWorksIn) {
  const std::string repo = make_repo("repo");
  const std::string source = open_workspace(repo)["id"];
  const std::string wt = canonical(dirs_.scratch("")) + "/wt-busy";
  const Json created = client().call(
      "worktree.create", {{"workspace_id", source}, {"path", wt}, {"branch", "busy"}});
  client().call("workspace.close", {{"workspace_id", created["workspace"]["id"]}});
  // The pane lives in the source workspace; only its cwd is in the checkout.
  const Json pane = client().call(
      "pane.spawn", {{"workspace_id", source}, {"argv", {"cat"}}, {"cwd", wt}})["pane"];
  const Json refused = client().call_error("worktree.remove", {{"workspace_id", source}, {"path", wt}});
  EXPECT_EQ(refused["code"], "PANES_ALIVE") << refused.dump();
  EXPECT_EQ(refused["details"]["pane_ids"], Json::array({pane["id"]})) << refused.dump();
  EXPECT_TRUE(std::filesystem::exists(wt));
  client().call("pane.close", {{"pane_id", pane["id"]}});
  const Json removed = client().call("worktree.remove", {{"workspace_id", source}, {"path", wt}});
  EXPECT_EQ(removed["removed"], true);
  EXPECT_FALSE(std::filesystem::exists(wt));
}

// ---- bad peers -----------------------------------------------------------------

// A client that asks for large file diffs and never reads the replies
// holds nothing up: other clients are answered promptly throughout, and
// the broker is still whole after the stuck client goes.
TEST_F(GitMethods, AClientThatStopsReadingLargeDiffsNeverStallsTheBroker) {
  const std::string repo = make_repo("repo");
  write_bytes(repo + "/big.txt", lines(1, 10));
  commit_all(repo, "big");
  write_bytes(repo + "/big.txt", lines(1, 40000));  // ~500 KiB of hunks per reply
  const std::string id = open_workspace(repo)["id"];

  Client stuck = connect();
  std::string requests;
  for (int i = 0; i < 12; ++i)
    requests += Json{{"id", i}, {"method", "workspace.file_diff"},
                     {"params", {{"workspace_id", id}, {"path", "big.txt"}}}}.dump() + "\n";
  ASSERT_EQ(stuck.send_raw(requests), requests.size());

  Client other = connect();
  for (int i = 0; i < 10; ++i) {
    const auto asked = Clock::now();
    other.call("server.status");
    EXPECT_LT(Clock::now() - asked, std::chrono::seconds(2)) << "round " << i;
  }
  const Json diff = other.call("workspace.diff", {{"workspace_id", id}});
  EXPECT_NE(find_file(diff, "big.txt"), nullptr) << diff.dump();
  stuck = connect();  // the stuck connection is dropped unread
  const Json file = other.call("workspace.file_diff", {{"workspace_id", id}, {"path", "big.txt"}});
  EXPECT_EQ(file["content"]["truncated"], true);
  EXPECT_TRUE(broker().running());
}

// workspace.close while repository requests on the same workspace are in
// flight: every request gets exactly one answer (its result, or an error
// with a protocol code), the broker stays up, and later ones are
// NO_SUCH_WORKSPACE.
TEST_F(GitMethods, ClosingAWorkspaceUnderItsGitRequestsAnswersEachOnce) {
  const std::string repo = make_repo("repo");
  write_bytes(repo + "/README", "changed\n");
  const std::string id = open_workspace(repo)["id"];
  Client asker = connect();
  std::vector<Json> ids;
  for (int round = 0; round < 3; ++round) {
    ids.push_back(asker.send_request("workspace.diff", {{"workspace_id", id}}));
    ids.push_back(asker.send_request("workspace.file_diff", {{"workspace_id", id}, {"path", "README"}}));
    ids.push_back(asker.send_request("workspace.refresh_git", {{"workspace_id", id}}));
    ids.push_back(asker.send_request("worktree.list", {{"workspace_id", id}}));
  }
  client().call("workspace.close", {{"workspace_id", id}});
  for (const Json& request_id : ids) {
    const Json response = asker.await_response(request_id);
    if (response.contains("error"))
      EXPECT_EQ(response["error"]["code"], "NO_SUCH_WORKSPACE") << response.dump();
    else
      EXPECT_TRUE(response.contains("result")) << response.dump();
  }
  for (const auto& stray : asker.read_available()) ADD_FAILURE() << "a second answer: " << stray;
  const Json refused = client().call_error("workspace.refresh_git", {{"workspace_id", id}});
  EXPECT_EQ(refused["code"], "NO_SUCH_WORKSPACE") << refused.dump();
  client().call("server.status");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
