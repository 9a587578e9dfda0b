// broker/methods/agent_wait.cpp: `wait` (docs/rules.md "Wait baseline"):
// checks the pane at once, then again after every published state event and
// every 500 ms, until one `until` alternative matches, the baseline turns
// out stale (IDENTITY_CHANGED) or the timeout passes (TIMEOUT).
// Single-flight: the connection's next request or its end (EOF) cancels
// the wait, which then answers nothing.
// Runs in: broker (io thread). Never: changes the model; the store's
// check_wait decides every outcome.
#include <cmath>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/event_hub.hpp"
#include "broker/handlers.hpp"
#include "broker/store.hpp"

namespace signaltty::broker {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Ours: a timeout past this is as good as forever (and keeps the clock sane).
constexpr double kWaitTimeoutMaxS = 365.0 * 24 * 3600;

class AgentWait : public std::enable_shared_from_this<AgentWait> {
 public:
  AgentWait(Services& services, std::shared_ptr<Session> session, p::WaitParams params,
            Reply<p::WaitResult> reply)
      : services_(services),
        session_(std::move(session)),
        params_(std::move(params)),
        reply_(std::move(reply)),
        timer_(services.io),
        deadline_(SteadyClock::now() + std::chrono::milliseconds(
                                           static_cast<std::int64_t>(params_.timeout_s * 1000))) {}

  // Answers at once when the first check decides; else holds the connection.
  void start() {
    if (check()) return;
    auto self = shared_from_this();
    // Posted: the hub calls watchers while the pipeline publishes, and an
    // answer goes back through that pipeline.
    watch_token_ = services_.hub.watch([self](const StateEvent&) {
      boost::asio::post(self->services_.io, [self] { self->check(); });
    });
    if (auto session = session_.lock())
      session->hold_single_flight([weak = weak_from_this()] {
        if (auto wait = weak.lock()) wait->stop();
      });
    arm_timer();
  }

 private:
  // True once the wait has answered (or was cancelled).
  bool check() {
    if (done_) return true;
    auto outcome = services_.store.check_wait(params_.pane_id, params_.until, params_.after);
    if (!outcome.ok()) return finish(std::move(outcome).error());
    if (*outcome) return finish(std::move(**outcome));
    if (SteadyClock::now() < deadline_) return false;
    Error e{ErrorCode::Timeout, "the pane reached none of the awaited states within the timeout"};
    e.details = {{"pane_id", params_.pane_id}, {"timeout_s", params_.timeout_s}};
    return finish(std::move(e));
  }

  void arm_timer() {
    const auto left = deadline_ - SteadyClock::now();
    timer_.expires_after(std::min<SteadyClock::duration>(p::kWaitRecheck, left));
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->check()) return;
      self->arm_timer();
    });
  }

  bool finish(Result<p::WaitResult> result) {
    stop();
    if (auto session = session_.lock()) session->release_single_flight();
    reply_(std::move(result));
    return true;
  }

  // Forgets the event watch and the timer; nothing answers after this.
  void stop() {
    if (done_) return;
    done_ = true;
    if (watch_token_) services_.hub.unwatch(*watch_token_);
    timer_.cancel();
  }

  Services& services_;
  std::weak_ptr<Session> session_;
  p::WaitParams params_;
  Reply<p::WaitResult> reply_;
  boost::asio::steady_timer timer_;
  SteadyClock::time_point deadline_;
  std::optional<std::uint64_t> watch_token_;
  bool done_ = false;
};

}  // namespace

void handle(p::Wait, Ctx& ctx, p::WaitParams&& params, Reply<p::WaitResult> reply) {
  if (!std::isfinite(params.timeout_s) || params.timeout_s < 0) {
    Error e = bad_params("timeout_s: must be a non-negative number");
    e.details = {{"field", "timeout_s"}};
    return reply(std::move(e));
  }
  params.timeout_s = std::min(params.timeout_s, kWaitTimeoutMaxS);
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  params.pane_id = (*pane)->id;
  auto wait = std::make_shared<AgentWait>(ctx.services, ctx.session, std::move(params),
                                          std::move(reply));
  wait->start();
}

}  // namespace signaltty::broker
