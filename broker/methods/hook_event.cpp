// broker/methods/hook_event.cpp: `hook-event` (docs/rules.md "Hook
// classification", "Hook attribution", "Decision"): the pane by explicit id
// or by the reporter's process ancestry, the adapter's classification
// applied to both axes, the session and the decision; and the waiting mode,
// where a native PermissionRequest reporter holds its connection until the
// decision is answered, superseded, cleared or times out.
// Runs in: broker (io thread). Never: changes a pane the hook does not
// resolve to, answers Allow for a wait that did not get an answer, or
// lets a payload of any shape throw (the classifier reads typed fields).
#include <cmath>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/agents/hook_classifier.hpp"
#include "broker/agents/pane_ancestry.hpp"
#include "broker/detector.hpp"
#include "broker/event_hub.hpp"
#include "broker/event_pipeline.hpp"
#include "broker/handle.hpp"
#include "broker/handlers.hpp"
#include "broker/native_decisions.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {

using p::AgentKind;
using p::Lifecycle;

// docs/rules.md "Hook classification": the reasons this method writes.
constexpr std::string_view kHookClearReason = "hook";
constexpr std::string_view kMovedOnReason = "moved_on";
constexpr std::string_view kNativeCancelledReason = "native_cancelled";
constexpr std::string_view kNoPaneReason = "no_pane";
constexpr std::string_view kTimeoutReason = "timeout";
constexpr std::string_view kCancelledReason = "cancelled";
constexpr std::string_view kDecisionGoneReason = "decision_cleared";
constexpr std::string_view kPermissionRequest = "PermissionRequest";
// Ids of decisions that only report (no answer route).
constexpr std::string_view kReportedDecisionPrefix = "decision";

// docs/rules.md "Decision": only Codex has an answer channel of its own
// (the option's 1-based index typed into the pane).
bool adapter_has_channel(AgentKind agent) { return agent == AgentKind::Codex; }

Result<std::optional<std::string>> resolve_pane(const Store& store, const p::HookEventParams& params) {
  if (params.pane_id) {
    SIGNALTTY_TRY(const p::Pane* pane, store.find_pane(*params.pane_id));
    return std::optional<std::string>(pane->id);
  }
  if (!params.client_pid) return std::optional<std::string>{};
  std::map<std::int64_t, std::string> live;
  for (const p::Pane& pane : store.list_panes())
    if (pane.pid.has_value()) live.emplace(*pane.pid, pane.id);
  return agents::pane_of_process(*params.client_pid, live);
}

// The waiting mode's preconditions (docs/rules.md "Decision").
Status check_wait_params(const p::HookEventParams& params) {
  if (!std::isfinite(params.wait_timeout_s) || params.wait_timeout_s < p::kHookAnswerTimeoutMinS ||
      params.wait_timeout_s > p::kHookAnswerTimeoutMaxS)
    return field_error("wait_timeout_s", "must be 1-120");
  if (params.decision_id && !params.wait_for_answer)
    return field_error("decision_id", "only with wait_for_answer");
  if (params.decision_id && !p::is_native_decision_id(*params.decision_id))
    return field_error("decision_id", "must be permission_ and 32 lowercase hex digits");
  if (params.decision && p::is_native_decision_id(params.decision->id))
    return field_error("decision.id", "permission_ ids are reserved for native decisions");
  if (params.decision) {
    p::Decision d{params.decision->id, params.decision->prompt, params.decision->options, true, {}};
    if (auto valid = Store::validated_decision(std::move(d)); !valid.ok())
      return std::move(valid).error();
  }
  if (!params.wait_for_answer) return {};
  if (params.decision) return field_error("decision", "not with wait_for_answer");
  const bool native_agent = params.agent == AgentKind::Claude || params.agent == AgentKind::Codex;
  if (!native_agent || params.event != kPermissionRequest)
    return field_error("wait_for_answer", "only for a claude or codex PermissionRequest");
  if (!params.payload || !agents::native_permission_decision(*params.payload))
    return field_error("payload", "a waiting PermissionRequest needs session_id, tool_name and "
                                  "an object tool_input");
  return {};
}

p::HookEventResult base_result(const p::HookEventParams& params,
                               const std::optional<std::string>& pane_id) {
  p::HookEventResult r;
  r.agent = params.agent;
  r.event = params.event;
  if (pane_id) r.pane_id = *pane_id;
  return r;
}

