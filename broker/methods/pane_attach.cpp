// broker/methods/pane_attach.cpp: pane.attach and pane.detach (docs/rules.md
// "Attach / detach", "pty.data"). Attach: optional resize →
// register the viewer (held) → snapshot and its offset, taken atomically
// by the ptyhost → mark seen → reply → only then the held pty.data.
// Runs in: broker (io thread). Never: lets a pty.data event overtake the
// attach reply on the same connection.
#include "broker/event_pipeline.hpp"
#include "broker/handlers.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "broker/viewers.hpp"
#include "common/base64.hpp"
#include "common/check.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

// Once the snapshot is taken: mark seen, reply, then release the viewer
// behind the reply (the router answers through the same barrier).
void finish_attach(Services& services, Txn& txn, const std::shared_ptr<Session>& session,
                   const std::string& pane_id, bool mark_seen, AttachSnapshot snapshot,
                   const Reply<p::PaneAttachResult>& reply) {
  // A pane closed meanwhile fails here and in the lookup below, which answers it.
  Status seen = mark_seen ? services.store.mark_pane_seen(txn, pane_id, "attach") : Status{};
  auto pane = services.store.find_pane(pane_id);
  check_invariant(seen.ok() || !pane.ok(), "marking a present pane seen");
  if (!pane.ok()) {
    services.viewers.remove(session->session_id(), pane_id);
    return reply(std::move(pane).error());
  }
  p::PaneAttachResult out;
  out.snapshot_b64 = base64_encode(snapshot.bytes);
  out.output_offset = snapshot.output_offset;
  out.size = snapshot.size;
  out.live = (*pane)->live.state == "live";
  out.restore_state = (*pane)->restore_state;
  out.lifecycle = (*pane)->lifecycle;
  out.attention = (*pane)->attention;
  reply(std::move(out));
  services.pipeline.after_durable([&services, sid = session->session_id(), pane_id,
                                   offset = snapshot.output_offset] {
    services.viewers.release(sid, pane_id, offset);
  });
}

void take_snapshot(Services& services, Txn& txn, std::shared_ptr<Session> session,
                   const std::string& pane_id, bool mark_seen, Reply<p::PaneAttachResult> reply) {
  services.viewers.hold(session, pane_id);
  services.supervisor.attach_snapshot(
      pane_id, [&services, &txn, session, pane_id, mark_seen,
                reply = std::move(reply)](Result<AttachSnapshot> snapshot) {
        if (!snapshot.ok()) {
          services.viewers.remove(session->session_id(), pane_id);
          services.supervisor.viewers_changed(pane_id);
          return reply(std::move(snapshot).error());
        }
        finish_attach(services, txn, session, pane_id, mark_seen, std::move(snapshot).value(),
                      reply);
      });
}

}  // namespace

void handle(p::PaneAttach, Ctx& ctx, p::PaneAttachParams&& params,
            Reply<p::PaneAttachResult> reply) {
  if (params.cols.has_value() != params.rows.has_value()) {
    Error e = bad_params("cols and rows: give both or neither");
    e.details = {{"field", params.cols ? "rows" : "cols"}};
    return reply(std::move(e));
  }
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  Services& services = ctx.services;
  Txn& txn = ctx.txn;
  const std::string id = (*pane)->id;
  if (!params.cols) return take_snapshot(services, txn, ctx.session, id, params.mark_seen, std::move(reply));
  const p::PtySize size = clamp_pty_size(*params.cols, *params.rows);
  services.supervisor.resize(
      id, size, [&services, &txn, session = ctx.session, id, size, mark_seen = params.mark_seen,
                 reply = std::move(reply)](Status resized) mutable {
        if (!resized.ok()) return reply(std::move(resized).error());
        // The PTY has the new size whatever the snapshot does, so its
        // pane.resized is committed on its own: a failed snapshot cannot
        // drop the event while the store keeps the size.
        Txn resize_txn;
        auto stored = services.store.resize_pane(resize_txn, id, size);
        if (!stored.ok()) return reply(std::move(stored).error());
        if (!resize_txn.empty()) services.snapshots.mark_dirty();
        services.pipeline.commit(std::move(resize_txn.events()), [] {});
        take_snapshot(services, txn, std::move(session), id, mark_seen, std::move(reply));
      });
}

Result<p::PaneDetachResult> handle(p::PaneDetach, Ctx& ctx, p::PaneRef&& params) {
  SIGNALTTY_TRY(const p::Pane* pane, ctx.services.store.find_pane(params.pane_id));
  const std::string id = pane->id;
  ctx.services.viewers.remove(ctx.session->session_id(), id);
  ctx.services.supervisor.viewers_changed(id);
  return p::PaneDetachResult{true};
}

}  // namespace signaltty::broker
