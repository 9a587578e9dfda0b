// gitworker/ops.cpp: run_op, the dispatch from a request to its operation.
// Runs in: gitworker.
#include "gitworker/ops.hpp"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace signaltty::gitworker {
namespace {

template <class R>
Result<protocol::Json> encoded(Result<R> result) {
  if (!result.ok()) return std::move(result).error();
  return protocol::encode(*result);
}

Error needs(std::string_view op, std::string_view field) {
  return bad_params(std::string(op) + " needs " + std::string(field));
}

}  // namespace

Result<protocol::Json> run_op(const gw::Request& request) {
  if (request.repo.empty() || request.repo.front() != '/')
    return bad_params("repo must be an absolute path");
  switch (request.op) {
    case gw::Op::Status: return encoded(repo_status(request));
    case gw::Op::Diff: return encoded(diff_numstat(request));
    case gw::Op::FileDiff:
      if (!request.path) return needs("file_diff", "path");
      return encoded(file_diff(request));
    case gw::Op::Capture: return encoded(capture_tree(request));
    case gw::Op::WorktreeList: return encoded(worktree_list(request));
    case gw::Op::WorktreeAdd:
      if (!request.path || !request.branch) return needs("worktree_add", "path and branch");
      return encoded(worktree_add(request));
    case gw::Op::WorktreeRemove:
      if (!request.path) return needs("worktree_remove", "path");
      return encoded(worktree_remove(request));
    case gw::Op::MergePreview:
      if (!request.branch || !request.source) return needs("merge_preview", "branch and source");
      return encoded(merge_preview(request));
    case gw::Op::Merge:
      if (!request.source || !request.expect_head) return needs("merge", "source and expect_head");
      return encoded(merge_commit(request));
    case gw::Op::MergeRestore: return encoded(merge_restore(request));
    case gw::Op::Stall:
#ifdef SIGNALTTY_GITWORKER_TEST_OPS
    {
      // Test builds only: a worker that outlives its deadline on request.
      const std::uint32_t ms = request.stall_ms.value_or(0);
      timespec left{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000L};
      while (::clock_nanosleep(CLOCK_MONOTONIC, 0, &left, &left) != 0) {
      }
      return protocol::Json::object();
    }
#else
      return bad_params("stall is a test-build op");
#endif
    case gw::Op::Violate:
#ifdef SIGNALTTY_GITWORKER_TEST_OPS
      // Test builds only: the filter kills the worker here (SIGSYS).
      ::syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
      return bad_params("the sandbox let a socket through");
#else
      return bad_params("violate is a test-build op");
#endif
  }
  return bad_params("unknown op");
}

}  // namespace signaltty::gitworker
