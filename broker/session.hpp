// broker/session.hpp: one client connection as handlers and the event hub
// see it: a bounded outbound line queue and a close. Implemented by
// broker/connection.cpp. Runs in: broker (io thread only).
// Never: blocks; a client that stops reading is dropped, not waited for.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace signaltty::broker {

class Session : public std::enable_shared_from_this<Session> {
 public:
  virtual ~Session() = default;
  // Queues one complete line ('\n' included). Past the queue cap the connection is closed and
  // the line dropped; it is forgotten on a later io turn (docs/architecture.md).
  virtual void send(std::string line) = 0;
  // Stops reading; closes once everything queued so far is written.
  virtual void close_after_flush() = 0;
  virtual bool closed() const = 0;
  virtual std::uint64_t session_id() const = 0;
  virtual pid_t peer_pid() const = 0;

  // A single-flight request (common/protocol/method_decl.hpp kSingleFlight)
  // holds the connection: the router cancels it before dispatching the next
  // request, the connection when it closes (EOF included). The request
  // releases it when it answers.
  void hold_single_flight(std::function<void()> cancel) { single_flight_ = std::move(cancel); }
  void release_single_flight() { single_flight_ = nullptr; }
  // The pane whose SIGNALTTY_TOKEN this connection presented: role `pane`,
  // acting for that pane only (common/protocol/permits.hpp). None: role
  // `user`. Once bound it stays for the connection's life.
  const std::optional<std::string>& token_pane() const { return token_pane_; }
  void bind_token_pane(std::string pane_id) { token_pane_ = std::move(pane_id); }

  void cancel_single_flight() {
    std::function<void()> cancel = std::move(single_flight_);
    single_flight_ = nullptr;
    if (cancel) cancel();
  }

 private:
  std::function<void()> single_flight_;
  std::optional<std::string> token_pane_;
};

}  // namespace signaltty::broker
