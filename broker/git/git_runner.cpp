// broker/git/git_runner.cpp: the gitworker queue, each worker one
// SupervisedRun with a deadline the broker holds through a pidfd.
// Runs in: broker (io thread).
#include "broker/git/git_runner.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include <boost/asio/steady_timer.hpp>

#include "broker/launcher.hpp"
#include "broker/supervised_run.hpp"
#include "common/log.hpp"
#include "common/protocol/json_parse.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker::git {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
    text.pop_back();
  return text;
}

// The parent pid /proc reports for `pid`, or -1.
pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 1));
  char state = 0;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

// A pidfd on the worker `child` of `supervisor`: checked to be that
// supervisor's child after opening, so a pid reused after the worker was
// reaped is never taken for it. Empty when the worker is already gone.
UniqueFd open_worker_pidfd(pid_t supervisor, pid_t child) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, child, 0)));
  if (!pidfd || parent_of(child) != supervisor) return {};
  return pidfd;
}

Result<protocol::Json> decode_reply(const std::string& out) {
  auto doc = protocol::parse_json(out);
  if (!doc.ok()) return Error{ErrorCode::IoError, "the gitworker's reply is not JSON"};
  auto reply = protocol::decode<gw::Reply>(*doc);
  if (!reply.ok()) return Error{ErrorCode::IoError, "the gitworker's reply is malformed: " + reply.error().message};
  if (reply->ok && reply->result) return std::move(*reply->result);
  if (!reply->ok && reply->error) {
    const auto code = error_code_from_wire(reply->error->code);
    Error error{code.value_or(ErrorCode::IoError), reply->error->message};
    if (reply->error->details && reply->error->details->is_object())
      error.details = std::move(*reply->error->details);
    return error;
  }
  return Error{ErrorCode::IoError, "the gitworker's reply has neither result nor error"};
}

}  // namespace

Result<protocol::Json> interpret_worker(const RunOutcome& outcome, bool timed_out,
                                        std::chrono::milliseconds deadline) {
  const std::string seconds = std::to_string((deadline.count() + 999) / 1000);
  if (timed_out)
    return Error{ErrorCode::Timeout, "the git operation did not finish within " + seconds + "s"};
  if (outcome.failed) {
    if (outcome.failed->code == ErrorCode::Timeout)
      return Error{ErrorCode::Timeout, "the gitworker's supervisor never reported"};
    return Error{ErrorCode::IoError, "cannot start signaltty-gitworker: " + outcome.failed->message};
  }
  if (!outcome.report.end)
    return Error{ErrorCode::IoError, "the gitworker's supervisor ended without a report"};
  const ChildEnd& end = *outcome.report.end;
  const std::string err = trimmed(outcome.err);
  switch (end.kind) {
    case ChildEnd::Kind::TimedOut:
      return Error{ErrorCode::Timeout, "the git operation did not finish within " + seconds + "s"};
    case ChildEnd::Kind::SpawnFailed:
      return Error::from_errno(ErrorCode::IoError, end.what, end.value, "signaltty-gitworker");
    case ChildEnd::Kind::Signaled:
      if (end.value == SIGSYS)
        return Error{ErrorCode::IoError,
                     "sandbox violation: the gitworker made a forbidden system call and was killed"};
      return Error{ErrorCode::IoError, "the gitworker was killed by signal " + std::to_string(end.value)};
    case ChildEnd::Kind::Exited: break;
  }
  if (end.value == gw::kExitSandboxUnavailable)
    return Error{ErrorCode::IoError, "sandbox unavailable: " + err};
  if (end.value != gw::kExitReplied)
    return Error{ErrorCode::IoError, "the gitworker failed (exit " + std::to_string(end.value) +
                                         (err.empty() ? ")" : "): " + err)};
  if (outcome.out_cut) return Error{ErrorCode::IoError, "the gitworker's reply is over its size limit"};
  return decode_reply(outcome.out);
}

// One worker: its run, its deadline, its pidfd.
struct GitRunner::Active {
  Active(boost::asio::io_context& io, Waiting waiting) : waiting(std::move(waiting)), deadline(io) {}
  Waiting waiting;
  std::shared_ptr<SupervisedRun> run;
  boost::asio::steady_timer deadline;
  UniqueFd pidfd;
  pid_t child = -1;
  bool timed_out = false;
};

GitRunner::GitRunner(boost::asio::io_context& io, Launcher& launcher) : io_(io), launcher_(launcher) {}

GitRunner::~GitRunner() = default;

void GitRunner::run(GitJob job, Done done) {
  if (queue_.size() >= kGitQueuedMax)
    return boost::asio::post(io_, [done = std::move(done)] {
      done(Error{ErrorCode::RateLimited, "too many git operations are waiting"});
    });
  queue_.push_back({std::move(job), std::move(done)});
  pump();
}

void GitRunner::pump() {
  while (running_ < kGitRunningMax && !queue_.empty()) {
    Waiting next = std::move(queue_.front());
    queue_.pop_front();
    start(std::move(next));
  }
}

void GitRunner::start(Waiting waiting) {
  ++running_;
  auto active = std::make_shared<Active>(io_, std::move(waiting));
  const GitJob& job = active->waiting.job;
  GitLaunch launch{job.deadline, job.read_dirs, job.write_dirs};
  auto input = std::make_shared<const std::string>(protocol::encode(job.request).dump());
  RunLimits limits;
  limits.stdout_max = gw::kMaxReplyBytes;
  limits.stderr_max = gw::kMaxStderrBytes;
  limits.drain_grace = std::chrono::milliseconds(500);
  limits.backstop = job.deadline + kGitSupervisorGrace + std::chrono::seconds(3);
  Launcher& launcher = launcher_;
  std::weak_ptr<bool> alive = alive_;
  active->run = SupervisedRun::start(
      io_,
      [&launcher, launch](ChildPipes theirs, Launcher::LaunchDone started) {
        launcher.run_git(launch, std::move(theirs), std::move(started));
      },
      input, limits,
      [this, alive, active](RunOutcome outcome) {
        if (!alive.lock()) return;
        active->deadline.cancel();
        finished(active, interpret_worker(outcome, active->timed_out, active->waiting.job.deadline));
      },
      [active](pid_t supervisor, pid_t child) {
        active->child = child;
        active->pidfd = open_worker_pidfd(supervisor, child);
      });
  active->deadline.expires_after(job.deadline);
  active->deadline.async_wait([active](const boost::system::error_code& ec) {
    if (ec || !active->run) return;
    active->timed_out = true;
    if (!active->pidfd) {
      // No pid yet (or the worker already gone): the supervisor's own
      // deadline kills it; answer now.
      return active->run->cancel(Error{ErrorCode::Timeout, "deadline"});
    }
    // The worker leads its process group: everything it started goes too.
    ::kill(-active->child, SIGKILL);
    ::syscall(SYS_pidfd_send_signal, active->pidfd.get(), SIGKILL, nullptr, 0);
  });
}

void GitRunner::finished(const std::shared_ptr<Active>& active, Result<protocol::Json> result) {
  --running_;
  if (!result.ok() && (result.error().code == ErrorCode::IoError ||
                       result.error().code == ErrorCode::Timeout))
    log::warn("gitworker " + std::string(protocol::EnumNames<gw::Op>::names[static_cast<std::size_t>(
                                 active->waiting.job.request.op)].second) +
              " in " + active->waiting.job.request.repo + ": " + result.error().message);
  Done done = std::move(active->waiting.done);
  active->run.reset();
  done(std::move(result));
  pump();
}

}  // namespace signaltty::broker::git
