// broker/methods/pane_io.cpp: pane.input, pane.resize, pane.signal,
// pane.read, pane.clear (docs/rules.md "Input", "Resize and signals", "Reads").
// Runs in: broker (io thread). Never: touches a PTY; the pane's ptyhost
// does, through the supervisor.
#include "broker/handlers.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/base64.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

Result<std::string> find_pane_id(const Store& store, std::string_view key) {
  SIGNALTTY_TRY(const p::Pane* pane, store.find_pane(key));
  return pane->id;
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
  auto id = find_pane_id(ctx.services.store, params.pane_id);
  if (!id.ok()) return reply(std::move(id).error());
  ctx.services.supervisor.input(*id, std::move(*bytes), deadline, std::move(reply));
}

// docs/rules.md, Resize and signals: clamp, TIOCSWINSZ (the ptyhost), store pty_size, pane.resized.
void handle(p::PaneResize, Ctx& ctx, p::PaneResizeParams&& params, Reply<p::PaneResult> reply) {
  auto id = find_pane_id(ctx.services.store, params.pane_id);
  if (!id.ok()) return reply(std::move(id).error());
  const p::PtySize size{std::clamp(params.cols, limits::kPaneColsMin, limits::kPaneColsMax),
                        std::clamp(params.rows, limits::kPaneRowsMin, limits::kPaneRowsMax)};
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
