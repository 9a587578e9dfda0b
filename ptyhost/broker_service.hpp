// ptyhost/broker_service.hpp: BrokerService, the ptyhost's side of one broker
// connection (common/protocol/ptyhost_wire.hpp): the Hello we send first,
// the HelloAck we require before anything else, then the dispatch table
// that turns each request op into one PaneHost call and one Reply.
// Runs in: ptyhost, on the event loop's thread; one instance per accepted
// connection, and only the newest one is live.
// Never: lets raw JSON past the decoder, answers a request before the
// handshake, or keeps a broker that sent a malformed frame (it is
// disconnected; the ptyhost and its program carry on).
//
// Outbound frames wait in a bounded queue and leave in gathered writes.
// Streamed output pushes back: past kStreamHighWaterBytes queued, the pane
// host stops reading the PTY (the program waits, as it would behind a slow
// terminal) until the broker takes the backlog in; a broker that takes in
// nothing for kStreamStallLimit is dropped and the PTY is drained again.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>

#include "common/bounded_queue.hpp"
#include "common/errors.hpp"
#include "common/page_buffer.hpp"
#include "common/protocol/frame.hpp"
#include "common/protocol/ptyhost_wire.hpp"

namespace signaltty::ptyhost {

class PaneHost;

// Streamed output queued for the broker past which the PTY is not read.
inline constexpr std::size_t kStreamHighWaterBytes = 1u << 20;
// How long a backlogged broker may take in nothing before it is dropped.
inline constexpr std::chrono::milliseconds kStreamStallLimit{5000};
// Any outbound backlog past this drops the broker (replies and State frames
// included): room for two maximal frames.
inline constexpr std::size_t kOutQueueHardCapBytes = 2 * protocol::kFrameMaxBytes;

class BrokerService : public std::enable_shared_from_this<BrokerService> {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;

  BrokerService(Socket socket, PaneHost& host);
  BrokerService(const BrokerService&) = delete;
  BrokerService& operator=(const BrokerService&) = delete;

  // Sends Hello and starts reading.
  void start();
  // Drops the connection (idempotent); the host hears of it once.
  void close(std::string_view why);

  bool connected() const { return phase_ != Phase::Closed; }
  bool streaming() const { return phase_ == Phase::Ready && streaming_; }
  // Nothing left to write.
  bool idle() const { return queue_.bytes() == 0; }
  // Streamed output past the high-water mark waits: the PTY should not be read.
  bool backlogged() const { return streaming() && queue_.bytes() >= kStreamHighWaterBytes; }

  // Negotiated features (ours & the broker's); 0 before the HelloAck.
  std::uint64_t features() const { return features_; }

  void send_output(std::uint64_t end_offset, std::string_view bytes);
  void send_event(const protocol::ptyhost::Event& event);
  void send_reply(std::uint64_t rid, Result<protocol::Json> outcome);
  // The read buffer's pages go back to the kernel (PageBuffer): between
  // reads it holds nothing, so any moment on the loop's thread will do.
  void give_back_read_buffer() { read_buffer_.give_back(); }

 private:
  enum class Phase { AwaitingAck, Ready, Closed };
  using Handler = void (BrokerService::*)(std::uint64_t rid, const protocol::Json& doc);
  struct Op {
    std::string_view name;
    Handler handler;
  };
  static const std::array<Op, protocol::ptyhost::PtyhostOps::size> kOps;

  void read_more();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  Status handle_frame(const protocol::Frame& frame);
  Status handle_control(std::string_view payload);
  Status handle_hello_ack(const protocol::Json& doc);
  Status handle_input(std::string_view payload);
  Status dispatch(const protocol::Json& doc);

  // One handler per op (the table in broker_service.cpp): the request
  // decoded, the PaneHost call of the same verb, its reply encoded.
  template <class WireOp, Result<typename WireOp::Reply> (PaneHost::*Call)(const typename WireOp::Request&)>
  void answer(std::uint64_t rid, const protocol::Json& doc);
  template <class WireOp>
  void send_typed_reply(std::uint64_t rid, Result<typename WireOp::Reply> outcome);
  void op_stream(std::uint64_t rid, const protocol::Json& doc);
  void op_serialize(std::uint64_t rid, const protocol::Json& doc);

  void send_control(const protocol::Json& doc);
  void send_state(std::uint64_t rid, std::string_view bytes);
  void enqueue(std::string frame);
  void write_more();
  void on_written(const boost::system::error_code& ec, std::size_t written);

  Socket socket_;
  PaneHost& host_;
  Phase phase_ = Phase::AwaitingAck;
  std::uint64_t features_ = 0;  // negotiated: ours & the broker's
  bool streaming_ = false;
  protocol::FrameReader reader_;
  PageBuffer read_buffer_;
  // Waiting to be written; past kOutQueueHardCapBytes the broker is dropped.
  BoundedQueue<std::string> queue_{kOutQueueHardCapBytes, OverflowPolicy::kDropReader};
  std::vector<std::string> inflight_;  // being written now (still counted in queue_)
};

}  // namespace signaltty::ptyhost
