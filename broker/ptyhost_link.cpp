// broker/ptyhost_link.cpp: connect, handshake, frame I/O and request
// bookkeeping of one ptyhost connection.
// Runs in: broker (io thread).
#include "broker/ptyhost_link.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/write.hpp>

#include "common/ids.hpp"
#include "common/close_on_exec.hpp"
#include "common/log.hpp"
#include "common/protocol/codec.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::broker {
namespace {

namespace asio = boost::asio;
using protocol::FrameType;
using protocol::Json;
using Local = asio::local::stream_protocol;

// Bytes taken from the socket per read.
constexpr std::size_t kReadBytes = 64u << 10;
// Pause between connect attempts while a fresh ptyhost binds its socket.
constexpr std::chrono::milliseconds kConnectRetry{3};
constexpr std::string_view kOpReply = "reply";
constexpr std::string_view kOpEvent = "event";
constexpr std::string_view kOpHello = "hello";

Error link_error(std::string message) { return Error{ErrorCode::BadProtocol, std::move(message)}; }

// A ptyhost is not trusted: its JSON goes through the depth-bounded parser,
// and anything but an object reads as null.
Json parse_object(std::string_view payload) {
  Result<Json> doc = protocol::parse_json(payload);
  return doc.ok() && doc->is_object() ? std::move(doc).value() : Json();
}

}  // namespace

