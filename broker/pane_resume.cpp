// broker/pane_resume.cpp: see pane_resume.hpp.
// Runs in: broker (io thread).
#include "broker/pane_resume.hpp"

#include "broker/agents/detect.hpp"
#include "broker/child_env.hpp"
#include "broker/pane_tokens.hpp"
#include "broker/event_pipeline.hpp"
#include "broker/handle.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

Error not_resumable(const std::string& why) { return field_error("pane_id", why); }

Status check_resumable(const Services& services, const protocol::Pane& pane) {
  const bool restored = pane.restore_state == protocol::RestoreState::Resumable ||
                        pane.restore_state == protocol::RestoreState::Restored;
  if (!restored || services.supervisor.has_ptyhost(pane.id))
    return not_resumable("only a restored pane (its terminal gone) can be resumed");
  if (!pane.agent.resume_argv || pane.agent.resume_argv->empty())
    return not_resumable("the pane has no resume command");
  return {};
}

// decision 5: the command is the adapter's own for the recorded session.
bool adapter_built(const protocol::Pane& pane) {
  if (!pane.agent.agent_session_id || !pane.agent.resume_argv) return false;
  const std::string launched = pane.argv.empty() ? std::string() : pane.argv.front();
  return agents::resume_argv(pane.agent.kind, *pane.agent.agent_session_id, launched) ==
         pane.agent.resume_argv;
}

}  // namespace

void resume_pane_process(Services& services, Txn& txn, const std::string& pane_id,
                         std::function<void(Result<protocol::PaneLaunchResult>)> done) {
  auto found = services.store.find_pane(pane_id);
  if (!found.ok()) return done(std::move(found).error());
  const protocol::Pane& pane = **found;
  if (auto ok = check_resumable(services, pane); !ok.ok()) return done(std::move(ok).error());
  // As a spawn: a close of the pane's tab or workspace waits until the
  // resumed pane is back in the store (store_launches.hpp).
  auto ticket = services.store.launches().begin_launch(pane.workspace_id, pane.tab_id);
  if (!ticket.ok()) return done(std::move(ticket).error());
  const auto config_env = pane.agent.config_env.value_or(std::map<std::string, std::string>{});
  std::optional<protocol::Integration> integration =
      launch_integration(*pane.agent.resume_argv, config_env, pane.cwd);
  LaunchSpec spec{pane.id, *pane.agent.resume_argv,
                  child_environment({broker_environment(), config_env, pane.id,
                                     services.config.socket_path, pane.parent_pane_id,
                                     pane.task_id, services.tokens.token_for(pane.id)}),
                  pane.cwd, pane.pty_size, launch_probe(*pane.agent.resume_argv),
                  protocol::encode(pane)};
  services.supervisor.launch(
      std::move(spec), [&services, &txn, id = pane.id, integration = std::move(integration),
                        ticket = *ticket, done = std::move(done)](Result<Launched> launched) mutable {
        // However this ends, the launch is over once `done` has run.
        struct EndLaunch {
          LaunchGate::TicketPtr ticket;
          ~EndLaunch() { LaunchGate::end_launch(ticket); }
        } end_launch{ticket};
        if (!launched.ok()) return done(std::move(launched).error());
        auto resumed = services.store.resume_pane(txn, id, launched->child_pid, launched->ptyhost_pid);
        if (!resumed.ok()) {
          services.supervisor.discard(id);
          return done(std::move(resumed).error());
        }
        services.supervisor.push_meta(id);
        done(protocol::PaneLaunchResult{std::move(resumed).value(),
                                        after_probe(std::move(integration), launched->probe_passed)});
        services.pipeline.after_durable([&services] { services.snapshots.save_now_or_retry(); });
      });
}

void auto_resume_panes(Services& services) {
  for (const protocol::Workspace& ws : services.store.list_workspaces()) {
    if (!ws.auto_resume) continue;
    for (const protocol::Pane& pane : services.store.panes_of_workspace(ws)) {
      if (pane.restore_state != protocol::RestoreState::Resumable || !adapter_built(pane)) continue;
      auto txn = std::make_shared<Txn>();
      resume_pane_process(services, *txn, pane.id,
                          [&services, txn, id = pane.id](Result<protocol::PaneLaunchResult> r) {
        if (!r.ok()) log::warn("auto_resume of " + id + ": " + r.error().message);
        services.pipeline.commit(std::move(*txn), [] {});
      });
    }
  }
}

}  // namespace signaltty::broker
