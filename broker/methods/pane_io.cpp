// broker/methods/pane_io.cpp: pane.input, pane.resize, pane.signal,
// pane.read, pane.clear (docs/rules.md "Input", "Resize and signals", "Reads").
// Runs in: broker (io thread). Never: touches a PTY; the pane's ptyhost
// does, through the supervisor.
#include "broker/handlers.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/base64.hpp"

namespace signaltty::broker {
namespace {

// docs/rules.md (Model), Pane: `live` is {"state":"live"} while the child runs.
constexpr std::string_view kPaneLiveState = "live";

Result<std::string> find_pane_id(const Store& store, std::string_view key) {
  SIGNALTTY_TRY(const p::Pane* pane, store.find_pane(key));
  return pane->id;
}

// docs/rules.md (Panes and PTYs), Input: every failure carries details.written_bytes. A ptyhost
// (perhaps one started by an older build) that refused before queueing
// leaves it out: nothing was written for PANE_EXITED and RATE_LIMITED; for
// anything else the count is unknown (null).
Reply<p::PaneInputResult> with_written_bytes(Reply<p::PaneInputResult> reply) {
  return [reply = std::move(reply)](Result<p::PaneInputResult> r) {
    if (r.ok()) return reply(std::move(r));
    Error e = std::move(r).error();
    if (!e.details.is_object()) e.details = p::Json::object();
    if (!e.details.contains("written_bytes")) {
      const bool refused = e.code == ErrorCode::PaneExited || e.code == ErrorCode::RateLimited;
      e.details["written_bytes"] = refused ? p::Json(0) : p::Json(nullptr);
    }
    reply(std::move(e));
  };
}

template <class R>
std::function<void(Status)> reply_status(Reply<R> reply, R value) {
  return [reply = std::move(reply), value = std::move(value)](Status s) {
    if (!s.ok()) return reply(std::move(s).error());
    reply(value);
  };
}

}  // namespace

// The budget runs from request entry (docs/rules.md, Input).
void handle(p::PaneInput, Ctx& ctx, p::PaneInputParams&& params, Reply<p::PaneInputResult> reply) {
  const auto deadline = std::chrono::steady_clock::now() + p::kInputBudget;
  if (params.data_b64.size() > p::kInputMaxBase64Bytes) {
    Error e{ErrorCode::RateLimited, "data_b64: more than 1 MiB of base64 text"};
    e.details = {{"field", "data_b64"}, {"written_bytes", 0}};
    return reply(std::move(e));
  }
  auto bytes = base64_decode(params.data_b64);
  if (!bytes) {
    Error e = bad_params("data_b64: not valid base64");
    e.details = {{"field", "data_b64"}};
    return reply(std::move(e));
  }
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  // Nothing to write is written at once (a zero-byte write(2) would read
  // as a failure); a pane without a running program still says so.
  if (bytes->empty() && (*pane)->live.state == kPaneLiveState)
    return reply(p::PaneInputResult{0});
  ctx.services.supervisor.input((*pane)->id, std::move(*bytes), deadline,
                                with_written_bytes(std::move(reply)));
}

// docs/rules.md, Resize and signals: clamp, TIOCSWINSZ (the ptyhost), store pty_size, pane.resized.
void handle(p::PaneResize, Ctx& ctx, p::PaneResizeParams&& params, Reply<p::PaneResult> reply) {
  auto id = find_pane_id(ctx.services.store, params.pane_id);
  if (!id.ok()) return reply(std::move(id).error());
  const p::PtySize size = clamp_pty_size(params.cols, params.rows);
  Services& services = ctx.services;
  Txn& txn = ctx.txn;
  services.supervisor.resize(*id, size, [&services, &txn, id = *id, size,
                                         reply = std::move(reply)](Status s) {
    if (!s.ok()) return reply(std::move(s).error());
    auto pane = services.store.resize_pane(txn, id, size);
    if (!pane.ok()) return reply(std::move(pane).error());
    reply(p::PaneResult{std::move(pane).value()});
  });
}

void handle(p::PaneSignal, Ctx& ctx, p::PaneSignalParams&& params,
            Reply<p::PaneSignalResult> reply) {
  auto id = find_pane_id(ctx.services.store, params.pane_id);
  if (!id.ok()) return reply(std::move(id).error());
  ctx.services.supervisor.signal(*id, params.signal.number, params.group,
                                 reply_status(std::move(reply), p::PaneSignalResult{true}));
}

void handle(p::PaneRead, Ctx& ctx, p::PaneReadParams&& params, Reply<p::PaneReadResult> reply) {
  if (params.lines == 0) {
    Error e = bad_params("lines: must be at least 1");
    e.details = {{"field", "lines"}};
    return reply(std::move(e));
  }
  auto id = find_pane_id(ctx.services.store, params.pane_id);
  if (!id.ok()) return reply(std::move(id).error());
  const ReadSpec spec{params.mode, std::min(params.lines, p::kReadLinesMax), params.strip_ansi,
                      params.after_seq};
  ctx.services.supervisor.read(*id, spec, std::move(reply));
}

void handle(p::PaneClear, Ctx& ctx, p::PaneRef&& params, Reply<p::Empty> reply) {
  auto id = find_pane_id(ctx.services.store, params.pane_id);
  if (!id.ok()) return reply(std::move(id).error());
  ctx.services.supervisor.clear(*id, reply_status(std::move(reply), p::Empty{}));
}

}  // namespace signaltty::broker