Result<wire::Hello> decode_hello(const protocol::Frame& frame, std::string_view expected_pane_id) {
  if (frame.type != FrameType::Control) return link_error("first frame is not a control frame");
  Json doc = parse_object(frame.payload);
  if (doc.is_null()) return link_error("hello is not a JSON object");
  auto hello = protocol::decode<wire::Hello>(doc);
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
    : io_(io), path_(std::move(socket_path)), socket_(io), timer_(io), read_buffer_(kReadBytes) {}

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
  socket_.async_read_some(asio::buffer(read_buffer_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      std::size_t n) { self->on_read(ec, n); });
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
  reader_.append(std::string_view(read_buffer_.data(), n));
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

Status PtyhostLink::handle_frame(const protocol::Frame& frame) {
  switch (frame.type) {
    case FrameType::Control:
      return handle_control(frame.payload);
    case FrameType::Output: {
      auto tagged = protocol::split_tagged(frame.payload);
      if (!tagged) return link_error("output frame shorter than its offset");
      if (handlers_.on_output) handlers_.on_output(tagged->first, tagged->second);
      return {};
    }
    case FrameType::State:
      return handle_state(frame.payload);
    default:
      return link_error("frame type not accepted from a ptyhost");
  }
}

Status PtyhostLink::handle_control(std::string_view payload) {
  Json doc = parse_object(payload);
  if (doc.is_null()) return link_error("control frame is not a JSON object");
  auto op = doc.find("op");
  if (op == doc.end() || !op->is_string()) return link_error("control frame without op");
  if (*op == kOpReply) return handle_reply(doc);
  if (*op != kOpEvent) return link_error("unexpected op '" + op->get<std::string>() + "'");
  auto event = protocol::decode<wire::Event>(doc);
  if (!event.ok()) return link_error("event: " + event.error().message);
  if (handlers_.on_event) handlers_.on_event(*event);
  return {};
}

Status PtyhostLink::handle_reply(const Json& doc) {
  auto reply = protocol::decode<wire::Reply>(doc);
  if (!reply.ok()) return link_error("reply: " + reply.error().message);
  auto it = pending_.find(reply->rid);
  if (it == pending_.end()) return {};  // we gave up on it (timeout)
  Pending pending = std::move(it->second);
  pending_.erase(it);
  if (pending.timer) pending.timer->cancel();
  if (reply->ok) {
    pending.done(std::move(reply->result), std::move(pending.state));
    return {};
  }
  const wire::WireError failure = reply->error.value_or(wire::WireError{"INTERNAL", "no error"});
  Error error{error_code_from_wire(failure.code).value_or(ErrorCode::Internal), failure.message,
              failure.details.is_object() ? failure.details : Json::object()};
  pending.done(std::move(error), {});
  return {};
}

Status PtyhostLink::handle_state(std::string_view payload) {
  auto tagged = protocol::split_tagged(payload);
  if (!tagged) return link_error("state frame shorter than its rid");
  if (auto it = pending_.find(tagged->first); it != pending_.end())
    it->second.state.assign(tagged->second);
  return {};
}

// ---- outbound ------------------------------------------------------------

std::uint64_t PtyhostLink::add_pending(ReplyFn done, std::chrono::milliseconds timeout) {
  const std::uint64_t rid = next_rid_++;
  auto timer = std::make_shared<asio::steady_timer>(io_);
  timer->expires_after(timeout);
  timer->async_wait([weak = weak_from_this(), rid](const boost::system::error_code& ec) {
    auto self = weak.lock();
    if (ec || !self) return;
    auto it = self->pending_.find(rid);
    if (it == self->pending_.end()) return;
    ReplyFn fn = std::move(it->second.done);
    self->pending_.erase(it);
    Error e{ErrorCode::Timeout, "the ptyhost did not answer in time"};
    e.details = {{"written_bytes", nullptr}};
    fn(std::move(e), {});
  });
  pending_.emplace(rid, Pending{std::move(done), {}, std::move(timer)});
  return rid;
}

void PtyhostLink::request(std::string_view op, Json fields, ReplyFn done,
                          std::chrono::milliseconds timeout) {
  if (phase_ != Phase::Ready) {
    Error e{ErrorCode::PaneExited, "the pane's ptyhost is not connected"};
    e.details = {{"written_bytes", nullptr}};
    return done(std::move(e), {});
  }
  const std::uint64_t rid = add_pending(std::move(done), timeout);
  if (!fields.is_object()) fields = Json::object();
  fields["op"] = std::string(op);
  fields["rid"] = rid;
  send(protocol::encode_frame(FrameType::Control, fields.dump()), rid);
}

void PtyhostLink::input(std::string_view bytes, std::chrono::milliseconds budget, ReplyFn done) {
  if (phase_ != Phase::Ready) {
    Error e{ErrorCode::PaneExited, "the pane's ptyhost is not connected"};
    e.details = {{"written_bytes", 0}};
    return done(std::move(e), {});
  }
  // The ptyhost answers within the budget; a little slack for the trip.
  const auto timeout = budget + std::chrono::milliseconds(1000);
  const std::uint64_t rid = add_pending(std::move(done), timeout);
  const auto budget_ms = static_cast<std::uint32_t>(std::max<std::int64_t>(0, budget.count()));
  send(protocol::encode_input_frame(rid, budget_ms, bytes), rid);
}

void PtyhostLink::send(std::string frame, std::uint64_t rid) {
  if (queued_bytes_ + frame.size() > kLinkQueueCapBytes) {
    auto it = pending_.find(rid);
    if (it == pending_.end()) return;
    ReplyFn fn = std::move(it->second.done);
    pending_.erase(it);
    Error e{ErrorCode::RateLimited, "too much queued towards the pane's ptyhost"};
    e.details = {{"written_bytes", 0}};
    return fn(std::move(e), {});
  }
  queued_bytes_ += frame.size();
  queue_.push_back(std::move(frame));
  if (!writing_) write_more();
}

void PtyhostLink::write_more() {
  if (queue_.empty() || phase_ == Phase::Closed) return;
  writing_ = true;
  asio::async_write(socket_, asio::buffer(queue_.front()),
                    [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                      self->writing_ = false;
                      if (self->phase_ == Phase::Closed) return;
                      if (ec) {
                        self->peer_hung_up_ = true;
                        return self->close("write: " + ec.message());
                      }
                      self->queued_bytes_ -= self->queue_.front().size();
                      self->queue_.pop_front();
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
  for (auto& [rid, p] : pending) {
    if (p.timer) p.timer->cancel();
    Error e{ErrorCode::PaneExited, "the pane's ptyhost went away"};
    e.details = {{"written_bytes", nullptr}};
    p.done(std::move(e), {});
  }
  if (handlers_.on_closed) handlers_.on_closed(why);
}

}  // namespace signaltty::broker
