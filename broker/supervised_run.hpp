// broker/supervised_run.hpp: the broker's half of one supervised child
// (broker/supervised_child.hpp): it makes the four pipes, has the launcher
// start the child on them, writes the child's stdin and closes it, keeps
// the first bytes of its stdout and stderr, and reads the supervisor's
// status report. It ends exactly once: when the status pipe and both
// output pipes are closed; a short drain grace after the status when
// something the child left running still holds an output pipe; at the
// backstop when the supervisor never reports; or when the launcher refuses.
// Runs in: broker (io thread). Used by: plugin hooks, gitworkers.
//
// Usage:
//   SupervisedRun::start(io, [&](ChildPipes theirs, Launcher::LaunchDone started) {
//                          launcher.run_git(launch, std::move(theirs), std::move(started));
//                        },
//                        input, caps, [](RunOutcome outcome) { ... });
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>

#include "broker/launcher.hpp"
#include "broker/supervised_child.hpp"
#include "common/errors.hpp"

namespace signaltty::broker {

struct RunLimits {
  std::size_t stdout_max = 8u << 10;  // bytes kept; more is read and dropped
  std::size_t stderr_max = 8u << 10;
  std::chrono::milliseconds drain_grace{1000};
  std::chrono::milliseconds backstop{0};  // from the launcher's reply
};

struct RunOutcome {
  std::optional<Error> failed;  // the launcher refused, the backstop fired, or cancel()
  StatusReport report;
  std::string out;
  std::string err;
  bool out_cut = false;  // stdout went past stdout_max
};

class SupervisedRun : public std::enable_shared_from_this<SupervisedRun> {
 public:
  using Launch = std::function<void(ChildPipes theirs, Launcher::LaunchDone started)>;
  using Done = std::function<void(RunOutcome outcome)>;
  using ChildPid = std::function<void(pid_t supervisor, pid_t child)>;

  // `on_child_pid` runs once the supervisor reports the child's pid (only
  // supervisors started with report_pid do).
  static std::shared_ptr<SupervisedRun> start(boost::asio::io_context& io, const Launch& launch,
                                              std::shared_ptr<const std::string> input,
                                              RunLimits limits, Done done,
                                              ChildPid on_child_pid = {});
  // Ends the run now with `why` (its pipes closed; the supervisor and the
  // child are left to their own deadline). No effect once ended.
  void cancel(Error why);

  SupervisedRun(boost::asio::io_context& io, std::shared_ptr<const std::string> input,
                RunLimits limits, Done done, ChildPid on_child_pid);
  ~SupervisedRun();
  SupervisedRun(const SupervisedRun&) = delete;
  SupervisedRun& operator=(const SupervisedRun&) = delete;

 private:
  struct Impl;
  struct Capture;
  void begin(pid_t supervisor);
  void read(Capture& capture);
  void status_progress();
  void closed();
  void finish(std::optional<Error> failed);
  std::unique_ptr<Impl> impl_;
};

}  // namespace signaltty::broker
