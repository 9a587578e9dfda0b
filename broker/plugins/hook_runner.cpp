// broker/plugins/hook_runner.cpp: the hook queue, and one job's pipes from
// the launcher's reply to the supervisor's status line.
// Runs in: broker (io thread).
#include "broker/plugins/hook_runner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <optional>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "broker/launcher.hpp"
#include "broker/plugins/hook_launch.hpp"
#include "common/log.hpp"
#include "common/protocol/envelope.hpp"

namespace signaltty::broker::plugins {
namespace {

namespace asio = boost::asio;
using Descriptor = asio::posix::stream_descriptor;

// The longest status line a supervisor writes ("spawn <errno> execve <path>").
constexpr std::size_t kStatusMaxBytes = 4096 + 64;

std::string hook_name(const HookRef& hook) {
  return hook.plugin().name + "#" + std::to_string(hook.hook_index + 1);
}

struct PipePair {
  UniqueFd read;
  UniqueFd write;
};

Result<PipePair> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::from_errno(ErrorCode::SpawnFailed, "pipe2", errno);
  return PipePair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace

// One firing, from the launcher's reply to the status line. Shared by its
// pending handlers; ends exactly once.
struct HookRunner::Job : std::enable_shared_from_this<Job> {
  Job(asio::io_context& io, HookRunner& runner, Waiting what)
      : runner(&runner),
        alive(runner.alive_),
        what(std::move(what)),
        in(io),
        out(io),
        err(io),
        status(io),
        drain(io),
        backstop(io) {}

  // A stream read to its end, keeping the first `cap` bytes.
  struct Capture {
    std::string text;
    std::array<char, 4096> buf{};
    std::size_t cap = 0;
    bool open = true;
  };

  void begin() {
    auto self = shared_from_this();
    asio::async_write(in, asio::buffer(*what.envelope),
                      [self](const boost::system::error_code&, std::size_t) {
                        // Written, or the hook closed its stdin: either way, done.
                        boost::system::error_code ignored;
                        self->in.close(ignored);
                      });
    out_capture.cap = kHookCaptureBytes;
    err_capture.cap = kHookCaptureBytes;
    status_capture.cap = kStatusMaxBytes;
    read(out, out_capture, [](Job& job) { job.stream_closed(); });
    read(err, err_capture, [](Job& job) { job.stream_closed(); });
    read(status, status_capture, [](Job& job) { job.status_closed(); });
    backstop.expires_after(std::chrono::seconds(what.hook.hook().timeout_secs) +
                           kHookSupervisorGrace);
    backstop.async_wait([self](const boost::system::error_code& ec) {
      if (ec) return;
      self->end(Status(Error{ErrorCode::Timeout,
                      "timed out after " + std::to_string(self->what.hook.hook().timeout_secs) +
                          "s (its supervisor never reported)"}));
    });
  }

  template <class OnEof>
  void read(Descriptor& d, Capture& capture, OnEof on_eof) {
    auto self = shared_from_this();
    d.async_read_some(asio::buffer(capture.buf),
                      [self, &d, &capture, on_eof](const boost::system::error_code& ec,
                                                   std::size_t n) {
                        if (self->ended) return;
                        const std::size_t room = capture.cap - std::min(capture.cap, capture.text.size());
                        capture.text.append(capture.buf.data(), std::min(n, room));
                        if (ec) {
                          capture.open = false;
                          return on_eof(*self);
                        }
                        self->read(d, capture, on_eof);
                      });
  }

  void stream_closed() {
    if (status_done && !out_capture.open && !err_capture.open) end(std::nullopt);
  }

  void status_closed() {
    status_done = true;
    if (!out_capture.open && !err_capture.open) return end(std::nullopt);
    // Something the hook left running holds its stdout or stderr: a short
    // wait for what the hook itself wrote, then the job ends anyway.
    auto self = shared_from_this();
    drain.expires_after(kHookDrainGrace);
    drain.async_wait([self](const boost::system::error_code& ec) {
      if (!ec) self->end(std::nullopt);
    });
  }

  // How the supervisor said the hook ended, quoting its stderr.
  Status reported() const {
    const auto line = decode_hook_end(status_capture.text);
    if (!line) return Error{ErrorCode::SpawnFailed, "the hook's supervisor ended without a report"};
    return hook_outcome(*line, what.hook.hook().timeout_secs, err_capture.text);
  }

