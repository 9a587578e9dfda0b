// broker/handlers.hpp: the handler of every implemented method, one overload
// per declaration in common/protocol/methods.hpp. The router binds them by
// type: an implemented method without a handler does not compile.
// Runs in: broker (io thread). Definitions: broker/methods/<family>.cpp.
// Never: decodes JSON (params arrive typed) or checks who may call (the
// router's table does).
#pragma once

#include "broker/services.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::broker {

namespace p = protocol;

// broker/methods/server.cpp
Result<p::ServerStatusResult> handle(p::ServerStatus, Ctx& ctx, p::Empty&& params);
void handle(p::ServerShutdown, Ctx& ctx, p::ServerShutdownParams&& params,
            Reply<p::ServerShutdownResult> reply);
Result<p::ServerSchemaResult> handle(p::ServerSchema, Ctx& ctx, p::Empty&& params);

// broker/methods/workspace.cpp
Result<p::WorkspaceResult> handle(p::WorkspaceCreate, Ctx& ctx, p::WorkspaceCreateParams&& params);
Result<p::WorkspaceListResult> handle(p::WorkspaceList, Ctx& ctx, p::Empty&& params);
Result<p::WorkspaceGetResult> handle(p::WorkspaceGet, Ctx& ctx, p::WorkspaceRef&& params);
Result<p::WorkspaceResult> handle(p::WorkspaceRename, Ctx& ctx, p::WorkspaceRenameParams&& params);
Result<p::ClosedResult> handle(p::WorkspaceClose, Ctx& ctx, p::WorkspaceCloseParams&& params);

// broker/methods/tab.cpp
Result<p::TabResult> handle(p::TabCreate, Ctx& ctx, p::TabCreateParams&& params);
Result<p::ClosedResult> handle(p::TabClose, Ctx& ctx, p::TabCloseParams&& params);
Result<p::TabResult> handle(p::TabSetLayout, Ctx& ctx, p::TabSetLayoutParams&& params);
Result<p::TabResult> handle(p::TabSetRatio, Ctx& ctx, p::TabSetRatioParams&& params);

// broker/methods/subscribe.cpp
void handle(p::Subscribe, Ctx& ctx, p::SubscribeParams&& params, Reply<p::SubscribeResult> reply);

}  // namespace signaltty::broker
