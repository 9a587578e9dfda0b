// broker/methods/server.cpp: server.status, server.shutdown, server.schema.
// Runs in: broker (io thread).
#include <csignal>
#include <chrono>

#include "broker/event_pipeline.hpp"
#include "broker/handlers.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/log.hpp"
#include "common/protocol/schema.hpp"

namespace signaltty::broker {

Result<p::ServerStatusResult> handle(p::ServerStatus, Ctx& ctx, p::Empty&&) {
  const Store& store = ctx.services.store;
  auto uptime = std::chrono::steady_clock::now() - ctx.services.started_at;
  p::ServerStatusResult r;
  r.version = std::string(p::kVersion);
  r.protocol = std::string(p::kProtocol);
  r.uptime_s = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(uptime).count());
  r.workspaces = store.workspace_count();
  r.tabs = store.tab_count();
  r.panes = store.pane_count();
  r.live_panes = store.live_pane_count();
  r.seq = ctx.services.pipeline.head_seq();
  r.journal_events = ctx.services.pipeline.events_journaled();
  r.journal_syncs = ctx.services.pipeline.fsync_count();
  return r;
}

// The table is fixed for the life of the process: built once, not per call
// (a client pipelining server.schema kept the io thread building it).
Result<p::ServerSchemaResult> handle(p::ServerSchema, Ctx&, p::Empty&&) {
  static const p::ServerSchemaResult schema = p::build_schema();
  return schema;
}

namespace {

// docs/rules.md, Snapshot: the snapshot is saved before server.will_shutdown is
// emitted; the reply follows the event, then the broker stops.
void stop_after_reply(Services& services, Txn& txn, pid_t requester,
                      const Reply<p::ServerShutdownResult>& reply) {
  if (auto saved = services.snapshots.save_now(); !saved.ok())
    log::error("server.shutdown: snapshot save failed: " + saved.error().message);
  txn.emit<p::ev::ServerWillShutdown>(p::Empty{});
  log::info("server.shutdown requested by pid " + std::to_string(requester));
  reply(p::ServerShutdownResult{true});
  // After the reply is queued behind the event's commit.
  services.pipeline.after_durable(services.request_stop);
}

}  // namespace

// Live panes refuse the stop unless `force`, which closes every pane first
// (signal, SIGKILL after 5 s, removal once reaped); without force and
// without live panes, exited panes and their ptyhosts are left as they are.
void handle(p::ServerShutdown, Ctx& ctx, p::ServerShutdownParams&& params,
            Reply<p::ServerShutdownResult> reply) {
  Services& services = ctx.services;
  if (services.store.live_pane_count() > 0 && !params.force) {
    Error e{ErrorCode::PanesAlive, "panes are still running; pass force to stop anyway"};
    e.details = {{"live_panes", services.store.live_pane_count()}};
    return reply(std::move(e));
  }
  const pid_t requester = ctx.session->peer_pid();
  if (!params.force) return stop_after_reply(services, ctx.txn, requester, reply);
  std::vector<std::string> pane_ids;
  for (const p::Pane& pane : services.store.list_panes()) pane_ids.push_back(pane.id);
  Txn& txn = ctx.txn;
  services.supervisor.close_all(pane_ids, SIGTERM, [&services, &txn, requester, reply] {
    stop_after_reply(services, txn, requester, reply);
  });
}

}  // namespace signaltty::broker
