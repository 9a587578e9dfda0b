// broker/connection.hpp: one accepted client socket: peer-credential check,
// JSONL framing with the 16 MiB cap enforced while reading, and a bounded
// outbound queue written with gathered writes.
// Runs in: broker (io thread). Never: waits for a slow client; a queue past
// its cap closes the connection, so one client can never stall another.
// Never runs its close handler inside the call that closed it: the handler
// is posted to the next turn of the io loop (docs/architecture.md, "Closing
// a connection"), so a send() made while walking a container of sessions
// cannot erase from that container.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>

#include "broker/output_budget.hpp"
#include "broker/session.hpp"
#include "common/bounded_queue.hpp"

namespace signaltty::broker {

class Connection final : public Session, private OutputBudget::Member {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;
  // Called for every complete line (without '\n').
  using LineHandler = std::function<void(const std::shared_ptr<Connection>&, std::string_view)>;
  using CloseHandler = std::function<void(std::uint64_t session_id)>;

  // on_close runs once, posted after the close (never from inside it).
  // `budget` (shared by every client connection) bounds what they queue
  // together; null: only this connection's own cap applies.
  Connection(Socket socket, std::uint64_t id, std::size_t queue_cap_bytes,
             std::shared_ptr<OutputBudget> budget, LineHandler on_line, CloseHandler on_close);
  ~Connection() override;

  // Checks SO_PEERCRED (FORBIDDEN + close for a foreign uid), then reads.
  void start();

  void send(std::string line) override;
  void close_after_flush() override;
  bool closed() const override { return closed_; }
  std::uint64_t session_id() const override { return id_; }
  pid_t peer_pid() const override { return peer_pid_; }
  // Drops the connection now, queued output included; the close handler
  // runs on a later turn of the io loop.
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
  void after_closed_write();
  // Tells the budget what the queue holds now.
  void account();
  std::size_t queued_bytes() const override { return out_.bytes(); }
  void shed(std::size_t total_bytes, std::size_t budget_bytes) override;

  Socket socket_;
  std::uint64_t id_;
  LineHandler on_line_;
  CloseHandler on_close_;
  pid_t peer_pid_ = 0;

  std::unique_ptr<char[]> read_chunk_;  // not zeroed: an idle client touches none of it
  std::string inbuf_;
  std::size_t scanned_ = 0;  // bytes of inbuf_ already searched for '\n'
  bool reading_stopped_ = false;

  BoundedQueue<std::string> out_;    // queued + in the current async_write
  std::shared_ptr<OutputBudget> budget_;
  std::size_t accounted_ = 0;       // out_.bytes() as the budget last heard it
  bool trim_after_write_ = false;   // a large queue was dropped mid-write
  std::vector<std::string> writing_;  // in the current async_write
  bool write_in_flight_ = false;
  bool closing_ = false;  // close_after_flush requested
  bool closed_ = false;
};

}  // namespace signaltty::broker
