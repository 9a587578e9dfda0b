// broker/methods/tab.cpp: the tab.* handlers (create, close, set_layout,
// set_ratio). Thin: each one calls the store with the request's Txn.
// Runs in: broker (io thread). Never: holds layout rules (broker/layout does).
#include <csignal>

#include "broker/close_panes.hpp"
#include "broker/handlers.hpp"
#include "broker/store.hpp"

namespace signaltty::broker {

Result<p::TabResult> handle(p::TabCreate, Ctx& ctx, p::TabCreateParams&& params) {
  SIGNALTTY_TRY(p::Tab tab, ctx.services.store.create_tab(ctx.txn, params.workspace_id,
                                                          std::move(params.title)));
  return p::TabResult{std::move(tab)};
}

// docs/rules.md, decision 17: every pane is signalled at once and removed as it is
// reaped (SIGKILL after 5 s), including the panes of launches in flight
// into the tab (close_panes.hpp); the tab goes, and the reply comes, after
// the last one.
void handle(p::TabClose, Ctx& ctx, p::TabCloseParams&& params, Reply<p::ClosedResult> reply) {
  Store& store = ctx.services.store;
  auto tab = store.find_tab(params.tab_id);
  if (!tab.ok()) return reply(std::move(tab).error());
  Txn& txn = ctx.txn;
  const std::string id = (*tab)->id;
  const int signo = params.signal ? params.signal->number : SIGTERM;
  close_panes_of(ctx.services, LaunchScope::tab((*tab)->workspace_id, id), signo,
                 [&store, &txn, id, reply = std::move(reply)] {
                   Status closed = store.close_tab(txn, id);
                   if (!closed.ok()) return reply(std::move(closed).error());
                   reply(p::ClosedResult{true});
                 });
}

Result<p::TabResult> handle(p::TabSetLayout, Ctx& ctx, p::TabSetLayoutParams&& params) {
  SIGNALTTY_TRY(p::Tab tab, ctx.services.store.set_layout(ctx.txn, params.tab_id, params.layout));
  return p::TabResult{std::move(tab)};
}

Result<p::TabResult> handle(p::TabSetRatio, Ctx& ctx, p::TabSetRatioParams&& params) {
  SIGNALTTY_TRY(p::Tab tab, ctx.services.store.set_ratio(ctx.txn, params.tab_id, params.path,
                                                         params.ratio));
  return p::TabResult{std::move(tab)};
}

}  // namespace signaltty::broker
