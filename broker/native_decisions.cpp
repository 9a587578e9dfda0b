// broker/native_decisions.cpp: see native_decisions.hpp.
// Runs in: broker (io thread).
#include "broker/native_decisions.hpp"

#include <boost/asio/steady_timer.hpp>

#include "broker/event_pipeline.hpp"
#include "broker/services.hpp"
#include "broker/store.hpp"
#include "common/log.hpp"
#include "common/protocol/methods/agent.hpp"

namespace signaltty::broker {
namespace {

constexpr std::string_view kSupersededReason = "superseded";
constexpr std::string_view kNativeCancelledReason = "native_cancelled";
// The option of a native decision that allows (docs/rules.md "Decision").
constexpr std::string_view kAllowOnceOption = "once";

// Panes holding a native decision, with its id.
std::vector<std::pair<std::string, std::string>> native_pending(const Store& store) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const protocol::Pane& pane : store.list_panes())
    if (pane.pending_decision && protocol::is_native_decision_id(pane.pending_decision->id))
      out.emplace_back(pane.id, pane.pending_decision->id);
  return out;
}

}  // namespace

void DecisionRoutes::add(const std::string& decision_id, std::weak_ptr<AnswerRoute> route) {
  auto it = routes_.find(decision_id);
  std::shared_ptr<AnswerRoute> older = it == routes_.end() ? nullptr : it->second.lock();
  routes_.insert_or_assign(decision_id, std::move(route));
  if (older) older->cancel(std::string(kSupersededReason));
}

std::shared_ptr<AnswerRoute> DecisionRoutes::find(std::string_view decision_id) const {
  auto it = routes_.find(decision_id);
  return it == routes_.end() ? nullptr : it->second.lock();
}

void DecisionRoutes::remove(std::string_view decision_id, const AnswerRoute* route) {
  auto it = routes_.find(decision_id);
  if (it == routes_.end()) return;
  auto current = it->second.lock();
  if (!current || current.get() == route) routes_.erase(it);
}

protocol::Json native_verdict(std::string_view option_id) {
  const char* behavior = option_id == kAllowOnceOption ? "allow" : "deny";
  return {{"hookSpecificOutput",
           {{"hookEventName", "PermissionRequest"}, {"decision", {{"behavior", behavior}}}}}};
}

void expect_native_reporters(Services& services) {
  for (const auto& [pane_id, decision_id] : native_pending(services.store))
    if (!services.routes.find(decision_id))
      services.store.mark_decision_unanswerable(pane_id, decision_id);
  auto timer = std::make_shared<boost::asio::steady_timer>(services.io, kNativeReconnectGrace);
  timer->async_wait([&services, timer](const boost::system::error_code& ec) {
    if (ec) return;
    Txn txn;
    for (const auto& [pane_id, decision_id] : native_pending(services.store)) {
      if (services.routes.find(decision_id)) continue;
      log::info("decision " + decision_id + ": its reporter did not come back; dropped");
      services.store.clear_pending_decision(txn, pane_id, kNativeCancelledReason, decision_id);
    }
    if (!txn.empty()) services.pipeline.commit(std::move(txn), [] {});
  });
}

}  // namespace signaltty::broker
