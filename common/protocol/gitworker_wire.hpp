// common/protocol/gitworker_wire.hpp: the broker⇄gitworker exchange,
// declared once (docs/gitworker.md). One worker per request: the broker
// writes one Request as JSON on the worker's stdin and closes it; the worker
// writes one Reply as JSON on stdout and exits. Both sides decode what they
// receive with these declarations; neither trusts the other's bytes.
//
// The paths the worker may read and write are not in the request: the
// launcher puts them on the worker's command line (kArgRead / kArgWrite),
// and the worker confines itself to them before it reads stdin.
//
// Runs in: broker (broker/git/), gitworker. Never: carries file content the
// caller did not ask for; a Reply is at most kMaxReplyBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/methods/git.hpp"

namespace signaltty::protocol::gitworker {

// A request larger than this is refused unread; a reply larger than this
// is an IO_ERROR at the broker (file diffs stay far below: 512 KiB of text
// at most, escaped).
inline constexpr std::size_t kMaxRequestBytes = 64 * 1024;
inline constexpr std::size_t kMaxReplyBytes = 8 * 1024 * 1024;
// stderr the broker keeps, for its log and an IO_ERROR's details.
inline constexpr std::size_t kMaxStderrBytes = 8 * 1024;

// The worker's command line: `signaltty-gitworker [--read DIR]... [--write DIR]...`
// DIRs are absolute, existing directories.
inline constexpr std::string_view kArgRead = "--read";
inline constexpr std::string_view kArgWrite = "--write";

// How the worker exits: 0 once it wrote a Reply (ok or not); otherwise
// nothing on stdout and one line on stderr.
inline constexpr int kExitReplied = 0;
inline constexpr int kExitUsage = 2;               // a bad command line or request
inline constexpr int kExitSandboxUnavailable = 3;  // a sandbox step failed: nothing ran

enum class Op {
  Status,          // repository, branch, detached, dirty of `repo`
  Diff,            // numstat of the checkout against HEAD or `base_tree`
  FileDiff,        // hunks of one file against HEAD or `base_tree`
  Capture,         // write the checkout state as a tree object: a turn baseline
  WorktreeList,    // the repository's registered worktrees
  WorktreeAdd,     // new checkout at `path` on new branch `branch` at HEAD
  WorktreeRemove,  // remove the clean, unlocked linked checkout at `path`
  MergePreview,    // would merging `source` into `branch` conflict? Writes nothing
  Merge,           // merge commit `source` into the checkout's branch (docs/gitworker.md "Merge")
  MergeRestore,    // put the checkout back at `expect_head` after a merge died
  Stall,           // test builds only: wait `stall_ms` before answering
  Violate,         // test builds only: make a call the sandbox forbids
};

}  // namespace signaltty::protocol::gitworker

namespace signaltty::protocol {
template <>
struct EnumNames<gitworker::Op> {
  static constexpr std::array<std::pair<gitworker::Op, std::string_view>, 12> names{{
      {gitworker::Op::Status, "status"},
      {gitworker::Op::Diff, "diff"},
      {gitworker::Op::FileDiff, "file_diff"},
      {gitworker::Op::Capture, "capture"},
      {gitworker::Op::WorktreeList, "worktree_list"},
      {gitworker::Op::WorktreeAdd, "worktree_add"},
      {gitworker::Op::WorktreeRemove, "worktree_remove"},
      {gitworker::Op::MergePreview, "merge_preview"},
      {gitworker::Op::Merge, "merge"},
      {gitworker::Op::MergeRestore, "merge_restore"},
      {gitworker::Op::Stall, "stall"},
      {gitworker::Op::Violate, "violate"},
  }};
};
}  // namespace signaltty::protocol