// The decision this hook sets, if any: an explicit one, else the native
// draft (waiting: the reporter's id and answerable; else read-only).
std::optional<p::Decision> decision_of(const p::HookEventParams& params,
                                       const agents::HookClassification& c) {
  if (params.decision)
    return p::Decision{params.decision->id, params.decision->prompt, params.decision->options,
                       adapter_has_channel(params.agent), {}};
  if (!c.decision) return std::nullopt;
  if (params.wait_for_answer)
    return p::Decision{params.decision_id.value_or(new_id(p::kNativeDecisionPrefix)),
                       c.decision->prompt, c.decision->options, true, {}};
  return p::Decision{new_id(kReportedDecisionPrefix), c.decision->prompt, c.decision->options,
                     false, {}};
}

Status apply_axes(Store& store, Txn& txn, const std::string& pane_id,
                  const agents::HookClassification& c) {
  if (c.last_message) SIGNALTTY_RETURN_IF_ERROR(store.note_hook_message(txn, pane_id, *c.last_message));
  if (c.lifecycle) {
    auto moved = store.set_pane_lifecycle(txn, pane_id, *c.lifecycle, LifecycleSource::Hook);
    if (!moved.ok()) return std::move(moved).error();
  }
  if (c.clear_attention) return store.clear_pane_attention(txn, pane_id, kHookClearReason);
  if (c.raise) return store.raise_pane_attention(txn, pane_id, *c.raise, std::nullopt);
  return {};
}

// Everything after the pane is known: session, drop, axes, decision and
// the hook's own notification, in docs/rules.md's order. Fills `decision`
// with the decision it set.
Result<p::HookEventResult> apply_hook(Ctx& ctx, const p::HookEventParams& params,
                                      const std::string& pane_id, std::optional<p::Decision>& decision) {
  Store& store = ctx.services.store;
  SIGNALTTY_TRY(const p::Pane* pane, store.find_pane(pane_id));
  std::optional<std::string_view> session;
  if (pane->agent.agent_session_id) session = *pane->agent.agent_session_id;
  const p::Json* payload = params.payload ? &*params.payload : nullptr;
  const agents::HookClassification c =
      agents::classify_hook({params.agent, params.event, payload, pane->lifecycle, session});
  p::HookEventResult result = base_result(params, pane_id);
  if (c.session_id) {
    auto recorded = store.record_agent_session(ctx.txn, pane_id, params.agent, *c.session_id);
    if (!recorded.ok()) return std::move(recorded).error();
  }
  if (c.dropped) {
    result.accepted = *c.dropped != agents::DropReason::HarnessMismatch;
    result.dropped = true;
    result.reason = std::string(agents::drop_reason_name(*c.dropped));
  } else {
    ctx.services.detector.note_hook(ctx.txn, pane_id);  // hooks win over screen rules
    SIGNALTTY_RETURN_IF_ERROR(apply_axes(store, ctx.txn, pane_id, c));
    decision = decision_of(params, c);
    if (decision) {
      SIGNALTTY_TRY(*decision, store.set_pending_decision(ctx.txn, pane_id, std::move(*decision)));
    } else if (c.lifecycle == Lifecycle::Working) {
      store.clear_pending_decision(ctx.txn, pane_id, kMovedOnReason);
    }
  }
  if (params.message) {
    NotificationDraft draft{pane_id, params.title, *params.message,
                            params.severity.value_or(p::Severity::Info),
                            "hook:" + p::encode(params.agent).get<std::string>() + ":" + params.event};
    SIGNALTTY_TRY(std::optional<p::Json> note, store.add_notification(ctx.txn, std::move(draft)));
  }
  SIGNALTTY_TRY(const p::Pane* after, store.find_pane(pane_id));
  result.lifecycle = after->lifecycle;
  result.attention = after->attention;
  return result;
}

// A native PermissionRequest reporter waiting for its answer.
class NativeWait : public AnswerRoute, public std::enable_shared_from_this<NativeWait> {
 public:
  NativeWait(Services& services, std::shared_ptr<Session> session, std::string pane_id,
             std::string decision_id, p::HookEventResult result, double timeout_s,
             Reply<p::HookEventResult> reply)
      : services_(services), session_(std::move(session)), pane_id_(std::move(pane_id)),
        decision_id_(std::move(decision_id)), result_(std::move(result)),
        reply_(std::move(reply)), timer_(services.io),
        timeout_(std::chrono::milliseconds(static_cast<std::int64_t>(timeout_s * 1000))) {}

