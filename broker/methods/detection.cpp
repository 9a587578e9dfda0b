// broker/methods/detection.cpp: pane.explain, agents.list and agents.reload
// (docs/rules.md "Detection without hooks"). Runs in: broker (io thread).
// Never: changes a pane: explain only reads, and a reload swaps the rule
// set without touching live panes.
#include "broker/detector.hpp"
#include "broker/handlers.hpp"

namespace signaltty::broker {

void handle(p::PaneExplain, Ctx& ctx, p::PaneRef&& params, Reply<p::PaneExplainResult> reply) {
  ctx.services.detector.explain(params.pane_id, std::move(reply));
}

Result<p::AgentsListResult> handle(p::AgentsList, Ctx& ctx, p::Empty&&) {
  return ctx.services.detector.list();
}

Result<p::AgentsListResult> handle(p::AgentsReload, Ctx& ctx, p::Empty&&) {
  return ctx.services.detector.reload();
}

}  // namespace signaltty::broker
