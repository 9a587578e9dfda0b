// broker/services.hpp: the broker's long-lived parts as handlers reach them,
// and the context one request runs in. Runs in: broker (io thread).
// Never: owns anything; broker/server.cpp builds and owns the parts.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <boost/asio/io_context.hpp>

#include "broker/config.hpp"
#include "broker/event.hpp"
#include "broker/session.hpp"

namespace signaltty::broker {

class Store;
class EventPipeline;
class EventHub;
class SnapshotScheduler;
class Supervisor;
class Viewers;
class DecisionRoutes;
class Detector;
class PaneTokens;
namespace plugins {
class HookRunner;
}
namespace git {
class GitService;
}

struct Services {
  boost::asio::io_context& io;
  const Config& config;
  Store& store;
  EventPipeline& pipeline;
  EventHub& hub;
  SnapshotScheduler& snapshots;
  Supervisor& supervisor;  // panes' processes (broker/supervisor.hpp)
  Viewers& viewers;        // who attached which pane (broker/viewers.hpp)
  DecisionRoutes& routes;  // waiting native permission reporters (broker/native_decisions.hpp)
  Detector& detector;      // screen rules, process refresh, manifests (broker/detector.hpp)
  plugins::HookRunner& hooks;  // executable plugins (broker/plugins/hook_runner.hpp)
  git::GitService& git;        // gitworkers, turn baselines (broker/git/git_service.hpp)
  const PaneTokens& tokens;    // each pane's SIGNALTTY_TOKEN (broker/pane_tokens.hpp)
  std::chrono::steady_clock::time_point started_at;
  // Orderly stop: save the snapshot, close the listener, exit 0.
  std::function<void()> request_stop;
};

// What a handler sees. `txn` collects the events of a mutating call; the
// router commits them (journal, then publish) before the reply goes out.
struct Ctx {
  Services& services;
  std::shared_ptr<Session> session;
  Txn& txn;
};

// For asynchronous handlers: called exactly once with the typed result.
template <class R>
using Reply = std::function<void(Result<R>)>;

}  // namespace signaltty::broker
