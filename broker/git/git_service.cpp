// broker/git/git_service.cpp: jobs for a checkout, turn baselines, path
// reservations.
// Runs in: broker (io thread).
#include "broker/git/git_service.hpp"

#include <cstdlib>

#include "broker/event_pipeline.hpp"
#include "broker/git/git_launch.hpp"
#include "broker/store.hpp"
#include "common/log.hpp"

namespace signaltty::broker::git {

protocol::WorkspaceGit workspace_git_of(const gw::StatusResult& status) {
  protocol::WorkspaceGit git;
  git.root = status.root;
  git.name = status.name;
  git.branch = status.branch;
  git.detached = status.detached;
  git.dirty = status.dirty;
  return git;
}

GitService::GitService(boost::asio::io_context& io, Launcher& launcher, Store& store,
                       EventPipeline& pipeline)
    : store_(store),
      pipeline_(pipeline),
      runner_(io, launcher),
      merge_deadline_(merge_deadline_from(std::getenv(std::string(kMergeTimeoutEnv).c_str()))) {}

Result<GitJob> checkout_job(const std::string& cwd, gw::Op op) {
  SIGNALTTY_TRY(std::optional<RepoPaths> found, find_repo(cwd));
  if (!found) return bad_params(cwd + " is not in a Git repository");
  GitJob job;
  job.request.op = op;
  job.request.repo = found->root;
  job.read_dirs = {found->root};
  for (const std::string& dir : {found->git_dir, found->common_dir})
    if (!path_within(dir, found->root)) job.read_dirs.push_back(dir);
  if (op == gw::Op::Capture) {
    job.write_dirs = {found->common_dir + "/objects"};
    job.deadline = kCaptureDeadline;
  } else if (op == gw::Op::FileDiff) {
    job.deadline = kFileDiffDeadline;
  } else if (op == gw::Op::WorktreeAdd || op == gw::Op::WorktreeRemove) {
    job.write_dirs = {found->common_dir};
    job.deadline = kWorktreeDeadline;
  } else if (op == gw::Op::MergePreview) {
    job.write_dirs = {found->common_dir + "/objects"};  // automerged blobs
  } else if (op == gw::Op::Merge || op == gw::Op::MergeRestore) {
    job.write_dirs = job.read_dirs;  // the checkout, its index and HEAD, refs and objects
    job.deadline = op == gw::Op::Merge ? kMergeDeadline : kMergeRestoreDeadline;
  }
  for (const auto& dir : job.read_dirs)
    if (!is_passable_dir(dir)) return bad_params("the repository path cannot be passed on: " + dir);
  return job;
}

void GitService::on_event(const StateEvent& event) {
  if (event.name != "agent.working") return;
  if (event.payload.value("prev", "") == "blocked") return;
  const std::string pane_id = event.payload.value("pane_id", "");
  auto pane = store_.find_pane(pane_id);
  if (!pane.ok()) return;
  start_turn((*pane)->workspace_id, pane_id, event.at);
}

void GitService::start_turn(const std::string& workspace_id, const std::string& pane_id,
                            const std::string& started_at) {
  auto ws = store_.find_workspace(workspace_id);
  if (!ws.ok()) return;
  auto job = job_at((*ws)->cwd, gw::Op::Capture);
  if (!job.ok() && job.error().code == ErrorCode::BadParams) return;  // not a repository
  const std::uint64_t generation = ++turn_generation_[workspace_id];
  auto record = [this, workspace_id, pane_id, started_at, generation](Result<protocol::Json> result) {
    if (turn_generation_[workspace_id] != generation) return;  // a newer turn started
    if (!store_.find_workspace(workspace_id).ok()) return;
    TurnBaseline baseline{pane_id, started_at, std::nullopt, {}};
    if (result.ok()) {
      auto captured = protocol::decode<gw::CaptureResult>(*result);
      if (captured.ok()) baseline.tree = captured->tree;
      else baseline.error = "the gitworker's capture reply is malformed";
    } else {
      baseline.error = result.error().message;
    }
    if (!baseline.tree) log::warn("turn baseline of " + workspace_id + ": " + baseline.error);
    baselines_[workspace_id] = std::move(baseline);
    Txn txn;
    txn.emit<protocol::ev::WorkspaceTurnStarted>(protocol::Json{
        {"workspace_id", workspace_id}, {"pane_id", pane_id}, {"started_at", started_at}});
    pipeline_.commit(std::move(txn), [] {});
  };
  if (!job.ok()) return record(job.error());
  runner_.run(std::move(*job), std::move(record));
}

const TurnBaseline* GitService::baseline(const std::string& workspace_id) const {
  auto it = baselines_.find(workspace_id);
  return it == baselines_.end() ? nullptr : &it->second;
}

void GitService::refresh_later(const std::string& workspace_id) {
  auto ws = store_.find_workspace(workspace_id);
  if (!ws.ok()) return;
  auto job = job_at((*ws)->cwd, gw::Op::Status);
  if (!job.ok()) return;
  runner_.run(std::move(*job), [this, workspace_id](Result<protocol::Json> result) {
    if (!result.ok()) return log::warn("refreshing git of " + workspace_id + ": " + result.error().message);
    auto status = protocol::decode<gw::StatusResult>(*result);
    if (!status.ok()) return;
    Txn txn;
    if (store_.set_workspace_git(txn, workspace_id, workspace_git_of(*status)).ok() && !txn.empty())
      pipeline_.commit(std::move(txn), [] {});
  });
}

bool PathReservations::reserve(const std::string& path) {
  for (const auto& held : held_)
    if (path_within(path, held) || path_within(held, path)) return false;
  held_.insert(path);
  return true;
}

bool PathReservations::covers(const std::string& path) const {
  for (const auto& held : held_)
    if (path_within(path, held)) return true;
  return false;
}

}  // namespace signaltty::broker::git
