// broker/git/git_merge.hpp: a merge into a checkout's branch under its
// deadline, and the checkout put back when the merge does not finish
// (docs/gitworker.md "Merge"). task.finish merges through this.
//
// The steps: a status of the target (a failed status is IO_ERROR, never
// "clean"; no repository, a detached HEAD or no commit is BAD_PARAMS); a
// gitworker merges `source` into the branch, moving it only from the commit
// the status saw; at the deadline (kMergeDeadline, or
// SIGNALTTY_MERGE_TIMEOUT_MS) the runner kills the worker's group and a
// second worker restores the target: TIMEOUT when it did, IO_ERROR with
// details.target_dirty when it could not. A worker that died any other way
// is followed by the same restore. Conflicts leave the target untouched:
// MERGE_CONFLICT with details.conflicted.
//
// Runs in: broker (io thread).
//
// Usage:
//   run_merge(runner, {checkout, source_sha, merge_deadline_from(getenv(...))},
//             [](Result<gw::MergeResult> merged) { ... });
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "broker/git/git_runner.hpp"

namespace signaltty::broker::git {

inline constexpr std::string_view kMergeTimeoutEnv = "SIGNALTTY_MERGE_TIMEOUT_MS";
inline constexpr std::chrono::milliseconds kMergeDeadlineMax{3600 * 1000};

// The merge deadline a SIGNALTTY_MERGE_TIMEOUT_MS value asks for:
// kMergeDeadline when `value` is null; 1..kMergeDeadlineMax ms in decimal
// digits, else kMergeDeadline with a warning logged (a typo never makes a
// merge unbounded).
std::chrono::milliseconds merge_deadline_from(const char* value);

struct MergeRequest {
  std::string checkout;  // a directory in the target checkout (its HEAD's branch is the target)
  std::string source;    // full commit id merged
  std::chrono::milliseconds deadline{kMergeDeadline};
  std::optional<std::string> author_name;  // else the repository's user.name / user.email
  std::optional<std::string> author_email;
  std::optional<std::uint32_t> test_pause_ms;  // test builds' workers: pause after the checkout
};

using MergeDone = std::function<void(Result<gw::MergeResult> merged)>;

// `done` runs later on the runner's io thread, exactly once.
void run_merge(GitRunner& runner, MergeRequest request, MergeDone done);

}  // namespace signaltty::broker::git