  void start() {
    services_.routes.add(decision_id_, weak_from_this());
    // Every event a decision change or the pane's end emits names pane_id.
    watch_token_ = services_.hub.watch([weak = weak_from_this()](const StateEvent& ev) {
      if (auto self = weak.lock(); self && names_pane(ev, self->pane_id_))
        boost::asio::post(self->services_.io, [self] { self->check_still_pending(); });
    });
    if (auto session = session_.lock())
      session->hold_single_flight([weak = weak_from_this()] {
        if (auto self = weak.lock()) self->cancel(std::string(kCancelledReason));
      });
    // The timer's handler owns the wait until it ends (stop() cancels it).
    timer_.expires_after(timeout_);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->cancel(std::string(kTimeoutReason));
    });
  }

  void answer(p::Json verdict) override {
    if (done_) return;
    stop();
    result_.native_verdict = p::Nullable<p::Json>(std::move(verdict));
    // After the answering handler returns: its events are committed first.
    boost::asio::post(services_.io, [self = shared_from_this()] { self->send(); });
  }

  void cancel(std::string reason) override {
    if (done_) return;
    stop();
    Txn txn;
    services_.store.clear_pending_decision(txn, pane_id_, kNativeCancelledReason, decision_id_);
    if (!txn.empty()) services_.pipeline.commit(std::move(txn), [] {});
    result_.native_verdict = p::Nullable<p::Json>{};
    result_.reason = std::move(reason);
    send();
  }

 private:
  // The decision went another way (superseded, cleared by a hook, the
  // pane exited): the reporter stops waiting, no verdict.
  void check_still_pending() {
    if (done_) return;
    auto pane = services_.store.find_pane(pane_id_);
    const bool pending = pane.ok() && (*pane)->pending_decision &&
                         (*pane)->pending_decision->id == decision_id_;
    if (pending) return;
    stop();
    result_.native_verdict = p::Nullable<p::Json>{};
    result_.reason = std::string(kDecisionGoneReason);
    send();
  }

  void stop() {
    done_ = true;
    services_.routes.remove(decision_id_, this);
    if (watch_token_) services_.hub.unwatch(*watch_token_);
    timer_.cancel();
  }

  void send() {
    if (auto session = session_.lock()) session->release_single_flight();
    reply_(std::move(result_));
  }

  Services& services_;
  std::weak_ptr<Session> session_;
  std::string pane_id_;
  std::string decision_id_;
  p::HookEventResult result_;
  Reply<p::HookEventResult> reply_;
  boost::asio::steady_timer timer_;
  std::chrono::milliseconds timeout_;
  std::optional<std::uint64_t> watch_token_;
  bool done_ = false;
};

}  // namespace

void handle(p::HookEvent, Ctx& ctx, p::HookEventParams&& params, Reply<p::HookEventResult> reply) {
  if (auto checked = check_wait_params(params); !checked.ok()) return reply(std::move(checked).error());
  auto resolved = resolve_pane(ctx.services.store, params);
  if (!resolved.ok()) return reply(std::move(resolved).error());
  if (!*resolved) {
    p::HookEventResult r = base_result(params, std::nullopt);
    if (params.wait_for_answer) {
      r.native_verdict = p::Nullable<p::Json>{};
      r.reason = std::string(kNoPaneReason);
    }
    return reply(std::move(r));
  }
  const std::string pane_id = **resolved;
  std::optional<p::Decision> decision;
  auto applied = apply_hook(ctx, params, pane_id, decision);
  if (!applied.ok() || !params.wait_for_answer) return reply(std::move(applied));
  if (!decision) {  // dropped: nothing to wait for, and never a verdict
    applied->native_verdict = p::Nullable<p::Json>{};
    if (!applied->reason) applied->reason = std::string(kDecisionGoneReason);
    return reply(std::move(applied));
  }
  // The decision is public before the wait begins; the final reply carries
  // only what the wait's end adds.
  ctx.services.pipeline.commit(std::exchange(ctx.txn, Txn{}), [] {});
  auto wait = std::make_shared<NativeWait>(ctx.services, ctx.session, pane_id, decision->id,
                                           std::move(applied).value(), params.wait_timeout_s,
                                           std::move(reply));
  wait->start();
}

}  // namespace signaltty::broker
