// common/protocol/methods/git.hpp: the repository methods of a workspace:
// workspace.refresh_git, workspace.diff, workspace.file_diff and worktree.*
// (docs/rules.md, Methods; docs/gitworker.md).
// Also the diff summary shapes task.diff shares.
// Runs in: every process. Never: reads a repository; gitworker does.
#pragma once

#include "common/protocol/method_decl.hpp"
#include "common/protocol/methods/workspace.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::protocol {

// What a diff compares the checkout with: HEAD, or the latest turn baseline.
enum class DiffScope { Head, Turn };
template <>
struct EnumNames<DiffScope> {
  static constexpr std::array<std::pair<DiffScope, std::string_view>, 2> names{
      {{DiffScope::Head, "head"}, {DiffScope::Turn, "turn"}}};
};

// ---- diff summaries ---------------------------------------------------------

struct DiffFile {
  std::string path;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  bool untracked = false;
  bool binary = false;
  static constexpr auto fields() {
    using F = DiffFile;
    return std::tuple{req("path", &F::path), req("added", &F::added), req("removed", &F::removed),
                      req("untracked", &F::untracked), req("binary", &F::binary)};
  }
  bool operator==(const DiffFile&) const = default;
};
struct DiffDir {
  std::string dir;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  static constexpr auto fields() {
    return std::tuple{req("dir", &DiffDir::dir), req("added", &DiffDir::added),
                      req("removed", &DiffDir::removed)};
  }
  bool operator==(const DiffDir&) const = default;
};
// The turn a `scope: turn` diff compares against.
struct DiffTurn {
  std::string pane_id;
  std::string started_at;
  static constexpr auto fields() {
    return std::tuple{req("pane_id", &DiffTurn::pane_id),
                      req("started_at", &DiffTurn::started_at)};
  }
};

// ---- workspace.diff / file_diff ---------------------------------------------

struct WorkspaceDiffParams {
  std::string workspace_id;
  DiffScope scope = DiffScope::Head;
  static constexpr auto fields() {
    using P = WorkspaceDiffParams;
    return std::tuple{req("workspace_id", &P::workspace_id, kWorkspaceIdDoc, 0),
                      opt("scope", &P::scope, "default head")};
  }
};
struct WorkspaceDiffResult {
  std::string workspace_id;
  DiffScope scope = DiffScope::Head;
  std::optional<std::string> branch;
  std::vector<DiffFile> files;
  std::vector<DiffDir> dirs;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  std::optional<Nullable<DiffTurn>> turn;
  static constexpr auto fields() {
    using R = WorkspaceDiffResult;
    return std::tuple{req("workspace_id", &R::workspace_id), req("scope", &R::scope),
                      opt("branch", &R::branch), req("files", &R::files), req("dirs", &R::dirs),
                      req("added", &R::added), req("removed", &R::removed),
                      opt("turn", &R::turn, "scope turn: the baseline, null before any turn")};
  }
};

struct WorkspaceFileDiffParams {
  std::string workspace_id;
  std::string path;
  DiffScope scope = DiffScope::Head;
  static constexpr auto fields() {
    using P = WorkspaceFileDiffParams;
    return std::tuple{req("workspace_id", &P::workspace_id, kWorkspaceIdDoc, 0),
                      req("path", &P::path, "one literal filename, root-relative", 1),
                      opt("scope", &P::scope, "default head")};
  }
};

// `content` is tagged by kind: text {hunks, truncated, notice?} or
// binary/unchanged/unavailable {reason}.
inline constexpr std::string_view kFileDiffContentDoc =
    "{kind: text, hunks, truncated, notice?} or {kind: binary|unchanged|unavailable, reason}";

struct WorkspaceFileDiffResult {
  std::string workspace_id;
  std::string path;
  bool untracked = false;
  Json content;
  static constexpr auto fields() {
    using R = WorkspaceFileDiffResult;
    return std::tuple{req("workspace_id", &R::workspace_id), req("path", &R::path),
                      req("untracked", &R::untracked),
                      req("content", &R::content, kFileDiffContentDoc)};
  }
};

// ---- worktree.* -------------------------------------------------------------

