// cli/client.hpp: a blocking signaltty/1 client over the broker's Unix
// socket: one request line out, lines in until the matching response.
// Runs in: CLI (and tests that play a client). Never: retries a request
// (mutations are never resubmitted automatically), or reads a line past
// the 16 MiB cap.
//
// Usage:
//   SIGNALTTY_TRY(auto client, Client::connect(path, ::getuid()));
//   SIGNALTTY_TRY(auto result, client.call("workspace.list", Json::object()));
//   while (auto line = client.next_line()) { ... }   // events after subscribe
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/errors.hpp"
#include "common/protocol/envelope.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::cli {

// When to give up waiting for the broker; nullopt waits forever.
using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// One line from the broker: its text (without '\n') and what it decodes to.
struct ServerLine {
  std::string text;
  std::variant<protocol::Response, protocol::EventMessage> message;
};

// This process's SIGNALTTY_TOKEN, or "" outside a pane. Every request the
// CLI and the hook relay send carries it: inside a pane they act as that
// pane (docs/security.md, "Roles on the socket").
std::string pane_token_from_env();

class Client {
 public:
  // NO_SUCH_SERVER when nothing listens at `socket_path` (missing socket or
  // connection refused), with a message saying how to start the broker;
  // FORBIDDEN (is_untrusted_socket) when the socket's directory or the
  // process serving it is not `uid`'s (connect_broker_socket). With a
  // deadline, TIMEOUT when the broker's listen queue stays full past it.
  static Result<Client> connect(const std::string& socket_path, uid_t uid,
                                Deadline deadline = std::nullopt);

  // Sends one request ("c1", "c2", …) and waits for its response, skipping
  // events. An error reply is returned as that Error.
  Result<protocol::Json> call(std::string_view method, const protocol::Json& params,
                              Deadline deadline = std::nullopt);

  // The next line from the broker; nullopt once the broker closed the
  // connection at a line boundary.
  Result<std::optional<ServerLine>> next_line(Deadline deadline = std::nullopt);

 private:
  explicit Client(UniqueFd fd) : fd_(std::move(fd)), token_(pane_token_from_env()) {}
  Result<std::string> send_request(std::string_view method, const protocol::Json& params);
  Result<std::optional<std::string>> read_line(Deadline deadline);
  Status fill_buffer(Deadline deadline);

  UniqueFd fd_;
  std::string token_;  // SIGNALTTY_TOKEN, sent with every request
  std::string buffer_;
  std::uint64_t next_request_ = 1;
  bool eof_ = false;
};

// The message of NO_SUCH_SERVER for `socket_path`.
std::string broker_not_running_message(const std::string& socket_path);

// A blocking, close-on-exec connection to the broker socket at
// `socket_path`, made only after cli/socket_trust.hpp's checks: the
// socket's directory is `uid`'s and mode 0700, and the peer runs as `uid`.
// NO_SUCH_SERVER when nothing listens there; FORBIDDEN marked
// is_untrusted_socket when a check fails. Every connection of the CLI to
// the broker is made here. Without a deadline connect() may block while
// the broker's listen queue is full; with one it gives up then (TIMEOUT).
Result<UniqueFd> connect_broker_socket(const std::string& socket_path, uid_t uid,
                                       Deadline deadline = std::nullopt);

}  // namespace signaltty::cli
