// broker/methods/pane_submit.cpp: `pane.submit` (docs/rules.md "Submit"):
// a prompt pasted into an agent as one bracketed paste, Enter (CR) after
// the delay once no decision arrived meanwhile, and the activity gate: a
// `working` or `blocked` transition newer than the pre-submit baseline
// within the stall budget confirms it.
// Runs in: broker (io thread). Never: writes into a pane whose agent is
// busy, not ready or waiting on a decision; strips paste markers from the
// text (they are refused); retries Enter (decision 18).
#include <cmath>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/event_hub.hpp"
#include "broker/handle.hpp"
#include "broker/handlers.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"

namespace signaltty::broker {
namespace {

using p::Attention;
using p::Lifecycle;
using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kPasteStart = "\x1b[200~";
constexpr std::string_view kPasteEnd = "\x1b[201~";
constexpr std::string_view kEnter = "\r";
constexpr std::string_view kLiveState = "live";
// docs/rules.md "Submit": text size and our caps on the two timings.
constexpr std::size_t kSubmitTextMaxBytes = 32u << 10;
constexpr std::uint32_t kSubmitDelayMaxMs = 10000;
constexpr double kStallTimeoutMaxS = 300;
// The activity gate also re-checks on this period besides every event.
constexpr std::chrono::milliseconds kGateRecheck{100};

Status check_params(const p::PaneSubmitParams& params) {
  if (params.text.empty() || params.text.size() > kSubmitTextMaxBytes)
    return field_error("text", "must be 1 byte to 32 KiB");
  if (params.text.find(kPasteStart) != std::string::npos ||
      params.text.find(kPasteEnd) != std::string::npos)
    return field_error("text", "holds a bracketed-paste marker (ESC[200~ or ESC[201~)");
  if (params.submit_delay_ms > kSubmitDelayMaxMs)
    return field_error("submit_delay_ms", "at most 10000");
  if (!std::isfinite(params.stall_timeout_s) || params.stall_timeout_s <= 0 ||
      params.stall_timeout_s > kStallTimeoutMaxS)
    return field_error("stall_timeout_s", "must be more than 0 and at most 300");
  return {};
}

Error gate_error(ErrorCode code, const p::Pane& pane, std::string why) {
  Error e{code, std::move(why)};
  e.details = {{"pane_id", pane.id}, {"lifecycle", p::encode(pane.lifecycle)},
               {"attention", p::encode(pane.attention)}};
  return e;
}

// docs/rules.md "Submit": live; idle or done, or blocked on input with no
// decision; else AGENT_BUSY, AGENT_NOT_READY or PANE_EXITED.
Status gate(const p::Pane& pane) {
  if (pane.live.state != kLiveState)
    return gate_error(ErrorCode::PaneExited, pane, "the pane's program has exited");
  if (pane.pending_decision)
    return gate_error(ErrorCode::AgentBusy, pane, "a decision is pending; answer it first");
  switch (pane.lifecycle) {
    case Lifecycle::Idle:
    case Lifecycle::Done: return {};
    case Lifecycle::Blocked:
      if (pane.attention == Attention::InputRequired) return {};
      return gate_error(ErrorCode::AgentBusy, pane, "the agent waits on a permission");
    case Lifecycle::Working: return gate_error(ErrorCode::AgentBusy, pane, "the agent is working");
    case Lifecycle::Exited:
      return gate_error(ErrorCode::PaneExited, pane, "the pane's program has exited");
    case Lifecycle::Unknown:
    case Lifecycle::Failed: break;
  }
  return gate_error(ErrorCode::AgentNotReady, pane, "the agent has not said it is ready");
}

class Submit : public std::enable_shared_from_this<Submit> {
 public:
  Submit(Services& services, std::string pane_id, p::PaneSubmitParams params, std::uint64_t baseline,
         Reply<p::PaneSubmitResult> reply)
      : services_(services), pane_id_(std::move(pane_id)), params_(std::move(params)),
        baseline_(baseline), reply_(std::move(reply)), timer_(services.io) {}

