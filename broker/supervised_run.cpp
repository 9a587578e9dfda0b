// broker/supervised_run.cpp: one supervised child's pipes, from the
// launcher's reply to the supervisor's status report.
// Runs in: broker (io thread).
#include "broker/supervised_run.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace signaltty::broker {
namespace {

namespace asio = boost::asio;
using Descriptor = asio::posix::stream_descriptor;

// The longest status report a supervisor writes: a pid line, then
// "spawn <errno> execve <path>".
constexpr std::size_t kStatusMaxBytes = 4096 + 128;

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

// A stream read to its end, keeping the first `cap` bytes.
struct SupervisedRun::Capture {
  explicit Capture(asio::io_context& io) : pipe(io) {}
  Descriptor pipe;
  std::string text;
  std::array<char, 4096> buf{};
  std::size_t cap = 0;
  bool cut = false;
  bool open = true;
};

struct SupervisedRun::Impl {
  Impl(asio::io_context& io, std::shared_ptr<const std::string> input, RunLimits limits, Done done,
       ChildPid on_child_pid)
      : input(std::move(input)),
        limits(limits),
        done(std::move(done)),
        on_child_pid(std::move(on_child_pid)),
        in(io),
        out(io),
        err(io),
        status(io),
        drain(io),
        backstop(io) {}

  std::shared_ptr<const std::string> input;
  RunLimits limits;
  Done done;
  ChildPid on_child_pid;
  Descriptor in;
  Capture out, err, status;
  asio::steady_timer drain, backstop;
  pid_t supervisor = -1;
  bool pid_reported = false;
  bool ended = false;
};

SupervisedRun::SupervisedRun(asio::io_context& io, std::shared_ptr<const std::string> input,
                             RunLimits limits, Done done, ChildPid on_child_pid)
    : impl_(std::make_unique<Impl>(io, std::move(input), limits, std::move(done),
                                   std::move(on_child_pid))) {}

SupervisedRun::~SupervisedRun() = default;

std::shared_ptr<SupervisedRun> SupervisedRun::start(asio::io_context& io, const Launch& launch,
                                                    std::shared_ptr<const std::string> input,
                                                    RunLimits limits, Done done,
                                                    ChildPid on_child_pid) {
  auto run = std::make_shared<SupervisedRun>(io, std::move(input), limits, std::move(done),
                                             std::move(on_child_pid));
  std::array<Result<PipePair>, kChildPipeCount> pipes{make_pipe(), make_pipe(), make_pipe(),
                                                      make_pipe()};
  for (auto& pipe : pipes)
    if (!pipe.ok()) {
      run->cancel(pipe.error());
      return run;
    }
  // The child reads stdin and writes the other three; the broker the reverse.
  ChildPipes theirs{std::move(pipes[kChildStdin]->read), std::move(pipes[kChildStdout]->write),
                    std::move(pipes[kChildStderr]->write), std::move(pipes[kChildStatus]->write)};
  Impl& impl = *run->impl_;
  impl.in.assign(pipes[kChildStdin]->write.release());
  impl.out.pipe.assign(pipes[kChildStdout]->read.release());
  impl.err.pipe.assign(pipes[kChildStderr]->read.release());
  impl.status.pipe.assign(pipes[kChildStatus]->read.release());
  launch(std::move(theirs), [run](Result<pid_t> supervisor) {
    if (!supervisor.ok()) return run->cancel(supervisor.error());
    run->begin(*supervisor);
  });
  return run;
}

void SupervisedRun::begin(pid_t supervisor) {
  Impl& impl = *impl_;
  if (impl.ended) return;
  impl.supervisor = supervisor;
  auto self = shared_from_this();
  asio::async_write(impl.in, asio::buffer(*impl.input),
                    [self](const boost::system::error_code&, std::size_t) {
                      // Written, or the child closed its stdin: either way, done.
                      boost::system::error_code ignored;
                      self->impl_->in.close(ignored);
                    });
  impl.out.cap = impl.limits.stdout_max;
  impl.err.cap = impl.limits.stderr_max;
  impl.status.cap = kStatusMaxBytes;
  read(impl.out);
  read(impl.err);
  read(impl.status);
  impl.backstop.expires_after(impl.limits.backstop);
  impl.backstop.async_wait([self](const boost::system::error_code& ec) {
    if (!ec) self->cancel(Error{ErrorCode::Timeout, "its supervisor never reported"});
  });
}

void SupervisedRun::read(Capture& capture) {
  auto self = shared_from_this();
  capture.pipe.async_read_some(
      asio::buffer(capture.buf), [self, &capture](const boost::system::error_code& ec, std::size_t n) {
        Impl& impl = *self->impl_;
        if (impl.ended) return;
        const std::size_t room = capture.cap - std::min(capture.cap, capture.text.size());
        capture.text.append(capture.buf.data(), std::min(n, room));
        if (n > room) capture.cut = true;
        if (&capture == &impl.status) self->status_progress();
        if (ec) {
          capture.open = false;
          return self->closed();
        }
        self->read(capture);
      });
}

// The pid line may arrive long before the end line.
void SupervisedRun::status_progress() {
  Impl& impl = *impl_;
  if (impl.pid_reported || !impl.on_child_pid) return;
  const StatusReport report = decode_status_report(impl.status.text);
  if (!report.child_pid) return;
  impl.pid_reported = true;
  impl.on_child_pid(impl.supervisor, *report.child_pid);
}

void SupervisedRun::closed() {
  Impl& impl = *impl_;
  if (impl.status.open) return;
  if (!impl.out.open && !impl.err.open) return finish(std::nullopt);
  // Something the child left running holds its stdout or stderr: a short
  // wait for what the child itself wrote, then the run ends anyway.
  if (impl.drain.expiry() != asio::steady_timer::time_point{}) return;
  auto self = shared_from_this();
  impl.drain.expires_after(impl.limits.drain_grace);
  impl.drain.async_wait([self](const boost::system::error_code& ec) {
    if (!ec) self->finish(std::nullopt);
  });
}

void SupervisedRun::cancel(Error why) { finish(std::move(why)); }

void SupervisedRun::finish(std::optional<Error> failed) {
  Impl& impl = *impl_;
  if (impl.ended) return;
  impl.ended = true;
  boost::system::error_code ignored;
  for (Descriptor* d : {&impl.in, &impl.out.pipe, &impl.err.pipe, &impl.status.pipe}) d->close(ignored);
  impl.drain.cancel();
  impl.backstop.cancel();
  RunOutcome outcome;
  outcome.failed = std::move(failed);
  outcome.report = decode_status_report(impl.status.text);
  outcome.out = std::move(impl.out.text);
  outcome.err = std::move(impl.err.text);
  outcome.out_cut = impl.out.cut;
  Done done = std::move(impl.done);
  impl.on_child_pid = nullptr;
  if (done) done(std::move(outcome));
}

}  // namespace signaltty::broker
