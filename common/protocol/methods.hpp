// common/protocol/methods.hpp: the one method table of signaltty/1. Every
// method of seeds/08-ipc.md is in AllMethods exactly once; the router
// dispatches on it, server.schema prints it, the CLI builds commands from it.
// Runs in: every process. Never: lists a method that is not in the seed
// without saying it is ours.
#pragma once

#include "common/protocol/methods/server.hpp"
#include "common/protocol/methods/subscribe.hpp"
#include "common/protocol/methods/workspace.hpp"

namespace signaltty::protocol {

using AllMethods =
    TypeList<ServerStatus, ServerShutdown, ServerSchema, WorkspaceCreate, WorkspaceList,
             WorkspaceGet, WorkspaceRename, WorkspaceClose, TabCreate, TabClose, TabSetLayout,
             TabSetRatio, Subscribe>;

}  // namespace signaltty::protocol
