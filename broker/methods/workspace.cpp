// broker/methods/workspace.cpp: the workspace.* handlers (create, list, get,
// rename, close). Thin: each one calls the store with the request's Txn.
// Runs in: broker (io thread). Never: holds model rules (broker/store does).
#include <csignal>

#include "broker/close_panes.hpp"
#include "broker/git/git_service.hpp"
#include "broker/handlers.hpp"
#include "broker/store.hpp"

namespace signaltty::broker {

Result<p::WorkspaceResult> handle(p::WorkspaceCreate, Ctx& ctx,
                                  p::WorkspaceCreateParams&& params) {
  // A checkout being created or removed by worktree.* takes no workspace.
  if (params.cwd && ctx.services.git.is_reserved(git::canonical(*params.cwd).value_or(*params.cwd)))
    return bad_params("cwd '" + *params.cwd + "' is a checkout being created or removed");
  SIGNALTTY_TRY(p::Workspace ws, ctx.services.store.create_workspace(
                                     ctx.txn, std::move(params.name), std::move(params.cwd),
                                     params.auto_resume, params.shared_control));
  return p::WorkspaceResult{std::move(ws)};
}

Result<p::WorkspaceListResult> handle(p::WorkspaceList, Ctx& ctx, p::Empty&&) {
  return p::WorkspaceListResult{ctx.services.store.list_workspaces()};
}

Result<p::WorkspaceGetResult> handle(p::WorkspaceGet, Ctx& ctx, p::WorkspaceRef&& params) {
  const Store& store = ctx.services.store;
  SIGNALTTY_TRY(const p::Workspace* ws, store.find_workspace(params.workspace_id));
  return p::WorkspaceGetResult{*ws, store.tabs_of(*ws), store.panes_of_workspace(*ws)};
}

Result<p::WorkspaceResult> handle(p::WorkspaceRename, Ctx& ctx,
                                  p::WorkspaceRenameParams&& params) {
  SIGNALTTY_TRY(p::Workspace ws,
                ctx.services.store.rename_workspace(ctx.txn, params.workspace_id, params.name));
  return p::WorkspaceResult{std::move(ws)};
}

// As tab.close: every pane first, including those of launches in flight
// (close_panes.hpp), the workspace after.
void handle(p::WorkspaceClose, Ctx& ctx, p::WorkspaceCloseParams&& params,
            Reply<p::ClosedResult> reply) {
  Store& store = ctx.services.store;
  auto ws = store.find_workspace(params.workspace_id);
  if (!ws.ok()) return reply(std::move(ws).error());
  Txn& txn = ctx.txn;
  const std::string id = (*ws)->id;
  const int signo = params.signal ? params.signal->number : SIGTERM;
  close_panes_of(ctx.services, LaunchScope::workspace(id), signo,
                 [&store, &txn, id, reply = std::move(reply)] {
                   Status closed = store.close_workspace(txn, id);
                   if (!closed.ok()) return reply(std::move(closed).error());
                   reply(p::ClosedResult{true});
                 });
}

}  // namespace signaltty::broker
