// common/protocol/methods.hpp: the one method table of signaltty/1. Every
// method of signaltty/1 (docs/rules.md, Methods) is in AllMethods exactly
// once, in the protocol's order; the router dispatches on it, server.schema
// prints it, the CLI builds commands from it.
// tests/common/method_table_test.cpp holds it to the protocol's list.
// Runs in: every process. Never: lists a method that is not in the protocol
// without saying it is ours.
#pragma once

#include "common/protocol/methods/agent.hpp"
#include "common/protocol/methods/git.hpp"
#include "common/protocol/methods/pane.hpp"
#include "common/protocol/methods/plugin.hpp"
#include "common/protocol/methods/server.hpp"
#include "common/protocol/methods/subscribe.hpp"
#include "common/protocol/methods/task.hpp"
#include "common/protocol/methods/workspace.hpp"

namespace signaltty::protocol {

using AllMethods = TypeList<
    // server
    ServerStatus, ServerShutdown, ServerSchema,
    // workspaces and their repositories
    WorkspaceCreate, WorkspaceList, WorkspaceGet, WorkspaceRename, WorkspaceClose,
    WorkspaceRefreshGit, WorkspaceDiff, WorkspaceFileDiff, WorktreeList, WorktreeCreate,
    WorktreeOpen, WorktreeRemove,
    // tabs
    TabCreate, TabClose, TabSetLayout, TabSetRatio,
    // panes
    PaneSpawn, PaneSplit, PaneRename, PaneSwap, PaneMove, PaneGet, PaneInput, PaneResize,
    PaneSignal, PaneRead, PaneWaitForOutput, PaneClear, PaneAttach, PaneDetach, PaneClose,
    PaneResume, PaneMarkSeen, PaneExplain, PaneSubmit,
    // agents, attention and events
    DecisionAnswer, Notify, HookEvent, ReportSession, Subscribe, Wait, FocusNextUnread,
    // tasks
    TaskStart, TaskGet, TaskList, TaskWait, TaskCancel, TaskReport, TaskDiff, TaskFileDiff,
    TaskFinish, TaskPrOpen, TaskPrRefresh,
    // overview and extensions
    AttentionPending, PluginList, PluginReload, AgentsList, AgentsReload>;

}  // namespace signaltty::protocol
