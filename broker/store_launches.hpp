// broker/store_launches.hpp: the order between pane launches and closes
// (docs/rules.md (Client protocol): "Ownership validation, process launch and pane
// publication complete before a concurrent close can remove the target
// tab or workspace"). A launch holds a ticket on its workspace (and its
// tab, when it has one) from validation until its pane is published or
// the launch failed; a close first shuts its scope to new launches, then
// waits until no ticket is left in it, so every pane it must signal is in
// the store by the time it collects them.
// Runs in: broker (io thread, owned by the Store).
// Never: starts, signals or removes anything; it only orders.
//
// Usage:
//   SIGNALTTY_TRY(auto ticket, gate.begin_launch(ws_id, tab_id));  // refused while closing
//   ... launch, publish ...; LaunchGate::end_launch(ticket);
//   gate.begin_close(LaunchScope::workspace(ws_id));
//   gate.when_idle(LaunchScope::workspace(ws_id), [] { ... collect panes, close ... });
//   gate.end_close(LaunchScope::workspace(ws_id));
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"

namespace signaltty::broker {

// A workspace (tab empty) or one tab of it.
struct LaunchScope {
  std::string workspace_id;
  std::string tab_id;
  static LaunchScope workspace(std::string id) { return {std::move(id), {}}; }
  static LaunchScope tab(std::string workspace_id, std::string id) {
    return {std::move(workspace_id), std::move(id)};
  }
};

class LaunchGate {
 public:
  // Ends its launch when released (the last copy goes away).
  class Ticket;
  using TicketPtr = std::shared_ptr<Ticket>;

  LaunchGate();

  // A launch into `workspace_id` and, when not empty, `tab_id`. Refused
  // while that workspace or tab is closing: NO_SUCH_WORKSPACE or
  // NO_SUCH_TAB naming it (the close is ordered first).
  Result<TicketPtr> begin_launch(const std::string& workspace_id, const std::string& tab_id);
  // The launch is over (published, or failed): closes waiting for its
  // scope run now. A ticket released without this only gives its count
  // back (the broker is stopping) and runs nothing.
  static void end_launch(const TicketPtr& ticket);
  // Launches into `scope` are refused until the matching end_close. Closes
  // of one scope may overlap; each begin needs its end.
  void begin_close(const LaunchScope& scope);
  void end_close(const LaunchScope& scope);
  // Runs `done` once no launch into `scope` is in flight (at once when
  // none is). A workspace scope covers launches into any of its tabs.
  void when_idle(const LaunchScope& scope, std::function<void()> done);

  std::size_t launches_in_flight() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace signaltty::broker