struct WorktreeInfo {
  std::string path;
  std::optional<std::string> branch;
  std::optional<std::string> head;
  bool main = false;
  bool bare = false;
  bool locked = false;
  bool prunable = false;
  std::optional<std::string> workspace_id;
  static constexpr auto fields() {
    using W = WorktreeInfo;
    return std::tuple{req("path", &W::path), opt("branch", &W::branch), opt("head", &W::head),
                      req("main", &W::main), req("bare", &W::bare), req("locked", &W::locked),
                      req("prunable", &W::prunable),
                      opt("workspace_id", &W::workspace_id, "the open workspace rooted there")};
  }
};
struct WorktreeListResult {
  std::vector<WorktreeInfo> worktrees;
  static constexpr auto fields() {
    return std::tuple{req("worktrees", &WorktreeListResult::worktrees)};
  }
};

struct WorktreeCreateParams {
  std::string workspace_id;
  std::string path;
  std::string branch;
  std::optional<std::string> name;
  static constexpr auto fields() {
    using P = WorktreeCreateParams;
    return std::tuple{req("workspace_id", &P::workspace_id, "source workspace id or handle", 0),
                      req("path", &P::path, "absolute path of the new checkout", 1),
                      req("branch", &P::branch, "new branch at the source HEAD", 2),
                      opt("name", &P::name, "name of the workspace opened there")};
  }
};
struct WorktreeOpenParams {
  std::string workspace_id;
  std::string path;
  std::optional<std::string> name;
  static constexpr auto fields() {
    using P = WorktreeOpenParams;
    return std::tuple{req("workspace_id", &P::workspace_id, "source workspace id or handle", 0),
                      req("path", &P::path, "absolute path of a registered checkout", 1),
                      opt("name", &P::name, "name of the workspace opened there")};
  }
};
struct WorktreeOpenResult {
  Workspace workspace;
  std::string path;
  bool reused = false;
  static constexpr auto fields() {
    using R = WorktreeOpenResult;
    return std::tuple{req("workspace", &R::workspace), req("path", &R::path),
                      req("reused", &R::reused, "an open workspace already had this cwd")};
  }
};
struct WorktreeRemoveParams {
  std::string workspace_id;
  std::string path;
  static constexpr auto fields() {
    using P = WorktreeRemoveParams;
    return std::tuple{req("workspace_id", &P::workspace_id, "source workspace id or handle", 0),
                      req("path", &P::path, "absolute path of the checkout to remove", 1)};
  }
};
struct WorktreeRemoveResult {
  bool removed = true;
  std::string path;
  static constexpr auto fields() {
    return std::tuple{req("removed", &WorktreeRemoveResult::removed),
                      req("path", &WorktreeRemoveResult::path)};
  }
};

// ---- the declarations -------------------------------------------------------

using WorkspaceRefreshGit =
    MethodDecl<"workspace.refresh_git", "Re-read a workspace's repository, branch and state",
               WorkspaceRef, WorkspaceResult, kMutating>;
using WorkspaceDiff =
    MethodDecl<"workspace.diff", "Summarise a workspace's changes against HEAD or the turn",
               WorkspaceDiffParams, WorkspaceDiffResult, kNoFlags>;
using WorkspaceFileDiff =
    MethodDecl<"workspace.file_diff", "Show one file's changes in a workspace",
               WorkspaceFileDiffParams, WorkspaceFileDiffResult, kNoFlags>;
using WorktreeList = MethodDecl<"worktree.list", "List the repository's Git worktrees",
                                WorkspaceRef, WorktreeListResult, kNoFlags>;
using WorktreeCreate =
    MethodDecl<"worktree.create", "Create a worktree on a new branch and open it",
               WorktreeCreateParams, WorktreeOpenResult, kMutating>;
using WorktreeOpen =
    MethodDecl<"worktree.open", "Open a workspace on a registered worktree",
               WorktreeOpenParams, WorktreeOpenResult, kMutating>;
using WorktreeRemove =
    MethodDecl<"worktree.remove", "Remove a clean, closed worktree (its branch is kept)",
               WorktreeRemoveParams, WorktreeRemoveResult, kMutating>;

}  // namespace signaltty::protocol
