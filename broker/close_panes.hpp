// broker/close_panes.hpp: what tab.close and workspace.close share: every
// pane of the scope is closed (signal, SIGKILL after 5 s, removal once the
// child is reaped: docs/rules.md, decision 17), after the launches already in flight
// into the scope have published their panes (docs/rules.md (Client protocol): launch and
// publication complete before a concurrent close can remove the tab or
// workspace), and again until no pane is left in it.
// Runs in: broker (io thread). Never: removes a pane record itself (the
// supervisor does, once reaped) or lets a launch start into the scope
// while it closes (the store's LaunchGate refuses it).
//
// Usage (broker/methods/tab.cpp):
//   close_panes_of(services, LaunchScope::tab(ws_id, tab_id), SIGTERM, [&] {
//     Status closed = store.close_tab(txn, tab_id);   // the tab is empty now
//   });
#pragma once

#include <functional>

#include "broker/services.hpp"
#include "broker/store_launches.hpp"

namespace signaltty::broker {

// Shuts `scope` to new launches, waits for those in flight, closes every
// pane it holds and repeats until it holds none; then runs `done` with the
// scope open again (the caller removes the emptied tab or workspace at
// once, in the same turn).
void close_panes_of(Services& services, LaunchScope scope, int signo, std::function<void()> done);

}  // namespace signaltty::broker
