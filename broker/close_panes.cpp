// broker/close_panes.cpp: closing every pane of a tab or workspace, ordered
// after the launches in flight into it (close_panes.hpp).
// Runs in: broker (io thread).
#include "broker/close_panes.hpp"

#include <memory>
#include <string>
#include <vector>

#include "broker/store.hpp"
#include "broker/supervisor.hpp"

namespace signaltty::broker {
namespace {

// The pane ids the scope holds now (none once it is gone).
std::vector<std::string> pane_ids_in(const Store& store, const LaunchScope& scope) {
  std::vector<protocol::Pane> panes;
  if (scope.tab_id.empty()) {
    if (auto ws = store.find_workspace(scope.workspace_id); ws.ok())
      panes = store.panes_of_workspace(**ws);
  } else if (auto tab = store.find_tab(scope.tab_id); tab.ok()) {
    panes = store.panes_of_tab(**tab);
  }
  std::vector<std::string> ids;
  ids.reserve(panes.size());
  for (const protocol::Pane& pane : panes) ids.push_back(pane.id);
  return ids;
}

// One round: wait for launches in flight, close what the scope holds, and
// go again; each round removes at least the panes it found.
void close_round(Services& services, const LaunchScope& scope, int signo,
                 const std::shared_ptr<std::function<void()>>& done) {
  services.store.launches().when_idle(scope, [&services, scope, signo, done] {
    std::vector<std::string> ids = pane_ids_in(services.store, scope);
    if (ids.empty()) {
      services.store.launches().end_close(scope);
      return (*done)();
    }
    services.supervisor.close_all(ids, signo, [&services, scope, signo, done] {
      close_round(services, scope, signo, done);
    });
  });
}

}  // namespace

void close_panes_of(Services& services, LaunchScope scope, int signo, std::function<void()> done) {
  services.store.launches().begin_close(scope);
  close_round(services, scope, signo, std::make_shared<std::function<void()>>(std::move(done)));
}

}  // namespace signaltty::broker
