// gitworker/ops.hpp: the operations a gitworker performs, one per
// protocol::gitworker::Op, each a plain function of its request so tests
// run them in-process against real repositories.
// Runs in: gitworker, after it has entered its sandbox. Never: writes
// outside the repository's object store except where the op says so
// (worktree_add, worktree_remove, merge, merge_restore), or touches the
// index file (except merge and merge_restore, as a checkout does).
#pragma once

#include "common/errors.hpp"
#include "common/protocol/gitworker_wire.hpp"

namespace signaltty::gitworker {

namespace gw = protocol::gitworker;

// Dispatches on request.op and encodes the op's result.
Result<protocol::Json> run_op(const gw::Request& request);

// status: never BAD_PARAMS for a directory outside any repository (root
// stays empty then).
Result<gw::StatusResult> repo_status(const gw::Request& request);
// diff: worktree (staged + unstaged) against HEAD, or against base_tree;
// untracked, unignored files as added lines (binary or over 512 KiB:
// binary with zero counts). Sorted by path.
Result<gw::DiffResult> diff_numstat(const gw::Request& request);
// file_diff: docs/gitworker.md "File diff".
Result<gw::FileDiffResult> file_diff(const gw::Request& request);
// capture: the checkout (tracked and untracked unignored files) as a tree
// written to the object store; the index file is left as it was.
Result<gw::CaptureResult> capture_tree(const gw::Request& request);
Result<gw::WorktreeListResult> worktree_list(const gw::Request& request);
Result<gw::PathResult> worktree_add(const gw::Request& request);
Result<gw::PathResult> worktree_remove(const gw::Request& request);
// merge_preview, merge, merge_restore: docs/gitworker.md "Merge".
Result<gw::MergePreviewResult> merge_preview(const gw::Request& request);
Result<gw::MergeResult> merge_commit(const gw::Request& request);
Result<gw::MergeResult> merge_restore(const gw::Request& request);

}  // namespace signaltty::gitworker
