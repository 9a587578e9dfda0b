// broker/git/git_merge.cpp: status, merge, and the restore after a merge
// that did not finish.
// Runs in: broker (io thread).
#include "broker/git/git_merge.hpp"

#include <memory>

#include <boost/asio/post.hpp>

#include "broker/git/git_service.hpp"
#include "common/log.hpp"

namespace signaltty::broker::git {
namespace {

struct MergeRun {
  GitRunner& runner;
  MergeRequest request;
  MergeDone done;
  std::string head;  // the branch's commit the merge starts from
};

void finish(const std::shared_ptr<MergeRun>& run, Result<gw::MergeResult> merged) {
  auto done = std::move(run->done);
  done(std::move(merged));
}

// The merge did not answer for itself (deadline, a worker killed or gone):
// a second worker puts the target back. `failure` is what the merge got.
void restore(const std::shared_ptr<MergeRun>& run, Error failure) {
  auto job = checkout_job(run->request.checkout, gw::Op::MergeRestore);
  if (!job.ok()) {
    failure.code = ErrorCode::IoError;
    failure.message += "; restoring the target failed: " + job.error().message;
    failure.details["target_dirty"] = true;
    return finish(run, std::move(failure));
  }
  job->request.expect_head = run->head;
  run->runner.run(std::move(*job), [run, failure = std::move(failure)](Result<protocol::Json> restored) mutable {
    if (restored.ok()) {
      failure.message += "; the target was restored to " + run->head;
      failure.details["target_dirty"] = false;
      return finish(run, std::move(failure));
    }
    log::error("merge into " + run->request.checkout + " failed (" + failure.message +
               ") and restoring the target failed: " + restored.error().message);
    Error error{ErrorCode::IoError, failure.message + "; restoring the target failed: " +
                                        restored.error().message};
    error.details = failure.details;
    error.details["target_dirty"] = true;
    finish(run, std::move(error));
  });
}

void merge(const std::shared_ptr<MergeRun>& run) {
  auto job = checkout_job(run->request.checkout, gw::Op::Merge);
  if (!job.ok()) return finish(run, std::move(job).error());
  job->deadline = run->request.deadline;
  job->request.source = run->request.source;
  job->request.expect_head = run->head;
  job->request.author_name = run->request.author_name;
  job->request.author_email = run->request.author_email;
  job->request.stall_ms = run->request.test_pause_ms;
  run->runner.run(std::move(*job), [run](Result<protocol::Json> result) {
    if (result.ok()) {
      auto merged = protocol::decode<gw::MergeResult>(*result);
      if (merged.ok()) return finish(run, std::move(*merged));
      // A merge that answered nonsense may have written anything.
      return restore(run, Error{ErrorCode::IoError, "the gitworker's merge reply is malformed"});
    }
    Error error = std::move(result).error();
    // The worker's own errors say whether it left the target as it was
    // (details.target_dirty false: refused, or restored itself); a worker
    // that did not answer, or left it dirty, is followed by a restore.
    const auto dirty = error.details.find("target_dirty");
    const bool untouched = error.code == ErrorCode::RateLimited ||
                           (dirty != error.details.end() && *dirty == false);
    if (untouched) return finish(run, std::move(error));
    restore(run, std::move(error));
  });
}

}  // namespace

std::chrono::milliseconds merge_deadline_from(const char* value) {
  if (value == nullptr) return kMergeDeadline;
  const std::string_view text(value);
  std::uint64_t ms = 0;
  bool valid = !text.empty() && text.size() <= 10;
  for (const char c : text) {
    if (c < '0' || c > '9') valid = false;
    else ms = ms * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (!valid || ms == 0 || ms > static_cast<std::uint64_t>(kMergeDeadlineMax.count())) {
    log::warn(std::string(kMergeTimeoutEnv) + "=" + std::string(text) +
              " is not a number of milliseconds in 1.." + std::to_string(kMergeDeadlineMax.count()) +
              "; merges keep the default " + std::to_string(kMergeDeadline.count()) + " ms");
    return kMergeDeadline;
  }
  return std::chrono::milliseconds(ms);
}

void run_merge(GitRunner& runner, MergeRequest request, MergeDone done) {
  auto run = std::make_shared<MergeRun>(MergeRun{runner, std::move(request), std::move(done), {}});
  auto job = checkout_job(run->request.checkout, gw::Op::Status);
  if (!job.ok()) {
    boost::asio::post(runner.io(), [run, error = std::move(job).error()]() mutable {
      finish(run, std::move(error));
    });
    return;
  }
  runner.run(std::move(*job), [run](Result<protocol::Json> result) {
    if (!result.ok()) return finish(run, std::move(result).error());  // never "clean"
    auto status = protocol::decode<gw::StatusResult>(*result);
    if (!status.ok()) return finish(run, Error{ErrorCode::IoError, "the gitworker's status reply is malformed"});
    if (!status->root) return finish(run, bad_params(run->request.checkout + " is not in a Git repository"));
    if (status->detached) return finish(run, bad_params("the target checkout is on a detached HEAD"));
    if (!status->head) return finish(run, bad_params("the target branch has no commit yet"));
    run->head = *status->head;
    merge(run);
  });
}

}  // namespace signaltty::broker::git
