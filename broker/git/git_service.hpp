// broker/git/git_service.hpp: what the repository methods share
// (docs/gitworker.md): the worker runner; the job for an operation on a
// checkout, with the directories its sandbox gets; the latest turn
// baseline of each workspace; and the checkout paths reserved while a
// worktree is being created or removed.
//
// Turn baselines (ADR-0029): an agent.working that does not come from
// blocked starts a turn. The service has a worker capture the pane's
// workspace checkout as a tree object (within kCaptureDeadline), records
// it as that workspace's latest baseline — or the capture's error, which
// turn-scoped reads then report — and emits workspace.turn_started
// {workspace_id, pane_id, started_at}. A workspace outside any repository
// gets neither. Baselines are runtime state: a broker restart has none.
//
// Runs in: broker (io thread). Never: reads a repository itself beyond
// finding its directories (broker/git/repo_paths.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <boost/asio/io_context.hpp>

#include "broker/event.hpp"
#include "broker/git/git_merge.hpp"
#include "broker/git/git_runner.hpp"
#include "broker/git/repo_paths.hpp"

namespace signaltty::broker {
class Store;
class EventPipeline;
}

namespace signaltty::broker::git {

struct TurnBaseline {
  std::string pane_id;
  std::string started_at;
  std::optional<std::string> tree;  // the captured tree, or
  std::string error;                // why there is none
};

// Checkout paths being created or removed. reserve() is false when `path`
// overlaps (is, contains or lies in) one already held; covers() is true for
// a path in one.
class PathReservations {
 public:
  bool reserve(const std::string& path);
  void release(const std::string& path) { held_.erase(path); }
  bool covers(const std::string& path) const;

 private:
  std::set<std::string> held_;
};

// The job for `op` on the checkout holding `cwd`: its repository's
// directories readable, those the op writes writable, the op's deadline.
// BAD_PARAMS when `cwd` is in no repository.
Result<GitJob> checkout_job(const std::string& cwd, gw::Op op);

class GitService {
 public:
  GitService(boost::asio::io_context& io, Launcher& launcher, Store& store, EventPipeline& pipeline);

  GitRunner& runner() { return runner_; }

  // checkout_job(cwd, op).
  Result<GitJob> job_at(const std::string& cwd, gw::Op op) const { return checkout_job(cwd, op); }

  // A merge into a checkout's branch (broker/git/git_merge.hpp) under the
  // merge deadline this broker started with (SIGNALTTY_MERGE_TIMEOUT_MS).
  void merge(MergeRequest request, MergeDone done) {
    request.deadline = merge_deadline_;
    run_merge(runner_, std::move(request), std::move(done));
  }
  std::chrono::milliseconds merge_deadline() const { return merge_deadline_; }

  // From the event hub: starts a turn on agent.working not from blocked.
  void on_event(const StateEvent& event);
  // The workspace's latest baseline, nullptr before any turn.
  const TurnBaseline* baseline(const std::string& workspace_id) const;
  // Re-reads the workspace's git fields in the background and records them
  // (workspace.updated, git.branch_changed); failures are logged.
  void refresh_later(const std::string& workspace_id);

  // Checkout paths being created or removed: workspace.create and
  // pane.spawn refuse a cwd inside one. reserve() is false when `path`
  // overlaps one already reserved.
  bool reserve(const std::string& path) { return reserved_.reserve(path); }
  void release(const std::string& path) { reserved_.release(path); }
  bool is_reserved(const std::string& path) const { return reserved_.covers(path); }

 private:
  void start_turn(const std::string& workspace_id, const std::string& pane_id,
                  const std::string& started_at);

  Store& store_;
  EventPipeline& pipeline_;
  GitRunner runner_;
  std::map<std::string, TurnBaseline> baselines_;
  std::map<std::string, std::uint64_t> turn_generation_;  // the newest capture per workspace
  PathReservations reserved_;
  std::chrono::milliseconds merge_deadline_;
};

// The workspace git fields of a status result.
protocol::WorkspaceGit workspace_git_of(const gw::StatusResult& status);

}  // namespace signaltty::broker::git
