// broker/ptyhost_link.cpp: connect, handshake, frame I/O and request
// bookkeeping of one ptyhost connection.
// Runs in: broker (io thread).
#include "broker/ptyhost_link.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/write.hpp>

#include "broker/ptyhost_text.hpp"
#include "common/close_on_exec.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"
#include "common/protocol/codec.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::broker {
namespace {

namespace asio = boost::asio;
using protocol::FrameType;
using protocol::Json;
using Local = asio::local::stream_protocol;

// Bytes taken from the socket per read, into one buffer shared by every
// link: links wait for readability and then read on the io thread, so no
// two reads are ever in flight at once, and an idle pane's link holds no
// read buffer of its own (64 KiB each, when every link had one).
constexpr std::size_t kReadBytes = 64u << 10;

char* shared_read_buffer() {
  static const std::unique_ptr<char[]> buffer(new char[kReadBytes]);
  return buffer.get();
}
// Pause between connect attempts while a fresh ptyhost binds its socket.
constexpr std::chrono::milliseconds kConnectRetry{3};
// An input reply may arrive this long after the input's own budget.
constexpr std::chrono::milliseconds kInputReplySlack{1000};
// Frames gathered into one write towards a ptyhost.
constexpr std::size_t kLinkMaxGatherFrames = 64;
constexpr std::string_view kOpReply = "reply";
constexpr std::string_view kOpEvent = "event";
constexpr std::string_view kOpHello = "hello";

Error link_error(std::string message) { return Error{ErrorCode::BadProtocol, std::move(message)}; }

// A control frame's JSON object; BAD_PROTOCOL for anything else (not JSON,
// nested too deeply, not an object).
Result<Json> parse_object(std::string_view payload) {
  auto doc = protocol::parse_json(payload);
  if (!doc.ok()) return link_error("control frame: " + doc.error().message);
  if (!doc->is_object()) return link_error("control frame is not a JSON object");
  return doc;
}

}  // namespace

Result<wire::Hello> decode_hello(const protocol::Frame& frame, std::string_view expected_pane_id) {
  if (frame.type != FrameType::Control) return link_error("first frame is not a control frame");
  if (frame.payload.size() > limits::kPtyhostControlMaxBytes) return link_error("hello too large");
  auto doc = parse_object(frame.payload);
  if (!doc.ok()) return link_error("hello: " + doc.error().message);
  auto hello = protocol::decode<wire::Hello>(*doc);
  if (!hello.ok()) return link_error("hello: " + hello.error().message);
  if (hello->op != kOpHello) return link_error("expected hello, got '" + hello->op + "'");
  if (hello->version < wire::kPtyhostWireMinVersion)
    return link_error("ptyhost speaks version " + std::to_string(hello->version) +
                      ", older than " + std::to_string(wire::kPtyhostWireMinVersion));
  if (hello->min_version > wire::kPtyhostWireVersion)
    return link_error("ptyhost needs version " + std::to_string(hello->min_version) +
                      ", newer than ours");
  if (!is_pane_id(hello->pane_id)) return link_error("hello names an invalid pane id");
  if (!expected_pane_id.empty() && hello->pane_id != expected_pane_id)
    return link_error("hello names pane " + hello->pane_id);
  return hello;
}

PtyhostLink::PtyhostLink(asio::io_context& io, std::string socket_path)
    : io_(io), path_(std::move(socket_path)), socket_(io), timer_(io) {}

PtyhostLink::~PtyhostLink() = default;

// ---- connect and handshake ----------------------------------------------

void PtyhostLink::start(Options options, Handlers handlers, StartFn done) {
  options_ = std::move(options);
  handlers_ = std::move(handlers);
  start_done_ = std::move(done);
  phase_ = Phase::Connecting;
  try_connect();
}

void PtyhostLink::try_connect() {
  boost::system::error_code ignored;
  socket_.close(ignored);
  socket_.open(Local(), ignored);
  set_close_on_exec(socket_.native_handle());
  socket_.async_connect(Local::endpoint(path_),
                        [self = shared_from_this()](const boost::system::error_code& ec) {
                          self->on_connected(ec);
                        });
}

