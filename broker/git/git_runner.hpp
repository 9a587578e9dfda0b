// broker/git/git_runner.hpp: one gitworker per request (docs/gitworker.md
// "Process"). The launcher starts the worker with the directories its
// sandbox allows; the runner writes the request, reads the one reply,
// and holds the deadline: once the supervisor reports the worker's pid it
// keeps a pidfd on it, and at the deadline kills the worker's whole
// process group, waits for the supervisor to reap it and answers TIMEOUT.
// At most kGitRunningMax workers run at once; up to kGitQueuedMax requests
// wait, past that RATE_LIMITED.
// Runs in: broker (io thread). Never: trusts the worker's bytes (the reply
// is decoded as declared and bounded), or runs git itself.
//
// Usage:
//   runner.run({request, paths, deadline}, [](Result<Json> result) { ... });
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "common/errors.hpp"
#include "common/protocol/gitworker_wire.hpp"

namespace signaltty::broker {
class Launcher;
struct RunOutcome;
}

namespace signaltty::broker::git {

namespace gw = protocol::gitworker;

// Deadlines of the operation classes (docs/gitworker.md "Deadlines").
inline constexpr std::chrono::milliseconds kFileDiffDeadline{8000};
inline constexpr std::chrono::milliseconds kReadDeadline{30000};
inline constexpr std::chrono::milliseconds kCaptureDeadline{20000};
inline constexpr std::chrono::milliseconds kWorktreeDeadline{60000};
// A merge's default; SIGNALTTY_MERGE_TIMEOUT_MS sets it (broker/git/git_merge.hpp).
inline constexpr std::chrono::milliseconds kMergeDeadline{120000};
inline constexpr std::chrono::milliseconds kMergeRestoreDeadline{60000};

inline constexpr std::size_t kGitRunningMax = 4;
inline constexpr std::size_t kGitQueuedMax = 64;

struct GitJob {
  gw::Request request;
  std::vector<std::string> read_dirs;
  std::vector<std::string> write_dirs;
  std::chrono::milliseconds deadline{kReadDeadline};
};

class GitRunner {
 public:
  using Done = std::function<void(Result<protocol::Json> result)>;

  GitRunner(boost::asio::io_context& io, Launcher& launcher);
  ~GitRunner();
  GitRunner(const GitRunner&) = delete;
  GitRunner& operator=(const GitRunner&) = delete;

  // `done` runs later on the io thread, exactly once (never after the
  // runner is destroyed): the op's result, or its error — the worker's own
  // (BAD_PARAMS, IO_ERROR, ...), TIMEOUT, IO_ERROR "sandbox unavailable"
  // or "sandbox violation", RATE_LIMITED when too many wait.
  void run(GitJob job, Done done);

  std::size_t running() const { return running_; }
  boost::asio::io_context& io() { return io_; }

 private:
  struct Waiting {
    GitJob job;
    Done done;
  };
  struct Active;
  void pump();
  void start(Waiting waiting);
  void finished(const std::shared_ptr<Active>& active, Result<protocol::Json> result);

  boost::asio::io_context& io_;
  Launcher& launcher_;
  std::deque<Waiting> queue_;
  std::size_t running_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// How a finished worker's run reads as a result (exposed for tests).
Result<protocol::Json> interpret_worker(const RunOutcome& outcome, bool timed_out,
                                        std::chrono::milliseconds deadline);

}  // namespace signaltty::broker::git
