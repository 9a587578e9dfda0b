// broker/methods/git.cpp: workspace.refresh_git, workspace.diff,
// workspace.file_diff and worktree.* (docs/gitworker.md). Each builds the
// job for the workspace's checkout, runs it in a gitworker and shapes the
// reply; worktree changes are recorded as worktree.changed.
// Runs in: broker (io thread). Never: reads the repository itself.
#include <sys/stat.h>

#include <map>

#include "broker/event_pipeline.hpp"
#include "broker/git/git_launch.hpp"
#include "broker/git/git_service.hpp"
#include "broker/handlers.hpp"
#include "broker/store.hpp"
#include "common/fs.hpp"

// `decl` from `expr`, or the error replied and the handler left.
#define SIGNALTTY_TRY_REPLY(decl, expr)                                      \
  auto SIGNALTTY_CONCAT(tried_, __LINE__) = (expr);                          \
  if (!SIGNALTTY_CONCAT(tried_, __LINE__).ok())                              \
    return reply(std::move(SIGNALTTY_CONCAT(tried_, __LINE__)).error());     \
  decl = std::move(*SIGNALTTY_CONCAT(tried_, __LINE__))

namespace signaltty::broker {
namespace {

using git::GitJob;
using git::gw::Op;
namespace gw = protocol::gitworker;

// Runs `job` and hands `then` the decoded result of type R.
template <class R, class Then, class Out>
void run_decoded(Ctx& ctx, GitJob job, Reply<Out> reply, Then then) {
  ctx.services.git.runner().run(
      std::move(job),
      [reply = std::move(reply), then = std::move(then)](Result<protocol::Json> result) mutable {
        if (!result.ok()) return reply(std::move(result).error());
        auto decoded = protocol::decode<R>(*result);
        if (!decoded.ok())
          return reply(Error{ErrorCode::IoError, "the gitworker's result is malformed: " +
                                                     decoded.error().message});
        then(std::move(*decoded), reply);
      });
}

// The directories of every file path: "a/b/c" -> "a", "a/b".
std::vector<p::DiffDir> roll_up(const std::vector<p::DiffFile>& files) {
  std::map<std::string, p::DiffDir> dirs;
  for (const auto& file : files) {
    if (file.untracked) continue;  // listed, but not in the summary counts
    for (auto slash = file.path.find('/'); slash != std::string::npos;
         slash = file.path.find('/', slash + 1)) {
      p::DiffDir& dir = dirs[file.path.substr(0, slash)];
      dir.dir = file.path.substr(0, slash);
      dir.added += file.added;
      dir.removed += file.removed;
    }
  }
  std::vector<p::DiffDir> out;
  for (auto& [name, dir] : dirs) out.push_back(std::move(dir));
  return out;
}

Result<std::string> absolute_path(const std::string& path, std::string_view what) {
  if (path.empty() || path.front() != '/' || !git::is_passable_dir(path))
    return bad_params(std::string(what) + " must be an absolute path");
  return path;
}

// The open workspace whose canonical cwd is `path`, if any.
const p::Workspace* workspace_at(const Store& store, const std::string& path) {
  for (const auto& ws : store.list_workspaces()) {
    auto cwd = git::canonical(ws.cwd);
    if (cwd && *cwd == path) {
      auto found = store.find_workspace(ws.id);
      return found.ok() ? *found : nullptr;
    }
  }
  return nullptr;
}

// A workspace for a new or registered checkout: `name`, else the
// checkout's directory name.
Result<p::Workspace> open_workspace(Ctx& ctx, const std::string& path,
                                    const std::optional<std::string>& name) {
  std::string chosen = name ? *name : path.substr(path.rfind('/') + 1);
  SIGNALTTY_TRY(p::Workspace ws, ctx.services.store.create_workspace(ctx.txn, chosen, path));
  ctx.services.git.refresh_later(ws.id);
  return ws;
}

void emit_worktree_changed(Txn& txn, std::string_view operation, const std::string& path,
                           const std::string& source_workspace) {
  txn.emit<protocol::ev::WorktreeChanged>(protocol::Json{
      {"operation", operation}, {"path", path}, {"workspace_id", source_workspace}});
}

// The registered checkout at canonical `path` in `list`, if any.
const gw::WorktreeInfo* registered(const gw::WorktreeListResult& list, const std::string& path) {
  for (const auto& entry : list.worktrees) {
    auto real = git::canonical(entry.path);
    if (entry.path == path || (real && *real == path)) return &entry;
  }
  return nullptr;
}

}  // namespace

void handle(p::WorkspaceRefreshGit, Ctx& ctx, p::WorkspaceRef&& params,
            Reply<p::WorkspaceResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* ws, ctx.services.store.find_workspace(params.workspace_id));
  const std::string id = ws->id;
  Store& store = ctx.services.store;
  Txn* txn = &ctx.txn;
  auto repo = git::find_repo(ws->cwd);
  if (!repo.ok()) return reply(std::move(repo).error());
  if (!*repo) {  // not (or no longer) in a repository: no git fields
    auto updated = store.set_workspace_git(*txn, id, {});
    if (!updated.ok()) return reply(std::move(updated).error());
    return reply(p::WorkspaceResult{std::move(*updated)});
  }
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(ws->cwd, Op::Status));
  run_decoded<gw::StatusResult>(ctx, std::move(job), std::move(reply),
                                [&store, txn, id](gw::StatusResult status, const auto& reply) {
                                  auto updated = store.set_workspace_git(*txn, id, git::workspace_git_of(status));
                                  if (!updated.ok()) return reply(std::move(updated).error());
                                  reply(p::WorkspaceResult{std::move(*updated)});
                                });
}

