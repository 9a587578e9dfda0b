// broker/store_launches.cpp: launch tickets, closing scopes and the waits
// of closes for launches in flight (store_launches.hpp).
// Runs in: broker (io thread).
#include "broker/store_launches.hpp"

#include <algorithm>
#include <utility>

namespace signaltty::broker {

namespace {

using Counts = std::map<std::string, std::size_t, std::less<>>;

void bump(Counts& counts, const std::string& key) {
  if (!key.empty()) ++counts[key];
}

void drop(Counts& counts, const std::string& key) {
  auto it = counts.find(key);
  if (it == counts.end()) return;
  if (--it->second == 0) counts.erase(it);
}

bool holds(const Counts& counts, const std::string& key) {
  return !key.empty() && counts.contains(key);
}

Error closing_error(ErrorCode code, std::string_view what, std::string_view field,
                    const std::string& id) {
  Error e{code, std::string(what) + " '" + id + "' is being closed"};
  e.details = {{std::string(field), id}};
  return e;
}

}  // namespace

struct LaunchGate::State {
  struct Waiter {
    LaunchScope scope;
    std::function<void()> done;
  };

  Counts workspace_launches;
  Counts tab_launches;
  Counts closing_workspaces;
  Counts closing_tabs;
  std::vector<Waiter> waiters;

  bool idle(const LaunchScope& scope) const {
    return scope.tab_id.empty() ? !holds(workspace_launches, scope.workspace_id)
                                : !holds(tab_launches, scope.tab_id);
  }

  void end_launch(const std::string& workspace_id, const std::string& tab_id) {
    drop(workspace_launches, workspace_id);
    drop(tab_launches, tab_id);
  }

  // Waiters whose scope has become idle, taken out before any runs (a
  // waiter may begin or wait again).
  std::vector<std::function<void()>> take_ready() {
    std::vector<std::function<void()>> ready;
    auto keep = std::stable_partition(waiters.begin(), waiters.end(),
                                      [this](const Waiter& w) { return !idle(w.scope); });
    for (auto it = keep; it != waiters.end(); ++it) ready.push_back(std::move(it->done));
    waiters.erase(keep, waiters.end());
    return ready;
  }
};

class LaunchGate::Ticket {
 public:
  Ticket(std::weak_ptr<State> state, std::string workspace_id, std::string tab_id)
      : state_(std::move(state)), workspace_id_(std::move(workspace_id)), tab_id_(std::move(tab_id)) {}
  // Released without end(): the broker is going away, so nobody waits; the
  // count is still given back, but no close runs from a destructor.
  ~Ticket() {
    if (auto state = state_.lock()) state->end_launch(workspace_id_, tab_id_);
  }
  Ticket(const Ticket&) = delete;
  Ticket& operator=(const Ticket&) = delete;

  // The launch is over (published or failed): closes waiting for it run.
  void end() {
    auto state = state_.lock();
    state_.reset();
    if (!state) return;
    state->end_launch(workspace_id_, tab_id_);
    for (auto& done : state->take_ready()) done();
  }

 private:
  std::weak_ptr<State> state_;
  std::string workspace_id_;
  std::string tab_id_;
};

LaunchGate::LaunchGate() : state_(std::make_shared<State>()) {}

Result<LaunchGate::TicketPtr> LaunchGate::begin_launch(const std::string& workspace_id,
                                                       const std::string& tab_id) {
  if (holds(state_->closing_workspaces, workspace_id))
    return closing_error(ErrorCode::NoSuchWorkspace, "workspace", "workspace_id", workspace_id);
  if (holds(state_->closing_tabs, tab_id))
    return closing_error(ErrorCode::NoSuchTab, "tab", "tab_id", tab_id);
  bump(state_->workspace_launches, workspace_id);
  bump(state_->tab_launches, tab_id);
  return std::make_shared<Ticket>(state_, workspace_id, tab_id);
}

void LaunchGate::end_launch(const TicketPtr& ticket) {
  if (ticket) ticket->end();
}

void LaunchGate::begin_close(const LaunchScope& scope) {
  bump(scope.tab_id.empty() ? state_->closing_workspaces : state_->closing_tabs,
       scope.tab_id.empty() ? scope.workspace_id : scope.tab_id);
}

void LaunchGate::end_close(const LaunchScope& scope) {
  if (scope.tab_id.empty())
    drop(state_->closing_workspaces, scope.workspace_id);
  else
    drop(state_->closing_tabs, scope.tab_id);
}

void LaunchGate::when_idle(const LaunchScope& scope, std::function<void()> done) {
  if (state_->idle(scope)) return done();
  state_->waiters.push_back({scope, std::move(done)});
}

std::size_t LaunchGate::launches_in_flight() const {
  std::size_t total = 0;
  for (const auto& [id, n] : state_->workspace_launches) total += n;
  return total;
}

}  // namespace signaltty::broker
