// broker/methods/workspace.cpp: the workspace.* handlers (create, list, get,
// rename, close). Thin: each one calls the store with the request's Txn.
// Runs in: broker (io thread). Never: holds model rules (broker/store does).
#include "broker/handlers.hpp"
#include "broker/store.hpp"

namespace signaltty::broker {

Result<p::WorkspaceResult> handle(p::WorkspaceCreate, Ctx& ctx,
                                  p::WorkspaceCreateParams&& params) {
  SIGNALTTY_TRY(p::Workspace ws, ctx.services.store.create_workspace(
                                     ctx.txn, std::move(params.name), std::move(params.cwd)));
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

Result<p::ClosedResult> handle(p::WorkspaceClose, Ctx& ctx, p::WorkspaceCloseParams&& params) {
  SIGNALTTY_RETURN_IF_ERROR(
      ctx.services.store.close_workspace(ctx.txn, params.workspace_id, params.signal));
  return p::ClosedResult{true};
}

}  // namespace signaltty::broker
