// broker/plugins/hook_runner.cpp: the hook queue; each firing one
// SupervisedRun (broker/supervised_run.hpp).
// Runs in: broker (io thread).
#include "broker/plugins/hook_runner.hpp"

#include <optional>

#include "broker/launcher.hpp"
#include "broker/plugins/hook_launch.hpp"
#include "broker/supervised_run.hpp"
#include "common/log.hpp"
#include "common/protocol/envelope.hpp"

namespace signaltty::broker::plugins {
namespace {

std::string hook_name(const HookRef& hook) {
  return hook.plugin().name + "#" + std::to_string(hook.hook_index + 1);
}

// How the supervisor said the hook ended, quoting its stderr.
Status hook_result(const RunOutcome& outcome, std::uint32_t timeout_secs) {
  if (outcome.failed) {
    if (outcome.failed->code != ErrorCode::Timeout) return *outcome.failed;
    return Error{ErrorCode::Timeout, "timed out after " + std::to_string(timeout_secs) +
                                         "s (its supervisor never reported)"};
  }
  if (!outcome.report.end)
    return Error{ErrorCode::SpawnFailed, "the hook's supervisor ended without a report"};
  return hook_outcome(*outcome.report.end, timeout_secs, outcome.err);
}

}  // namespace

HookRunner::HookRunner(boost::asio::io_context& io, Launcher& launcher, PluginRegistry registry,
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
  const HookRef& hook = waiting.hook;
  const HookLaunch launch{hook.plugin().name, hook.hook_index, hook_fingerprint(hook.hook()),
                          waiting.event};
  const std::uint32_t timeout_secs = hook.hook().timeout_secs;
  RunLimits limits;
  limits.stdout_max = kHookCaptureBytes;
  limits.stderr_max = kHookCaptureBytes;
  limits.drain_grace = kHookDrainGrace;
  limits.backstop = std::chrono::seconds(timeout_secs) + kHookSupervisorGrace;
  Launcher& launcher = launcher_;
  SupervisedRun::start(
      io_,
      [&launcher, launch](ChildPipes theirs, Launcher::LaunchDone started) {
        launcher.run_hook(launch, std::move(theirs), std::move(started));
      },
      waiting.envelope, limits,
      [this, alive = std::weak_ptr<bool>(alive_), waiting, timeout_secs](RunOutcome outcome) {
        if (alive.lock()) finished(waiting.hook, waiting.event, hook_result(outcome, timeout_secs));
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