void PtyhostLink::on_connected(const boost::system::error_code& ec) {
  if (phase_ != Phase::Connecting) return;
  if (ec) {
    const bool absent = ec == boost::system::errc::no_such_file_or_directory;
    const bool refused = ec == asio::error::connection_refused;
    if ((absent || refused) && options_.retry_until &&
        std::chrono::steady_clock::now() < *options_.retry_until) {
      timer_.expires_after(kConnectRetry);
      timer_.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
        if (!e && self->phase_ == Phase::Connecting) self->try_connect();
      });
      return;
    }
    return fail_start(Error{ErrorCode::IoError, "connect " + path_ + ": " + ec.message()},
                      absent ? LinkFailure::Absent
                             : refused ? LinkFailure::Refused : LinkFailure::Broken);
  }
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return fail_start(Error::from_errno(ErrorCode::Forbidden, "getsockopt", errno, path_),
                      LinkFailure::Rejected);
  if (cred.uid != ::geteuid())
    return fail_start(Error{ErrorCode::Forbidden, path_ + ": peer uid " +
                                                      std::to_string(cred.uid) + " is not ours"},
                      LinkFailure::Rejected);
  peer_pid_ = cred.pid;
  phase_ = Phase::AwaitingHello;
  timer_.expires_after(options_.hello_timeout);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
    if (!e && self->phase_ == Phase::AwaitingHello)
      self->fail_start(Error{ErrorCode::Timeout, self->path_ + ": no hello in time"},
                       LinkFailure::Broken);
  });
  read_more();
}

void PtyhostLink::fail_start(Error error, LinkFailure failure) {
  if (phase_ == Phase::Closed) return;
  phase_ = Phase::Closed;
  boost::system::error_code ignored;
  socket_.close(ignored);
  timer_.cancel();
  if (auto done = std::exchange(start_done_, nullptr)) done(std::move(error), failure);
}

Status PtyhostLink::handle_hello(const protocol::Frame& frame) {
  auto hello = decode_hello(frame, options_.pane_id);
  if (!hello.ok()) {
    fail_start(hello.error(), LinkFailure::Rejected);
    return {};
  }
  features_ = hello->features & wire::kFeaturesSupported;
  wire::HelloAck ack;
  ack.features = features_;
  send(protocol::encode_frame(FrameType::Control, protocol::encode(ack).dump()), 0);
  timer_.cancel();
  phase_ = Phase::Ready;
  if (auto done = std::exchange(start_done_, nullptr)) done(std::move(hello).value(), LinkFailure::None);
  return {};
}

// ---- inbound -------------------------------------------------------------

void PtyhostLink::read_more() {
  socket_.async_wait(Local::socket::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& ec) {
                       self->on_readable(ec);
                     });
}

void PtyhostLink::on_readable(boost::system::error_code ec) {
  if (phase_ == Phase::Closed) return;
  std::size_t n = 0;
  if (!ec) {
    if (!socket_.non_blocking()) socket_.non_blocking(true, ec);  // once per socket
    if (!ec) n = socket_.read_some(asio::buffer(shared_read_buffer(), kReadBytes), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) return read_more();
  }
  on_read(ec, n);
}

void PtyhostLink::on_read(const boost::system::error_code& ec, std::size_t n) {
  if (phase_ == Phase::Closed) return;
  if (ec) {
    const std::string why = ec == asio::error::eof ? "end of stream" : ec.message();
    if (phase_ == Phase::AwaitingHello)
      return fail_start(Error{ErrorCode::IoError, path_ + ": " + why}, LinkFailure::Broken);
    peer_hung_up_ = true;
    return close(why);
  }
  reader_.append(std::string_view(shared_read_buffer(), n));
  for (;;) {
    auto next = reader_.next();
    if (!next.ok()) {
      log::warn("ptyhost " + path_ + ": malformed frame: " + next.error().message);
      if (phase_ == Phase::AwaitingHello)
        return fail_start(next.error(), LinkFailure::Broken);
      return close("malformed frame");
    }
    if (!next->has_value()) break;
    Status handled = phase_ == Phase::AwaitingHello ? handle_hello(**next) : handle_frame(**next);
    if (!handled.ok()) {
      log::warn("ptyhost " + path_ + ": " + handled.error().message + "; disconnecting");
      return close(handled.error().message);
    }
    if (phase_ == Phase::Closed) return;
  }
  read_more();
}