void handle(p::WorkspaceDiff, Ctx& ctx, p::WorkspaceDiffParams&& params,
            Reply<p::WorkspaceDiffResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* ws, ctx.services.store.find_workspace(params.workspace_id));
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(ws->cwd, Op::Diff));
  p::WorkspaceDiffResult shape;
  shape.workspace_id = ws->id;
  shape.scope = params.scope;
  if (params.scope == p::DiffScope::Turn) {
    const git::TurnBaseline* turn = ctx.services.git.baseline(ws->id);
    if (turn == nullptr) {  // before any turn: nothing to compare with
      shape.turn = p::Nullable<p::DiffTurn>();
      return reply(std::move(shape));
    }
    if (!turn->tree)
      return reply(Error{ErrorCode::IoError, "the turn baseline could not be captured: " + turn->error});
    job.request.base_tree = *turn->tree;
    shape.turn = p::Nullable<p::DiffTurn>(p::DiffTurn{turn->pane_id, turn->started_at});
  }
  run_decoded<gw::DiffResult>(ctx, std::move(job), std::move(reply),
                              [shape = std::move(shape)](gw::DiffResult diff, const auto& reply) mutable {
                                shape.branch = diff.branch;
                                shape.dirs = roll_up(diff.files);
                                for (const auto& file : diff.files) {
                                  if (file.untracked) continue;
                                  shape.added += file.added;
                                  shape.removed += file.removed;
                                }
                                shape.files = std::move(diff.files);
                                reply(std::move(shape));
                              });
}

void handle(p::WorkspaceFileDiff, Ctx& ctx, p::WorkspaceFileDiffParams&& params,
            Reply<p::WorkspaceFileDiffResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* ws, ctx.services.store.find_workspace(params.workspace_id));
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(ws->cwd, Op::FileDiff));
  if (params.scope == p::DiffScope::Turn) {
    const git::TurnBaseline* turn = ctx.services.git.baseline(ws->id);
    if (turn == nullptr) return reply(bad_params("no turn has started in this workspace yet"));
    if (!turn->tree)
      return reply(Error{ErrorCode::IoError, "the turn baseline could not be captured: " + turn->error});
    job.request.base_tree = *turn->tree;
  }
  job.request.path = params.path;
  run_decoded<gw::FileDiffResult>(
      ctx, std::move(job), std::move(reply),
      [id = ws->id, path = params.path](gw::FileDiffResult diff, const auto& reply) {
        reply(p::WorkspaceFileDiffResult{id, path, diff.untracked, std::move(diff.content)});
      });
}

void handle(p::WorktreeList, Ctx& ctx, p::WorkspaceRef&& params, Reply<p::WorktreeListResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* ws, ctx.services.store.find_workspace(params.workspace_id));
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(ws->cwd, Op::WorktreeList));
  const Store& store = ctx.services.store;
  run_decoded<gw::WorktreeListResult>(
      ctx, std::move(job), std::move(reply), [&store](gw::WorktreeListResult list, const auto& reply) {
        for (p::WorktreeInfo& entry : list.worktrees) {
          entry.workspace_id.reset();  // the worker's word is not taken for it
          const auto real = git::canonical(entry.path);
          if (const p::Workspace* open = workspace_at(store, real.value_or(entry.path)))
            entry.workspace_id = open->id;
        }
        reply(std::move(list));
      });
}

// `reply`, releasing the reservation of `path` first, whatever the outcome.
template <class R>
Reply<R> releasing(git::GitService& service, std::string path, Reply<R> reply) {
  return [&service, path = std::move(path), reply = std::move(reply)](Result<R> result) {
    service.release(path);
    reply(std::move(result));
  };
}

// `path` made canonical through its parent (the last component may not
// exist yet), without a trailing '/'.
Result<std::string> checkout_path(const std::string& given) {
  SIGNALTTY_TRY(std::string path, absolute_path(given, "path"));
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto parent = git::canonical(fs::dirname(path));
  if (!parent) return bad_params("the parent directory of " + path + " does not exist");
  const std::string leaf = path.substr(path.rfind('/') + 1);
  if (leaf == "." || leaf == "..") return bad_params("path must name the checkout itself");
  return (*parent == "/" ? "" : *parent) + "/" + leaf;
}

