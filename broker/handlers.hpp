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
// Closes every pane (signal, then removal once reaped; docs/rules.md, decision 17)
// and replies once the workspace is gone.
void handle(p::WorkspaceClose, Ctx& ctx, p::WorkspaceCloseParams&& params,
            Reply<p::ClosedResult> reply);

// broker/methods/git.cpp: each runs one gitworker (broker/git/), or two for
// worktree.create/open/remove (a list, then the change)
void handle(p::WorkspaceRefreshGit, Ctx& ctx, p::WorkspaceRef&& params,
            Reply<p::WorkspaceResult> reply);
void handle(p::WorkspaceDiff, Ctx& ctx, p::WorkspaceDiffParams&& params,
            Reply<p::WorkspaceDiffResult> reply);
void handle(p::WorkspaceFileDiff, Ctx& ctx, p::WorkspaceFileDiffParams&& params,
            Reply<p::WorkspaceFileDiffResult> reply);
void handle(p::WorktreeList, Ctx& ctx, p::WorkspaceRef&& params, Reply<p::WorktreeListResult> reply);
void handle(p::WorktreeCreate, Ctx& ctx, p::WorktreeCreateParams&& params,
            Reply<p::WorktreeOpenResult> reply);
void handle(p::WorktreeOpen, Ctx& ctx, p::WorktreeOpenParams&& params,
            Reply<p::WorktreeOpenResult> reply);
void handle(p::WorktreeRemove, Ctx& ctx, p::WorktreeRemoveParams&& params,
            Reply<p::WorktreeRemoveResult> reply);

// broker/methods/tab.cpp
Result<p::TabResult> handle(p::TabCreate, Ctx& ctx, p::TabCreateParams&& params);
// As workspace.close, for one tab.
void handle(p::TabClose, Ctx& ctx, p::TabCloseParams&& params, Reply<p::ClosedResult> reply);
Result<p::TabResult> handle(p::TabSetLayout, Ctx& ctx, p::TabSetLayoutParams&& params);
Result<p::TabResult> handle(p::TabSetRatio, Ctx& ctx, p::TabSetRatioParams&& params);

// broker/methods/pane.cpp: launching, lookup, names and places, close
void handle(p::PaneSpawn, Ctx& ctx, p::PaneSpawnParams&& params, Reply<p::PaneLaunchResult> reply);
void handle(p::PaneSplit, Ctx& ctx, p::PaneSplitParams&& params, Reply<p::PaneLaunchResult> reply);
void handle(p::PaneResume, Ctx& ctx, p::PaneRef&& params, Reply<p::PaneLaunchResult> reply);
void handle(p::PaneGet, Ctx& ctx, p::PaneRef&& params, Reply<p::PaneGetResult> reply);
Result<p::PaneResult> handle(p::PaneRename, Ctx& ctx, p::PaneRenameParams&& params);
Result<p::TabsResult> handle(p::PaneSwap, Ctx& ctx, p::PaneSwapParams&& params);
Result<p::TabsResult> handle(p::PaneMove, Ctx& ctx, p::PaneMoveParams&& params);
void handle(p::PaneClose, Ctx& ctx, p::PaneCloseParams&& params, Reply<p::ClosedResult> reply);

// broker/methods/pane_io.cpp: input, resize, signal, read, clear
void handle(p::PaneInput, Ctx& ctx, p::PaneInputParams&& params, Reply<p::PaneInputResult> reply);
void handle(p::PaneResize, Ctx& ctx, p::PaneResizeParams&& params, Reply<p::PaneResult> reply);
void handle(p::PaneSignal, Ctx& ctx, p::PaneSignalParams&& params,
            Reply<p::PaneSignalResult> reply);
void handle(p::PaneRead, Ctx& ctx, p::PaneReadParams&& params, Reply<p::PaneReadResult> reply);
void handle(p::PaneClear, Ctx& ctx, p::PaneRef&& params, Reply<p::Empty> reply);

// broker/methods/pane_submit.cpp
void handle(p::PaneSubmit, Ctx& ctx, p::PaneSubmitParams&& params,
            Reply<p::PaneSubmitResult> reply);

// broker/methods/pane_wait.cpp
void handle(p::PaneWaitForOutput, Ctx& ctx, p::PaneWaitForOutputParams&& params,
            Reply<p::PaneWaitForOutputResult> reply);

// broker/methods/pane_attach.cpp
void handle(p::PaneAttach, Ctx& ctx, p::PaneAttachParams&& params,
            Reply<p::PaneAttachResult> reply);
Result<p::PaneDetachResult> handle(p::PaneDetach, Ctx& ctx, p::PaneRef&& params);

// broker/methods/attention.cpp: notifications and the attention axis
Result<p::NotifyResult> handle(p::Notify, Ctx& ctx, p::NotifyParams&& params);
Result<p::PaneResult> handle(p::PaneMarkSeen, Ctx& ctx, p::PaneRef&& params);
Result<p::AttentionPendingResult> handle(p::AttentionPending, Ctx& ctx,
                                         p::AttentionPendingParams&& params);
Result<p::FocusNextUnreadResult> handle(p::FocusNextUnread, Ctx& ctx, p::Empty&& params);

// broker/methods/detection.cpp: screen rules and agent manifests
void handle(p::PaneExplain, Ctx& ctx, p::PaneRef&& params, Reply<p::PaneExplainResult> reply);
Result<p::AgentsListResult> handle(p::AgentsList, Ctx& ctx, p::Empty&& params);
Result<p::AgentsListResult> handle(p::AgentsReload, Ctx& ctx, p::Empty&& params);
Result<p::PluginListResult> handle(p::PluginList, Ctx& ctx, p::Empty&& params);
Result<p::PluginListResult> handle(p::PluginReload, Ctx& ctx, p::Empty&& params);

// broker/methods/hook_event.cpp: with wait_for_answer, replies once answered
void handle(p::HookEvent, Ctx& ctx, p::HookEventParams&& params, Reply<p::HookEventResult> reply);

// broker/methods/decision.cpp: decisions and agent sessions
void handle(p::DecisionAnswer, Ctx& ctx, p::DecisionAnswerParams&& params,
            Reply<p::DecisionAnswerResult> reply);
Result<p::PaneResult> handle(p::ReportSession, Ctx& ctx, p::ReportSessionParams&& params);

// broker/methods/agent_wait.cpp
void handle(p::Wait, Ctx& ctx, p::WaitParams&& params, Reply<p::WaitResult> reply);

// broker/methods/subscribe.cpp
void handle(p::Subscribe, Ctx& ctx, p::SubscribeParams&& params, Reply<p::SubscribeResult> reply);

}  // namespace signaltty::broker