  void start() {
    std::string paste = std::string(kPasteStart) + params_.text + std::string(kPasteEnd);
    services_.supervisor.input(pane_id_, std::move(paste), SteadyClock::now() + p::kInputBudget,
                               [self = shared_from_this()](Result<p::PaneInputResult> r) {
                                 if (!r.ok()) {
                                   self->finish(std::move(r).error());
                                   return;
                                 }
                                 self->after_delay();
                               });
  }

 private:
  void after_delay() {
    timer_.expires_after(std::chrono::milliseconds(params_.submit_delay_ms));
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->enter();
    });
  }

  // The decision recheck and the Enter, with no turn of the loop between.
  void enter() {
    auto pane = services_.store.find_pane(pane_id_);
    if (!pane.ok()) {
      finish(std::move(pane).error());
      return;
    }
    if ((*pane)->pending_decision) {
      Error e = gate_error(ErrorCode::AgentBusy, **pane, "a decision arrived after the paste");
      e.details["stage"] = "delayed_enter";
      e.details["paste_delivered"] = true;
      finish(std::move(e));
      return;
    }
    services_.supervisor.input(pane_id_, std::string(kEnter), SteadyClock::now() + p::kInputBudget,
                               [self = shared_from_this()](Result<p::PaneInputResult> r) {
                                 if (!r.ok()) {
                                   self->finish(std::move(r).error());
                                   return;
                                 }
                                 self->open_gate();
                               });
  }

  void open_gate() {
    gate_deadline_ = SteadyClock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(
                                              params_.stall_timeout_s * 1000));
    // agent.* events name pane_id.
    watch_token_ = services_.hub.watch([weak = weak_from_this()](const StateEvent& ev) {
      if (auto self = weak.lock(); self && names_pane(ev, self->pane_id_))
        boost::asio::post(self->services_.io, [self] { self->check_gate(); });
    });
    arm_gate_timer();
  }

  void arm_gate_timer() {
    timer_.expires_after(kGateRecheck);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->check_gate()) return;
      self->arm_gate_timer();
    });
  }

  // True once answered.
  bool check_gate() {
    if (done_) return true;
    auto pane = services_.store.find_pane(pane_id_);
    if (!pane.ok()) return finish(std::move(pane).error());
    const PaneTransitions t = services_.store.transitions_of(pane_id_);
    for (Lifecycle state : {Lifecycle::Working, Lifecycle::Blocked}) {
      auto it = t.last_into.find(p::encode(state).get<std::string>());
      if (it != t.last_into.end() && it->second > baseline_)
        return finish(p::PaneSubmitResult{true, state, it->second, (*pane)->lifecycle,
                                          (*pane)->attention});
    }
    if (SteadyClock::now() < gate_deadline_) return false;
    Error e{ErrorCode::Timeout, "the agent did not start working within the stall budget"};
    e.details = {{"pane_id", pane_id_}, {"stage", "activity_gate"}, {"paste_delivered", true}};
    return finish(std::move(e));
  }

  bool finish(Result<p::PaneSubmitResult> result) {
    if (done_) return true;
    done_ = true;
    if (watch_token_) services_.hub.unwatch(*watch_token_);
    timer_.cancel();
    reply_(std::move(result));
    return true;
  }

  Services& services_;
  std::string pane_id_;
  p::PaneSubmitParams params_;
  std::uint64_t baseline_;
  Reply<p::PaneSubmitResult> reply_;
  boost::asio::steady_timer timer_;
  SteadyClock::time_point gate_deadline_{};
  std::optional<std::uint64_t> watch_token_;
  bool done_ = false;
};

}  // namespace

void handle(p::PaneSubmit, Ctx& ctx, p::PaneSubmitParams&& params, Reply<p::PaneSubmitResult> reply) {
  if (auto checked = check_params(params); !checked.ok()) return reply(std::move(checked).error());
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  if (auto open = gate(**pane); !open.ok()) return reply(std::move(open).error());
  const std::string pane_id = (*pane)->id;
  const std::uint64_t baseline = ctx.services.store.transitions_of(pane_id).lifecycle_seq;
  auto submit = std::make_shared<Submit>(ctx.services, pane_id, std::move(params), baseline,
                                         std::move(reply));
  submit->start();
}

}  // namespace signaltty::broker