  // `forced`: the job ends before its status line (the launcher refused,
  // the backstop fired); nullopt: as the status line says.
  void end(std::optional<Status> forced) {
    if (ended) return;
    ended = true;
    boost::system::error_code ignored;
    for (Descriptor* d : {&in, &out, &err, &status}) d->close(ignored);
    drain.cancel();
    backstop.cancel();
    const Status result = forced ? *forced : reported();
    if (alive.lock()) runner->finished(what.hook, what.event, result);
  }

  HookRunner* runner;
  std::weak_ptr<bool> alive;
  Waiting what;
  Descriptor in, out, err, status;
  Capture out_capture, err_capture, status_capture;
  asio::steady_timer drain, backstop;
  bool status_done = false;
  bool ended = false;
};

HookRunner::HookRunner(asio::io_context& io, Launcher& launcher, PluginRegistry registry,
                       HookRunnerLimits limits)
    : io_(io), launcher_(launcher), registry_(std::move(registry)), limits_(limits) {}

HookRunner::~HookRunner() = default;

void HookRunner::offer(const StateEvent& event) {
  std::vector<HookRef> hooks = registry_.matching_hooks(event.name);
  if (hooks.empty()) return;
  auto envelope = std::make_shared<const std::string>(
      protocol::encode_event(event.name, event.seq, event.payload));
  for (HookRef& hook : hooks) {
    if (queue_.size() >= limits_.queued_max) {
      if (dropped_++ == 0)
        log::warn("plugins: " + std::to_string(queue_.size()) +
                  " hook runs already waiting; dropping new ones until there is room");
      registry_.record_run(hook, Error{ErrorCode::RateLimited,
                                       "not run: " + std::to_string(queue_.size()) +
                                           " hook runs were already waiting"});
      continue;
    }
    queue_.push_back({std::move(hook), event.name, envelope});
  }
  pump();
}

protocol::PluginListResult HookRunner::reload() {
  registry_.reload();
  return registry_.describe();
}

void HookRunner::pump() {
  while (running_ < limits_.running_max && !queue_.empty()) {
    Waiting next = std::move(queue_.front());
    queue_.pop_front();
    if (queue_.empty() && dropped_ > 0) {
      log::info("plugins: the hook queue has room again (" + std::to_string(dropped_) +
                " runs were dropped)");
      dropped_ = 0;
    }
    start(std::move(next));
  }
}

void HookRunner::start(Waiting waiting) {
  ++running_;
  std::array<Result<PipePair>, kHookPipeCount> pipes{make_pipe(), make_pipe(), make_pipe(),
                                                      make_pipe()};
  for (auto& pipe : pipes)
    if (!pipe.ok()) return finished(waiting.hook, waiting.event, pipe.error());
  // The hook reads stdin and writes the other three; the broker the reverse.
  HookPipes theirs{std::move(pipes[kHookStdin]->read), std::move(pipes[kHookStdout]->write),
                   std::move(pipes[kHookStderr]->write), std::move(pipes[kHookStatus]->write)};
  auto job = std::make_shared<Job>(io_, *this, std::move(waiting));
  job->in.assign(pipes[kHookStdin]->write.release());
  job->out.assign(pipes[kHookStdout]->read.release());
  job->err.assign(pipes[kHookStderr]->read.release());
  job->status.assign(pipes[kHookStatus]->read.release());
  const HookRef& hook = job->what.hook;
  const HookLaunch launch{hook.plugin().name, hook.hook_index, hook_fingerprint(hook.hook()),
                          job->what.event};
  launcher_.run_hook(launch, std::move(theirs), [job](Result<pid_t> supervisor) {
    if (!supervisor.ok()) return job->end(Status(supervisor.error()));
    job->begin();
  });
}

void HookRunner::finished(const HookRef& hook, const std::string& event, const Status& outcome) {
  --running_;
  registry_.record_run(hook, outcome);
  if (!outcome.ok())
    log::warn("plugin hook " + hook_name(hook) + " on " + event + ": " +
              hook_error_text(outcome.error().message));
  if (on_finished_) on_finished_(hook, outcome);
  pump();
}

}  // namespace signaltty::broker::plugins
