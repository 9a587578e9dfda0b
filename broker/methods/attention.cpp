// broker/methods/attention.cpp: notify, pane.mark_seen, attention.pending and
// focus.next_unread (docs/rules.md "Notifications", "Clearing (mark seen)",
// "Attention order"; decision 11).
// Runs in: broker (io thread). Never: lowers attention except through the
// store's explicit clear.
#include <algorithm>

#include "broker/handlers.hpp"
#include "broker/store.hpp"

namespace signaltty::broker {
namespace {

// docs/rules.md "Notifications": what `notify` records as the source.
constexpr std::string_view kNotifySource = "cli";
// docs/rules.md "Clearing (mark seen)": the attention.cleared reason.
constexpr std::string_view kMarkSeenReason = "mark_seen";

}  // namespace

// docs/rules.md, decision 11: without pane_id a global notification that
// raises no pane's attention.
Result<p::NotifyResult> handle(p::Notify, Ctx& ctx, p::NotifyParams&& params) {
  NotificationDraft draft{std::move(params.pane_id), std::move(params.title),
                          params.body.value_or(std::string()), params.severity,
                          std::string(kNotifySource)};
  SIGNALTTY_TRY(std::optional<p::Json> record,
                ctx.services.store.add_notification(ctx.txn, std::move(draft)));
  if (!record) return Error{ErrorCode::Internal, "notify: a cli notification was dropped"};
  return p::NotifyResult{std::move(*record)};
}

Result<p::PaneResult> handle(p::PaneMarkSeen, Ctx& ctx, p::PaneRef&& params) {
  SIGNALTTY_TRY(const p::Pane* pane, ctx.services.store.find_pane(params.pane_id));
  const std::string id = pane->id;
  SIGNALTTY_RETURN_IF_ERROR(ctx.services.store.mark_pane_seen(ctx.txn, id, kMarkSeenReason));
  SIGNALTTY_TRY(const p::Pane* seen, ctx.services.store.find_pane(id));
  return p::PaneResult{*seen};
}

Result<p::AttentionPendingResult> handle(p::AttentionPending, Ctx& ctx,
                                         p::AttentionPendingParams&& params) {
  const std::uint32_t limit = std::min(params.limit, p::kAttentionPendingMax);
  return p::AttentionPendingResult{ctx.services.store.pending_attention(limit)};
}

Result<p::FocusNextUnreadResult> handle(p::FocusNextUnread, Ctx& ctx, p::Empty&&) {
  std::vector<p::AttentionPendingPane> first = ctx.services.store.pending_attention(1);
  if (first.empty()) return p::FocusNextUnreadResult{};
  return p::FocusNextUnreadResult{std::move(first.front().pane_id)};
}

}  // namespace signaltty::broker
