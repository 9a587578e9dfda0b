// broker/methods/tab.cpp: the tab.* handlers (create, close, set_layout,
// set_ratio). Thin: each one calls the store with the request's Txn.
// Runs in: broker (io thread). Never: holds layout rules (broker/layout does).
#include "broker/handlers.hpp"
#include "broker/store.hpp"

namespace signaltty::broker {

Result<p::TabResult> handle(p::TabCreate, Ctx& ctx, p::TabCreateParams&& params) {
  SIGNALTTY_TRY(p::Tab tab, ctx.services.store.create_tab(ctx.txn, params.workspace_id,
                                                          std::move(params.title)));
  return p::TabResult{std::move(tab)};
}

Result<p::ClosedResult> handle(p::TabClose, Ctx& ctx, p::TabCloseParams&& params) {
  SIGNALTTY_RETURN_IF_ERROR(ctx.services.store.close_tab(ctx.txn, params.tab_id, params.signal));
  return p::ClosedResult{true};
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