Result<Inbound> decode_inbound(const protocol::Frame& frame) {
  switch (frame.type) {
    case FrameType::Output:
    case FrameType::State: {
      auto tagged = protocol::split_tagged(frame.payload);
      if (!tagged) return link_error("output or state frame shorter than its tag");
      if (frame.type == FrameType::Output) return Inbound{InboundOutput{tagged->first, tagged->second}};
      return Inbound{InboundState{tagged->first, tagged->second}};
    }
    case FrameType::Control:
      break;
    default:
      return link_error("frame type not accepted from a ptyhost");
  }
  if (frame.payload.size() > limits::kPtyhostControlMaxBytes)
    return link_error("control frame of " + std::to_string(frame.payload.size()) + " bytes");
  SIGNALTTY_TRY(Json doc, parse_object(frame.payload));
  auto op = doc.find("op");
  if (op == doc.end() || !op->is_string()) return link_error("control frame without op");
  if (*op == kOpReply) {
    auto reply = protocol::decode<wire::Reply>(doc);
    if (!reply.ok()) return link_error("reply: " + reply.error().message);
    return Inbound{std::move(reply).value()};
  }
  if (*op != kOpEvent) return link_error("unexpected op '" + op->get<std::string>() + "'");
  auto event = protocol::decode<wire::Event>(doc);
  if (!event.ok()) return link_error("event: " + event.error().message);
  return Inbound{std::move(event).value()};
}

Status PtyhostLink::handle_frame(const protocol::Frame& frame) {
  SIGNALTTY_TRY(Inbound message, decode_inbound(frame));
  if (auto* output = std::get_if<InboundOutput>(&message)) {
    if (handlers_.on_output) handlers_.on_output(output->end_offset, output->bytes);
  } else if (auto* state = std::get_if<InboundState>(&message)) {
    if (auto it = pending_.find(state->rid); it != pending_.end())
      it->second.state.assign(state->bytes);
  } else if (auto* reply = std::get_if<wire::Reply>(&message)) {
    return handle_reply(std::move(*reply));
  } else if (handlers_.on_event) {
    handlers_.on_event(std::get<wire::Event>(message));
  }
  return {};
}

Status PtyhostLink::handle_reply(wire::Reply reply) {
  auto it = pending_.find(reply.rid);
  if (it == pending_.end()) return {};  // we gave up on it (timeout)
  Pending pending = std::move(it->second);
  pending_.erase(it);
  if (pending.timer) pending.timer->cancel();
  if (reply.ok) {
    if (!pending.done(std::move(reply.result), std::move(pending.state)))
      return link_error("reply " + std::to_string(reply.rid) + " does not decode");
    return {};
  }
  const wire::WireError failure = reply.error.value_or(wire::WireError{"INTERNAL", "no error"});
  Error error{error_code_from_wire(failure.code).value_or(ErrorCode::Internal),
              clean_text(failure.message, limits::kNotificationBodyMaxChars),
              failure.details.is_object() ? failure.details : Json::object()};
  pending.done(std::move(error), {});
  return {};
}

// ---- outbound ------------------------------------------------------------

std::uint64_t PtyhostLink::add_pending(Deliver done, std::chrono::milliseconds timeout) {
  const std::uint64_t rid = next_rid_++;
  auto timer = std::make_shared<asio::steady_timer>(io_);
  timer->expires_after(timeout);
  timer->async_wait([weak = weak_from_this(), rid](const boost::system::error_code& ec) {
    auto self = weak.lock();
    if (ec || !self) return;
    auto it = self->pending_.find(rid);
    if (it == self->pending_.end()) return;
    Deliver fn = std::move(it->second.done);
    self->pending_.erase(it);
    Error e{ErrorCode::Timeout, "the ptyhost did not answer in time"};
    e.details = {{"written_bytes", nullptr}};
    fn(std::move(e), {});
  });
  pending_.emplace(rid, Pending{std::move(done), {}, std::move(timer)});
  return rid;
}