namespace signaltty::protocol::gitworker {

struct Request {
  Op op = Op::Status;
  std::string repo;                       // absolute: the checkout (its root, or a dir in it for status)
  std::optional<std::string> base_tree;   // diff, file_diff: a tree id (hex) instead of HEAD
  std::optional<std::string> path;        // file_diff: root-relative; worktree_*: absolute
  std::optional<std::string> branch;      // worktree_add: the branch to create;
                                          // merge_preview: the branch merged into
  std::optional<std::string> source;      // merge*: the commit id (hex) merged
  std::optional<std::string> expect_head; // merge, merge_restore: the branch's commit before
  std::optional<std::string> author_name;   // merge: the merge commit's identity, else
  std::optional<std::string> author_email;  // the repository's user.name / user.email
  std::optional<std::int64_t> since_ns;   // merge_restore: when the merge started (CLOCK_REALTIME)
  std::optional<std::uint32_t> stall_ms;  // stall; merge in test builds: pause after the checkout
  static constexpr auto fields() {
    using R = Request;
    return std::tuple{req("op", &R::op),           req("repo", &R::repo),
                      opt("base_tree", &R::base_tree), opt("path", &R::path),
                      opt("branch", &R::branch),   opt("source", &R::source),
                      opt("expect_head", &R::expect_head), opt("author_name", &R::author_name),
                      opt("author_email", &R::author_email), opt("since_ns", &R::since_ns),
                      opt("stall_ms", &R::stall_ms)};
  }
};

// ---- results, one per op ------------------------------------------------

// `root` absent: `repo` is in no repository (then nothing else is set).
struct StatusResult {
  std::optional<std::string> root;       // the checkout's top directory
  std::optional<std::string> name;       // the repository's name: its main checkout's basename
  std::optional<std::string> branch;     // short name; absent when detached
  bool detached = false;
  std::optional<bool> dirty;             // tracked changes or untracked files
  std::optional<std::string> head;       // commit id; absent before the first commit
  static constexpr auto fields() {
    using R = StatusResult;
    return std::tuple{opt("root", &R::root),       opt("name", &R::name),
                      opt("branch", &R::branch),   req("detached", &R::detached),
                      opt("dirty", &R::dirty),     opt("head", &R::head)};
  }
};

// Per file, as `git diff --numstat` plus untracked files; sorted by path.
struct DiffResult {
  std::optional<std::string> branch;
  std::vector<DiffFile> files;
  static constexpr auto fields() {
    return std::tuple{opt("branch", &DiffResult::branch), req("files", &DiffResult::files)};
  }
};

struct FileDiffResult {
  bool untracked = false;
  Json content;  // kFileDiffContentDoc
  static constexpr auto fields() {
    return std::tuple{req("untracked", &FileDiffResult::untracked),
                      req("content", &FileDiffResult::content)};
  }
};

struct CaptureResult {
  std::string tree;  // hex id of a tree object now in the repository
  static constexpr auto fields() { return std::tuple{req("tree", &CaptureResult::tree)}; }
};

// worktree_list: the protocol's own list (common/protocol/methods/git.hpp);
// the worker never sets `workspace_id`, the broker fills it in.
using WorktreeInfo = protocol::WorktreeInfo;
using WorktreeListResult = protocol::WorktreeListResult;

// merge_preview: as task.diff's merge_preview. `conflicted` sorted.
struct MergePreviewResult {
  std::string target;  // the branch merged into
  bool clean = false;
  std::vector<std::string> conflicted;
  static constexpr auto fields() {
    using R = MergePreviewResult;
    return std::tuple{req("target", &R::target), req("clean", &R::clean),
                      req("conflicted", &R::conflicted)};
  }
};

// merge: the branch now at `sha` (== expect_head when already up to date).
struct MergeResult {
  std::string target;
  std::string sha;
  bool fast_forward = false;
  bool up_to_date = false;
  static constexpr auto fields() {
    using R = MergeResult;
    return std::tuple{req("target", &R::target), req("sha", &R::sha),
                      req("fast_forward", &R::fast_forward), req("up_to_date", &R::up_to_date)};
  }
};

struct PathResult {
  std::string path;
  static constexpr auto fields() { return std::tuple{req("path", &PathResult::path)}; }
};

// ---- the reply ------------------------------------------------------------

struct ReplyError {
  std::string code;     // a protocol error code name: BAD_PARAMS, IO_ERROR, ...
  std::string message;
  std::optional<Json> details;  // an object: merge's `conflicted`, `target_dirty`
  static constexpr auto fields() {
    return std::tuple{req("code", &ReplyError::code), req("message", &ReplyError::message),
                      opt("details", &ReplyError::details)};
  }
};

// Exactly one of result / error.
struct Reply {
  bool ok = false;
  std::optional<Json> result;
  std::optional<ReplyError> error;
  static constexpr auto fields() {
    return std::tuple{req("ok", &Reply::ok), opt("result", &Reply::result),
                      opt("error", &Reply::error)};
  }
};

}  // namespace signaltty::protocol::gitworker
