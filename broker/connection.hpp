// broker/connection.hpp: one accepted client socket: peer-credential check,
// JSONL framing with the 16 MiB cap enforced while reading, and a bounded
// outbound queue written with gathered writes.
// Runs in: broker (io thread). Never: waits for a slow client; a queue past
// its cap closes the connection, so one client can never stall another.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>

#include "broker/session.hpp"

namespace signaltty::broker {

class Connection final : public Session {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;
  // Called for every complete line (without '\n').
  using LineHandler = std::function<void(const std::shared_ptr<Connection>&, std::string_view)>;
  using CloseHandler = std::function<void(std::uint64_t session_id)>;

  Connection(Socket socket, std::uint64_t id, std::size_t queue_cap_bytes, LineHandler on_line,
             CloseHandler on_close);
  ~Connection() override;

  // Checks SO_PEERCRED (FORBIDDEN + close for a foreign uid), then reads.
  void start();

  void send(std::string line) override;
  void close_after_flush() override;
  bool closed() const override { return closed_; }
  std::uint64_t session_id() const override { return id_; }
  pid_t peer_pid() const override { return peer_pid_; }
  // Drops the connection now, queued output included.
  void close_now();

 private:
  std::shared_ptr<Connection> self() {
    return std::static_pointer_cast<Connection>(shared_from_this());
  }
  bool peer_is_owner();
  void read_more();
  void on_read(std::size_t n);
  void drain_lines();
  void refuse_overlong_line();
  void flush();
  void on_written();

  Socket socket_;
  std::uint64_t id_;
  std::size_t queue_cap_bytes_;
  LineHandler on_line_;
  CloseHandler on_close_;
  pid_t peer_pid_ = 0;

  std::vector<char> read_chunk_;
  std::string inbuf_;
  std::size_t scanned_ = 0;  // bytes of inbuf_ already searched for '\n'
  bool reading_stopped_ = false;

  std::deque<std::string> pending_;  // queued, not yet handed to the kernel
  std::vector<std::string> writing_;  // in the current async_write
  std::size_t queued_bytes_ = 0;      // pending_ + writing_
  bool write_in_flight_ = false;
  bool closing_ = false;  // close_after_flush requested
  bool closed_ = false;
};

}  // namespace signaltty::broker
