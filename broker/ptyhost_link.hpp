// broker/ptyhost_link.hpp: PtyhostLink, the broker's one connection to one
// signaltty-ptyhost (common/protocol/ptyhost_wire.hpp): connect, check the
// peer's uid, read its Hello and answer HelloAck, then requests by rid,
// Input frames, and Output frames / events handed to the supervisor.
// ptyhost/broker_service.cpp answers each call made here with the same op.
// Runs in: broker (io thread).
// Never: trusts the ptyhost. A malformed frame, a Hello that does not fit,
// or a reply that does not decode disconnects the link and is logged; the
// broker carries on. Closing the link never signals or unlinks anything.
//
// Usage:
//   auto link = std::make_shared<PtyhostLink>(io, socket_path);
//   link->start({.pane_id = id}, handlers, [](Result<wire::Hello> hello) { ... });
//   link->request(wire::kOpRead, {{"mode", "tail"}}, [](Result<Json> r, std::string) { ... });
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/errors.hpp"
#include "common/protocol/frame.hpp"
#include "common/protocol/ptyhost_wire.hpp"

namespace signaltty::broker {

namespace wire = protocol::ptyhost;

// A request the ptyhost leaves unanswered this long fails with TIMEOUT.
inline constexpr std::chrono::milliseconds kPtyhostRequestTimeout{10000};
// Bytes queued towards one ptyhost before further requests are refused.
inline constexpr std::size_t kLinkQueueCapBytes = 32u << 20;

// Why a link could not be established; adoption acts on the difference.
enum class LinkFailure {
  None,
  Absent,    // no socket at the path (ENOENT)
  Refused,   // a socket nobody listens on (ECONNREFUSED): stale
  Rejected,  // someone answered but is not the ptyhost we expect
  Broken,    // it answered badly or too slowly
};

// The Hello of a control frame, decoded and checked against what the broker
// speaks (any version ≥ kPtyhostWireMinVersion whose min_version we meet)
// and the pane it should serve (empty = any valid pane id).
Result<wire::Hello> decode_hello(const protocol::Frame& frame, std::string_view expected_pane_id);

class PtyhostLink : public std::enable_shared_from_this<PtyhostLink> {
 public:
  struct Options {
    std::string pane_id;  // expected in the Hello; empty accepts any
    // Keep retrying a missing or refusing socket until then (a ptyhost just
    // launched binds its socket a moment after exec).
    std::optional<std::chrono::steady_clock::time_point> retry_until;
    std::chrono::milliseconds hello_timeout{3000};
  };
  struct Handlers {
    std::function<void(std::uint64_t end_offset, std::string_view bytes)> on_output;
    std::function<void(const wire::Event& event)> on_event;
    std::function<void(const std::string& why)> on_closed;  // after a successful start only
  };
  // `state` holds the State frame sent under the same rid (attach snapshot).
  using ReplyFn = std::function<void(Result<protocol::Json> result, std::string state)>;
  using StartFn = std::function<void(Result<wire::Hello> hello, LinkFailure failure)>;

  PtyhostLink(boost::asio::io_context& io, std::string socket_path);
  ~PtyhostLink();
  PtyhostLink(const PtyhostLink&) = delete;
  PtyhostLink& operator=(const PtyhostLink&) = delete;

  // Connects and handshakes; `done` is called exactly once.
  void start(Options options, Handlers handlers, StartFn done);
  // {"op": op, "rid": N, ...fields}; `done` exactly once (an error when the
  // link closes first or the ptyhost is silent past `timeout`).
  void request(std::string_view op, protocol::Json fields, ReplyFn done,
               std::chrono::milliseconds timeout = kPtyhostRequestTimeout);
  // An Input frame: u32 LE budget in ms, then the bytes.
  void input(std::string_view bytes, std::chrono::milliseconds budget, ReplyFn done);
  // Idempotent; pending requests fail with IO_ERROR, on_closed is called.
  void close(const std::string& why);

  bool ready() const { return phase_ == Phase::Ready; }
  pid_t peer_pid() const { return peer_pid_; }
  // The ptyhost ended the connection (EOF or a socket error), as opposed to
  // this side dropping it for a malformed or unexpected frame.
  bool peer_hung_up() const { return peer_hung_up_; }
  std::uint64_t features() const { return features_; }
  const std::string& socket_path() const { return path_; }

 private:
  enum class Phase { Idle, Connecting, AwaitingHello, Ready, Closed };
  struct Pending {
    ReplyFn done;
    std::string state;
    std::shared_ptr<boost::asio::steady_timer> timer;
  };

  void try_connect();
  void on_connected(const boost::system::error_code& ec);
  void fail_start(Error error, LinkFailure failure);
  void read_more();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  Status handle_frame(const protocol::Frame& frame);
  Status handle_hello(const protocol::Frame& frame);
  Status handle_control(std::string_view payload);
  Status handle_reply(const protocol::Json& doc);
  Status handle_state(std::string_view payload);
  std::uint64_t add_pending(ReplyFn done, std::chrono::milliseconds timeout);
  void send(std::string frame, std::uint64_t rid);
  void write_more();

  boost::asio::io_context& io_;
  std::string path_;
  boost::asio::local::stream_protocol::socket socket_;
  boost::asio::steady_timer timer_;  // connect retry, then the Hello deadline
  Options options_;
  Handlers handlers_;
  StartFn start_done_;
  Phase phase_ = Phase::Idle;
  bool peer_hung_up_ = false;
  pid_t peer_pid_ = -1;
  std::uint64_t features_ = 0;
  protocol::FrameReader reader_;
  std::vector<char> read_buffer_;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  std::uint64_t next_rid_ = 1;
  std::map<std::uint64_t, Pending> pending_;
};

}  // namespace signaltty::broker