void handle(p::WorktreeCreate, Ctx& ctx, p::WorktreeCreateParams&& params,
            Reply<p::WorktreeOpenResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* source, ctx.services.store.find_workspace(params.workspace_id));
  SIGNALTTY_TRY_REPLY(const std::string path, checkout_path(params.path));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return reply(bad_params(path + " already exists"));
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(source->cwd, Op::WorktreeAdd));
  job.request.path = path;
  job.request.branch = params.branch;
  job.write_dirs.push_back(fs::dirname(path));
  git::GitService& service = ctx.services.git;
  if (!service.reserve(path)) return reply(bad_params(path + " is already being changed"));
  const std::string source_id = source->id;
  run_decoded<gw::PathResult>(
      ctx, std::move(job), releasing(service, path, std::move(reply)),
      [ctx, path, source_id, name = params.name](gw::PathResult, const auto& reply) mutable {
        emit_worktree_changed(ctx.txn, "create", path, source_id);
        auto ws = open_workspace(ctx, path, name);
        if (!ws.ok()) {
          // The checkout stays, and its creation is still recorded.
          Txn created;
          emit_worktree_changed(created, "create", path, source_id);
          ctx.services.pipeline.commit(std::move(created), [] {});
          return reply(Error{ws.error().code, "the worktree was created at " + path +
                                                  " but no workspace was opened: " + ws.error().message});
        }
        reply(p::WorktreeOpenResult{std::move(*ws), path, false});
      });
}

void handle(p::WorktreeOpen, Ctx& ctx, p::WorktreeOpenParams&& params,
            Reply<p::WorktreeOpenResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* source, ctx.services.store.find_workspace(params.workspace_id));
  SIGNALTTY_TRY_REPLY(std::string given, absolute_path(params.path, "path"));
  auto path = git::canonical(given);
  if (!path) return reply(bad_params(given + " does not exist"));
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(source->cwd, Op::WorktreeList));
  if (ctx.services.git.is_reserved(*path)) return reply(bad_params(*path + " is being changed"));
  const std::string source_id = source->id;
  run_decoded<gw::WorktreeListResult>(
      ctx, std::move(job), std::move(reply),
      [ctx, path = *path, source_id, name = params.name](gw::WorktreeListResult list,
                                                         const auto& reply) mutable {
        const gw::WorktreeInfo* entry = registered(list, path);
        if (entry == nullptr || entry->bare)
          return reply(bad_params(path + " is not a checkout registered in this repository"));
        if (const p::Workspace* open = workspace_at(ctx.services.store, path))
          return reply(p::WorktreeOpenResult{*open, path, true});
        auto ws = open_workspace(ctx, path, name);
        if (!ws.ok()) return reply(std::move(ws).error());
        emit_worktree_changed(ctx.txn, "open", path, source_id);
        reply(p::WorktreeOpenResult{std::move(*ws), path, false});
      });
}

// PANES_ALIVE when a live pane works in the checkout (its workspace's cwd
// or its own is inside it); BAD_PARAMS when a workspace is still open on it.
Status checkout_unused(const Store& store, const std::string& path) {
  std::vector<std::string> panes;
  std::optional<std::string> open;
  for (const auto& ws : store.list_workspaces()) {
    const auto cwd = git::canonical(ws.cwd);
    if (cwd && git::path_within(*cwd, path)) open = ws.id;
    for (const auto& pane : store.panes_of_workspace(ws)) {
      if (pane.live.state != "live") continue;  // an exited pane keeps nothing open
      const auto pane_cwd = git::canonical(pane.cwd);
      if ((cwd && git::path_within(*cwd, path)) || (pane_cwd && git::path_within(*pane_cwd, path)))
        panes.push_back(pane.id);
    }
  }
  if (!panes.empty()) {
    Error e{ErrorCode::PanesAlive, "panes still work in " + path};
    e.details = {{"pane_ids", panes}};
    return e;
  }
  if (open) return bad_params("workspace " + *open + " is open on " + path + "; close it first");
  return {};
}

void handle(p::WorktreeRemove, Ctx& ctx, p::WorktreeRemoveParams&& params,
            Reply<p::WorktreeRemoveResult> reply) {
  SIGNALTTY_TRY_REPLY(const p::Workspace* source, ctx.services.store.find_workspace(params.workspace_id));
  SIGNALTTY_TRY_REPLY(std::string given, absolute_path(params.path, "path"));
  auto path = git::canonical(given);
  if (!path) return reply(bad_params(given + " does not exist"));
  if (auto unused = checkout_unused(ctx.services.store, *path); !unused.ok())
    return reply(std::move(unused).error());
  SIGNALTTY_TRY_REPLY(GitJob job, ctx.services.git.job_at(source->cwd, Op::WorktreeRemove));
  job.request.path = *path;
  job.write_dirs.push_back(fs::dirname(*path));
  git::GitService& service = ctx.services.git;
  if (!service.reserve(*path)) return reply(bad_params(*path + " is already being changed"));
  const std::string source_id = source->id;
  run_decoded<gw::PathResult>(ctx, std::move(job), releasing(service, *path, std::move(reply)),
                              [ctx, path = *path, source_id](gw::PathResult, const auto& reply) mutable {
                                emit_worktree_changed(ctx.txn, "remove", path, source_id);
                                reply(p::WorktreeRemoveResult{true, path});
                              });
}

}  // namespace signaltty::broker