void PtyhostLink::request(std::string_view op, Json fields, Deliver done,
                          std::chrono::milliseconds timeout) {
  if (phase_ != Phase::Ready) {
    Error e{ErrorCode::PaneExited, "the pane's ptyhost is not connected"};
    e.details = {{"written_bytes", nullptr}};
    done(std::move(e), {});
    return;
  }
  const std::uint64_t rid = add_pending(std::move(done), timeout);
  if (!fields.is_object()) fields = Json::object();
  fields["op"] = std::string(op);
  fields["rid"] = rid;
  send(protocol::encode_frame(FrameType::Control,
                             fields.dump(-1, ' ', false, Json::error_handler_t::replace)),
       rid);
}

void PtyhostLink::input(std::string_view bytes, std::chrono::milliseconds budget,
                        std::function<void(Result<wire::InputReply>)> done) {
  if (phase_ != Phase::Ready) {
    Error e{ErrorCode::PaneExited, "the pane's ptyhost is not connected"};
    e.details = {{"written_bytes", 0}};
    return done(std::move(e));
  }
  // The ptyhost answers within the budget; a little slack for the trip.
  const auto timeout = budget + kInputReplySlack;
  auto deliver = [done = std::move(done)](Result<Json> result, std::string) {
    if (!result.ok()) {
      done(std::move(result).error());
      return true;
    }
    auto reply = protocol::decode<wire::InputReply>(*result);
    if (!reply.ok()) {
      done(Error{ErrorCode::Internal, "the ptyhost's input reply does not decode"});
      return false;
    }
    done(*reply);
    return true;
  };
  const std::uint64_t rid = add_pending(std::move(deliver), timeout);
  const auto budget_ms = static_cast<std::uint32_t>(std::max<std::int64_t>(0, budget.count()));
  send(protocol::encode_input_frame(rid, budget_ms, bytes), rid);
}

void PtyhostLink::send(std::string frame, std::uint64_t rid) {
  if (!queue_.push(std::move(frame))) {
    auto it = pending_.find(rid);
    if (it == pending_.end()) return;
    Deliver fn = std::move(it->second.done);
    pending_.erase(it);
    Error e{ErrorCode::RateLimited, "too much queued towards the pane's ptyhost"};
    e.details = {{"written_bytes", 0}};
    fn(std::move(e), {});
    return;
  }
  if (writing_.empty()) write_more();
}

void PtyhostLink::write_more() {
  if (queue_.empty() || phase_ == Phase::Closed) return;
  writing_ = queue_.take_batch(kLinkMaxGatherFrames);
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(writing_.size());
  for (const std::string& frame : writing_) buffers.emplace_back(asio::buffer(frame));
  asio::async_write(socket_, buffers,
                    [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                      self->writing_.clear();
                      self->queue_.finish_batch();
                      if (self->phase_ == Phase::Closed) return;
                      if (ec) {
                        self->peer_hung_up_ = true;
                        return self->close("write: " + ec.message());
                      }
                      self->write_more();
                    });
}

void PtyhostLink::close(const std::string& why) {
  if (phase_ == Phase::Closed) return;
  const bool was_ready = phase_ == Phase::Ready;
  if (!was_ready) return fail_start(Error{ErrorCode::IoError, path_ + ": " + why}, LinkFailure::Broken);
  phase_ = Phase::Closed;
  boost::system::error_code ignored;
  socket_.close(ignored);
  timer_.cancel();
  auto pending = std::move(pending_);
  pending_.clear();
  // The owner hears of the end first (it may link again, so a request that
  // was under way can ask again), then the requests under way fail. The
  // owner may drop its last reference to us meanwhile.
  const auto keep = weak_from_this().lock();
  auto on_closed = handlers_.on_closed;
  if (on_closed) on_closed(why);
  for (auto& [rid, p] : pending) {
    if (p.timer) p.timer->cancel();
    Error e{ErrorCode::PaneExited, "the pane's ptyhost went away"};
    e.details = {{"written_bytes", nullptr}};
    p.done(std::move(e), {});
  }
}

}  // namespace signaltty::broker
