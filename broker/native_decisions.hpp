// broker/native_decisions.hpp: the live answer routes of native permission
// decisions (docs/rules.md "Decision", "Native permission replies"): a
// reporter waiting in `hook-event` with wait_for_answer registers its
// decision id here; `decision.answer` finds the route and the reporter
// prints the verdict. After a broker restart the decisions are still in the
// store but their routes are gone: they stay pending, not answerable, while
// their reporters reconnect, and are dropped (native_cancelled) when none
// came back within kNativeReconnectGrace.
// Runs in: broker (io thread). Never: keeps a route alive (it holds weak
// references; the waiting request owns itself), or answers anything itself.
//
// Usage:
//   routes.add(decision_id, weak_route);          // the waiter
//   if (auto route = routes.find(id)) route->answer(verdict);   // decision.answer
//   routes.remove(decision_id, this);             // the waiter, when it ends
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/protocol/codec.hpp"

namespace signaltty::broker {

struct Services;

// Our bound: how long after start a native decision restored from the
// snapshot waits for its reporter to re-register before it is dropped.
inline constexpr std::chrono::seconds kNativeReconnectGrace{5};

// One waiting reporter, as decision.answer reaches it.
class AnswerRoute {
 public:
  virtual ~AnswerRoute() = default;
  // The verdict: the waiter replies with it once the current handler has
  // returned (so the answer's own events are committed first).
  virtual void answer(protocol::Json verdict) = 0;
  // Ends the wait without a verdict (native_verdict null, `reason`).
  virtual void cancel(std::string reason) = 0;
};

class DecisionRoutes {
 public:
  // A newer route for the same id cancels the older one ("superseded").
  void add(const std::string& decision_id, std::weak_ptr<AnswerRoute> route);
  std::shared_ptr<AnswerRoute> find(std::string_view decision_id) const;
  // Only when `route` is still the one registered for the id.
  void remove(std::string_view decision_id, const AnswerRoute* route);

 private:
  std::map<std::string, std::weak_ptr<AnswerRoute>, std::less<>> routes_;
};

// The native permission verdict a reporter prints for `option_id`
// (`once` → allow, anything else → deny).
protocol::Json native_verdict(std::string_view option_id);

// At start, after adoption: every restored native decision is made not
// answerable, and those whose reporter has not re-registered after
// kNativeReconnectGrace are dropped (decision.cleared native_cancelled).
void expect_native_reporters(Services& services);

}  // namespace signaltty::broker
