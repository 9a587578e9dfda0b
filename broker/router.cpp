// broker/router.cpp: the dispatch table, built from AllMethods at startup.
// Runs in: broker (io thread).
#include "broker/router.hpp"

#include "broker/event_pipeline.hpp"
#include "broker/handlers.hpp"
#include "broker/permit_check.hpp"
#include "broker/snapshot_store.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

using protocol::Json;

template <class M>
concept AsyncHandler = requires(Ctx& ctx, typename M::Params&& params) {
  handle(M{}, ctx, std::move(params), Reply<typename M::Result>{});
};

void send_error(const std::shared_ptr<Session>& session, const Json& id, const Error& error) {
  session->send(protocol::encode_error(id, error));
}

// After the handler: journal and publish the transaction's events, then
// reply. Reads go through the same barrier so a reply never shows state
// whose event could still be lost.
template <class M>
void finish(Services& services, const std::shared_ptr<Session>& session, const Json& id,
            Result<typename M::Result> result, Txn& txn) {
  if (!result.ok()) {
    if (!txn.empty())
      log::error(std::string(M::name) + ": handler failed after emitting events; dropping them");
    send_error(session, id, result.error());
    return;
  }
  std::string line = protocol::encode_ok(id, protocol::encode(result.value()));
  services.pipeline.commit(std::move(txn),
                           [session, line = std::move(line)]() mutable {
                             session->send(std::move(line));
                           });
  services.snapshots.mark_if_changed();  // a change with no event (a seen time) included
}

template <class M>
Router::Entry bind_planned() {
  return [](Services&, const std::shared_ptr<Session>& session, Json id, Json) {
    Error e{ErrorCode::Internal, std::string(M::name) + ": not implemented yet in this build"};
    e.details = {{"method", std::string(M::name)}, {"implemented", false}};
    send_error(session, id, e);
  };
}

template <class M>
Router::Entry bind_implemented() {
  return [](Services& services, const std::shared_ptr<Session>& session, Json id, Json params) {
    auto decoded = protocol::decode<typename M::Params>(params);
    if (!decoded.ok()) return send_error(session, id, decoded.error());
    if constexpr (AsyncHandler<M>) {
      auto txn = std::make_shared<Txn>();
      Ctx ctx{services, session, *txn};
      handle(M{}, ctx, std::move(decoded).value(),
             [&services, session, id, txn](Result<typename M::Result> r) {
               finish<M>(services, session, id, std::move(r), *txn);
             });
    } else {
      Txn txn;
      Ctx ctx{services, session, txn};
      auto result = handle(M{}, ctx, std::move(decoded).value());
      finish<M>(services, session, id, std::move(result), txn);
    }
  };
}

}  // namespace

Router::Router(Services& services) : services_(services) {
  protocol::for_each_type<protocol::AllMethods>([this]<class M>() {
    if constexpr (M::availability == protocol::Availability::Implemented)
      table_.emplace(M::name, bind_implemented<M>());
    else
      table_.emplace(M::name, bind_planned<M>());
  });
}

void Router::handle_line(const std::shared_ptr<Session>& session, std::string_view line) {
  session->cancel_single_flight();
  auto decoded = protocol::decode_request(line);
  if (auto* failure = std::get_if<protocol::RequestError>(&decoded))
    return send_error(session, failure->id, failure->error);
  dispatch(session, std::get<protocol::Request>(std::move(decoded)));
}

void Router::dispatch(const std::shared_ptr<Session>& session, protocol::Request request) {
  session->cancel_single_flight();
  auto it = table_.find(request.method);
  if (it == table_.end()) {
    Error e{ErrorCode::UnknownMethod, "unknown method '" + request.method + "'"};
    e.details = {{"method", request.method}};
    return send_error(session, request.id, e);
  }
  if (auto allowed = authorize(services_.store, services_.tokens, *session, request.method,
                               request.token, request.params);
      !allowed.ok())
    return send_error(session, request.id, allowed.error());
  const Json id = request.id;
  try {
    it->second(services_, session, std::move(request.id), std::move(request.params));
  } catch (const std::exception& ex) {
    // A library threw past a handler: our bug, never the caller's.
    log::error(request.method + ": unexpected exception: " + ex.what());
    send_error(session, id, Error{ErrorCode::Internal, "internal error"});
  }
}

std::vector<std::string_view> Router::method_names() const {
  std::vector<std::string_view> out;
  out.reserve(table_.size());
  for (const auto& [name, entry] : table_) out.push_back(name);
  return out;
}

}  // namespace signaltty::broker
