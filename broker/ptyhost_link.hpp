// broker/ptyhost_link.hpp: PtyhostLink, the broker's one connection to one
// signaltty-ptyhost (common/protocol/ptyhost_wire.hpp): connect, check the
// peer's uid, read its Hello and answer HelloAck, then requests by rid,
// Input frames, and Output frames / events handed to the supervisor.
// ptyhost/broker_service.cpp answers each call made here with the same op.
// Runs in: broker (io thread).
// Never: trusts the ptyhost. Every frame is decoded into its struct before
// any callback sees it; a malformed frame, JSON nested past
// limits::kJsonMaxDepth, a Hello that does not fit, an event or a reply
// that does not decode disconnects the link and is logged; the broker
// carries on. Closing the link never signals or unlinks anything.
//
// One typed call per op of the table in ptyhost_wire.hpp (PtyhostOps);
// ptyhost/broker_service.cpp answers each with the PaneHost call of the
// same verb.
//
// Usage:
//   auto link = std::make_shared<PtyhostLink>(io, socket_path);
//   link->start({.pane_id = id}, handlers, [](Result<wire::Hello> hello, LinkFailure) { ... });
//   link->read({.mode = protocol::ReadMode::Tail}, [](Result<wire::ReadReply> r, std::string) { ... });
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
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/bounded_queue.hpp"
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

// Every frame after the Hello, decoded: PTY output, a State frame, a Reply
// (its result is decoded by the op that asked) or an Event. BAD_PROTOCOL
// for anything else; the views point into `frame`.
struct InboundOutput {
  std::uint64_t end_offset = 0;
  std::string_view bytes;
};
struct InboundState {
  std::uint64_t rid = 0;
  std::string_view bytes;
};
using Inbound = std::variant<InboundOutput, InboundState, wire::Reply, wire::Event>;
Result<Inbound> decode_inbound(const protocol::Frame& frame);

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
  template <class Op>
  using ReplyTo = std::function<void(Result<typename Op::Reply> reply, std::string state)>;
  using StartFn = std::function<void(Result<wire::Hello> hello, LinkFailure failure)>;

  PtyhostLink(boost::asio::io_context& io, std::string socket_path);
  ~PtyhostLink();
  PtyhostLink(const PtyhostLink&) = delete;
  PtyhostLink& operator=(const PtyhostLink&) = delete;

  // Connects and handshakes; `done` is called exactly once.
  void start(Options options, Handlers handlers, StartFn done);

  // {"op": Op::name, "rid": N, ...request}; `done` exactly once, with the
  // decoded reply, or an error when the ptyhost refused, the link closed
  // first, the ptyhost is silent past `timeout`, or its reply does not
  // decode (the link is then dropped).
  template <class Op>
  void call(const typename Op::Request& request, ReplyTo<Op> done,
            std::chrono::milliseconds timeout = kPtyhostRequestTimeout);

  // One call per op.
  void spawn(const wire::SpawnRequest& r, ReplyTo<wire::OpSpawn> done) {
    call<wire::OpSpawn>(r, std::move(done));
  }
  void resize(const wire::ResizeRequest& r, ReplyTo<wire::OpResize> done) {
    call<wire::OpResize>(r, std::move(done));
  }
  void signal(const wire::SignalRequest& r, ReplyTo<wire::OpSignal> done) {
    call<wire::OpSignal>(r, std::move(done));
  }
  void read(const wire::ReadRequest& r, ReplyTo<wire::OpRead> done) {
    call<wire::OpRead>(r, std::move(done));
  }
  void stream(const wire::StreamRequest& r, ReplyTo<wire::OpStream> done) {
    call<wire::OpStream>(r, std::move(done));
  }
  void clear(ReplyTo<wire::OpClear> done) { call<wire::OpClear>({}, std::move(done)); }
  void close_pane(const wire::CloseRequest& r, ReplyTo<wire::OpClose> done,
                  std::chrono::milliseconds timeout) {
    call<wire::OpClose>(r, std::move(done), timeout);
  }
  void collect_exit(ReplyTo<wire::OpCollectExit> done) {
    call<wire::OpCollectExit>({}, std::move(done));
  }
  void set_meta(const wire::SetMetaRequest& r, ReplyTo<wire::OpSetMeta> done) {
    call<wire::OpSetMeta>(r, std::move(done));
  }
  void screen(const wire::ScreenRequest& r, ReplyTo<wire::OpScreen> done) {
    call<wire::OpScreen>(r, std::move(done));
  }
  // An Input frame: u32 LE budget in ms, then the bytes.
  void input(std::string_view bytes, std::chrono::milliseconds budget,
             std::function<void(Result<wire::InputReply>)> done);
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
  // Takes a reply's result (or the error) and the State bytes; false when
  // an ok result did not decode into the op's reply (the caller has been
  // told; the link is dropped).
  using Deliver = std::function<bool(Result<protocol::Json> result, std::string state)>;
  struct Pending {
    Deliver done;
    std::string state;
    std::shared_ptr<boost::asio::steady_timer> timer;
  };

  void try_connect();
  void on_connected(const boost::system::error_code& ec);
  void fail_start(Error error, LinkFailure failure);
  void read_more();
  void on_readable(boost::system::error_code ec);
  void on_read(const boost::system::error_code& ec, std::size_t n);
  Status handle_frame(const protocol::Frame& frame);
  Status handle_hello(const protocol::Frame& frame);
  Status handle_reply(wire::Reply reply);
  void request(std::string_view op, protocol::Json fields, Deliver done,
               std::chrono::milliseconds timeout);
  std::uint64_t add_pending(Deliver done, std::chrono::milliseconds timeout);
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
  // Frames waiting to be written; a request that would pass the cap is
  // refused (RATE_LIMITED) and the link stays.
  BoundedQueue<std::string> queue_{kLinkQueueCapBytes, OverflowPolicy::kRefuseItem};
  std::vector<std::string> writing_;  // the gathered write in flight
  std::uint64_t next_rid_ = 1;
  std::map<std::uint64_t, Pending> pending_;
};

template <class Op>
void PtyhostLink::call(const typename Op::Request& request, ReplyTo<Op> done,
                       std::chrono::milliseconds timeout) {
  auto deliver = [done = std::move(done)](Result<protocol::Json> result, std::string state) {
    if (!result.ok()) {
      done(std::move(result).error(), {});
      return true;
    }
    auto reply = protocol::decode<typename Op::Reply>(*result);
    if (!reply.ok()) {
      done(Error{ErrorCode::Internal, "the ptyhost's " + std::string(Op::name) +
                                          " reply does not decode: " + reply.error().message},
           {});
      return false;
    }
    done(std::move(reply).value(), std::move(state));
    return true;
  };
  this->request(Op::name, protocol::encode(request), std::move(deliver), timeout);
}

}  // namespace signaltty::broker
