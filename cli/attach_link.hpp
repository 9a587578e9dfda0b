// cli/attach_link.hpp: AttachLink, the attach client's non-blocking
// signaltty/1 connection: requests are queued and written as the socket
// takes them (pipelined, matched to responses by id), and whatever the
// broker sends is read as it arrives and decoded line by line, so one
// poll() loop can serve the keyboard, the socket and signals at once.
// Runs in: CLI. Never: blocks outside call() and flush_all(), raises SIGPIPE
// (MSG_NOSIGNAL), or buffers more than one line past the 16 MiB cap.
//
// Usage:
//   SIGNALTTY_TRY(auto link, AttachLink::connect(socket_path, ::getuid()));
//   SIGNALTTY_TRY(Json got, link.call(protocol::PaneGet::name, params));  // setup
//   std::string id = link.send(protocol::PaneInput::name, params);        // hot path
//   poll({link.fd(), link.poll_events()}, ...);
//   SIGNALTTY_RETURN_IF_ERROR(link.on_ready(revents));
//   while (auto message = link.next()) ...;
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "cli/client.hpp"
#include "common/errors.hpp"
#include "common/protocol/envelope.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::cli {

using ServerMessage = std::variant<protocol::Response, protocol::EventMessage>;

class AttachLink {
 public:
  // NO_SUCH_SERVER when nothing listens at `socket_path`; FORBIDDEN when
  // the socket is not `uid`'s (connect_broker_socket in cli/client.hpp).
  static Result<AttachLink> connect(const std::string& socket_path, uid_t uid);
  // An already connected stream socket (tests use a socketpair).
  static AttachLink adopt(UniqueFd fd);

  AttachLink(AttachLink&&) = default;
  AttachLink& operator=(AttachLink&&) = default;

  // Queues one request; returns its id ("a1", "a2", ...).
  std::string send(std::string_view method, const protocol::Json& params);
  // Sends one request and waits for its response, keeping events that
  // arrive meanwhile for next(). An error reply comes back as that Error;
  // EOF is NO_SUCH_SERVER ("the broker went away").
  Result<protocol::Json> call(std::string_view method, const protocol::Json& params,
                              std::chrono::steady_clock::time_point deadline);
  // Writes every queued byte, waiting until `deadline` at most.
  Status flush_all(std::chrono::steady_clock::time_point deadline);

  int fd() const { return fd_.get(); }
  // POLLIN, plus POLLOUT while requests wait to be written.
  short poll_events() const;
  // Reads and writes what poll() said is ready. Lines that fail to decode
  // are BAD_PROTOCOL.
  Status on_ready(short revents);
  // The next decoded message, in arrival order.
  std::optional<ServerMessage> next();
  // The broker closed the connection (after the messages still in next()).
  bool closed() const { return eof_; }
  std::size_t unsent_bytes() const { return outbox_.size(); }

 private:
  explicit AttachLink(UniqueFd fd) : fd_(std::move(fd)), token_(pane_token_from_env()) {}
  Status write_some();
  Status read_some();
  Status decode_lines();

  UniqueFd fd_;
  std::string token_;  // SIGNALTTY_TOKEN (cli/client.hpp)
  std::string outbox_;
  std::string inbox_;
  std::size_t scanned_ = 0;  // bytes of inbox_ known to hold no '\n'
  std::deque<ServerMessage> messages_;
  std::uint64_t next_request_ = 1;
  bool eof_ = false;
};

}  // namespace signaltty::cli
