// broker/router.hpp: dispatch of one decoded request through the method
// table of common/protocol/methods.hpp: decode typed params (BAD_PARAMS
// naming the field), run the handler, commit its events (journal → publish)
// and only then send the reply. Before any of it, the request passes the
// (method, role) permit check (broker/permit_check.hpp).
// Runs in: broker (io thread). Never: lets a handler see raw JSON, or sends
// a mutating reply before its events are durable.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker/services.hpp"
#include "common/protocol/envelope.hpp"

namespace signaltty::broker {

class Router {
 public:
  explicit Router(Services& services);

  // Parses and answers one request line from `session`.
  void handle_line(const std::shared_ptr<Session>& session, std::string_view line);
  // Answers an already-decoded request.
  void dispatch(const std::shared_ptr<Session>& session, protocol::Request request);

  // Every name the router dispatches (for the sync tests).
  std::vector<std::string_view> method_names() const;

  using Entry = std::function<void(Services&, const std::shared_ptr<Session>&, protocol::Json id,
                                   protocol::Json params)>;

 private:
  Services& services_;
  std::unordered_map<std::string_view, Entry> table_;
};

}  // namespace signaltty::broker
