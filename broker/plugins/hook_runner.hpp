// broker/plugins/hook_runner.hpp: fires plugin hooks on the broker's live
// state events (docs/plugins.md). Each hook one of whose globs selects a
// published event is one job: at most kHooksRunningMax run at once across
// every plugin, the rest wait in line (at most kHooksQueuedMax; past that a
// firing is dropped and counted as an error of its hook). A job asks the
// launcher for the hook (the broker never execs: broker/plugins/
// hook_launch.hpp), writes the event envelope on its stdin, drains its
// stdout and stderr concurrently (keeping the first kHookCaptureBytes of
// each) and records how it ended in the registry's statistics.
// Runs in: broker (io thread). Never: blocks on a hook, lets a hook's
// outcome touch the event bus, or runs a hook for pty.data or a replay.
//
// Usage:
//   HookRunner hooks(io, launcher, PluginRegistry::scan(config.plugin_dir));
//   hub.watch([&hooks](const StateEvent& ev) { hooks.offer(ev); });
//   return hooks.registry().describe();  // plugin.list
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "broker/event.hpp"
#include "broker/plugins/plugin_registry.hpp"

namespace signaltty::broker {
class Launcher;
}

namespace signaltty::broker::plugins {

// The spec's: at most 8 hooks run at once.
inline constexpr std::size_t kHooksRunningMax = 8;
// Ours: firings waiting for a slot; past this they are dropped.
inline constexpr std::size_t kHooksQueuedMax = 1024;
// Ours: what is kept of a hook's stdout and of its stderr (the rest is read
// and discarded, so the hook never blocks on a full pipe).
inline constexpr std::size_t kHookCaptureBytes = 8u << 10;
// Ours: after the status line, how long a hook's stdout and stderr may stay
// open (held by something it left running) before the job ends anyway.
inline constexpr std::chrono::milliseconds kHookDrainGrace{1000};
// Ours: past its timeout plus this, a job whose supervisor never reported
// ends as timed out.
inline constexpr std::chrono::seconds kHookSupervisorGrace{10};

struct HookRunnerLimits {
  std::size_t running_max = kHooksRunningMax;
  std::size_t queued_max = kHooksQueuedMax;
};

class HookRunner {
 public:
  HookRunner(boost::asio::io_context& io, Launcher& launcher, PluginRegistry registry,
             HookRunnerLimits limits = {});
  ~HookRunner();
  HookRunner(const HookRunner&) = delete;
  HookRunner& operator=(const HookRunner&) = delete;

  // A published state event: one job per matching hook.
  void offer(const StateEvent& event);

  // plugin.list, plugin.reload (a running job keeps the set it started
  // from; its outcome is not counted in the new statistics).
  const PluginRegistry& registry() const { return registry_; }
  protocol::PluginListResult reload();

  std::size_t running() const { return running_; }
  std::size_t queued() const { return queue_.size(); }
  // Called after each job has been recorded (tests wait on it).
  void on_finished(std::function<void(const HookRef&, const Status&)> callback) {
    on_finished_ = std::move(callback);
  }

 private:
  struct Waiting {
    HookRef hook;
    std::string event;
    std::shared_ptr<const std::string> envelope;  // shared by the event's jobs
  };

  void pump();
  void start(Waiting waiting);
  void finished(const HookRef& hook, const std::string& event, const Status& outcome);

  boost::asio::io_context& io_;
  Launcher& launcher_;
  PluginRegistry registry_;
  HookRunnerLimits limits_;
  std::deque<Waiting> queue_;
  std::size_t running_ = 0;
  std::uint64_t dropped_ = 0;  // since the queue last had room
  std::function<void(const HookRef&, const Status&)> on_finished_;
  // Jobs hold it weakly: a job that ends after the runner is gone records nothing.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace signaltty::broker::plugins
