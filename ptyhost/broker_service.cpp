// ptyhost/broker_service.cpp: the handshake, the dispatch table, frame I/O
// and the bounded outbound queue of one broker connection.
// Runs in: ptyhost, on the event loop's thread.
#include "ptyhost/broker_service.hpp"

#include <boost/asio/write.hpp>

#include "common/log.hpp"
#include "common/protocol/json_parse.hpp"
#include "ptyhost/pane_host.hpp"

namespace signaltty::ptyhost {
namespace {

namespace wire = protocol::ptyhost;
using protocol::FrameType;
using protocol::Json;

// Socket bytes taken per read.
constexpr std::size_t kSocketReadBytes = 64u << 10;
// Frames handed to one gathered write.
constexpr std::size_t kMaxGatherFrames = 64;

// What every request carries besides its own fields.
struct RequestHead {
  std::string op;
  std::uint64_t rid = 0;
  static constexpr auto fields() {
    return std::tuple{protocol::req("op", &RequestHead::op), protocol::req("rid", &RequestHead::rid)};
  }
};

std::string dump(const Json& doc) {
  // PTY-derived text (titles, screen text) may hold invalid UTF-8.
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Error protocol_error(std::string message) {
  return Error{ErrorCode::BadProtocol, std::move(message)};
}

}  // namespace

// What a broker may ask once the handshake is done: one entry per op of
// ptyhost_wire.hpp, each a PaneHost call. A "hello" here, or anything
// before the HelloAck, is a protocol error and drops the broker.
const std::array<BrokerService::Op, wire::PtyhostOps::size> BrokerService::kOps{{
    {wire::OpSpawn::name, &BrokerService::answer<wire::OpSpawn, &PaneHost::spawn>},
    {wire::OpResize::name, &BrokerService::answer<wire::OpResize, &PaneHost::resize>},
    {wire::OpSignal::name, &BrokerService::answer<wire::OpSignal, &PaneHost::signal>},
    {wire::OpRead::name, &BrokerService::answer<wire::OpRead, &PaneHost::read>},
    {wire::OpStream::name, &BrokerService::op_stream},
    {wire::OpClear::name, &BrokerService::answer<wire::OpClear, &PaneHost::clear>},
    {wire::OpClose::name, &BrokerService::answer<wire::OpClose, &PaneHost::close>},
    {wire::OpCollectExit::name,
     &BrokerService::answer<wire::OpCollectExit, &PaneHost::collect_exit>},
    {wire::OpSetMeta::name, &BrokerService::answer<wire::OpSetMeta, &PaneHost::set_meta>},
    {wire::OpSerialize::name, &BrokerService::op_serialize},
    {wire::OpScreen::name, &BrokerService::answer<wire::OpScreen, &PaneHost::screen>},
}};

BrokerService::BrokerService(Socket socket, PaneHost& host)
    : socket_(std::move(socket)),
      host_(host),
      read_buffer_(kSocketReadBytes) {}

void BrokerService::start() {
  send_control(protocol::encode(host_.hello()));
  read_more();
}

void BrokerService::close(std::string_view why) {
  if (phase_ == Phase::Closed) return;
  const auto self = shared_from_this();  // the host may drop its last reference
  phase_ = Phase::Closed;
  log::info("broker connection closed: " + std::string(why));
  boost::system::error_code ignored;
  socket_.close(ignored);
  queue_.clear();
  host_.broker_closed(this);
}

// ---- inbound ----------------------------------------------------------

void BrokerService::read_more() {
  socket_.async_read_some(
      boost::asio::buffer(read_buffer_.data(), kSocketReadBytes),
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
        self->on_read(ec, n);
      });
}

void BrokerService::on_read(const boost::system::error_code& ec, std::size_t n) {
  if (phase_ == Phase::Closed) return;
  if (ec) return close(ec == boost::asio::error::eof ? "end of stream" : ec.message());
  read_buffer_.mark_used();
  host_.note_busy();
  reader_.append(std::string_view(read_buffer_.data(), n));
  for (;;) {
    auto next = reader_.next();
    if (!next.ok()) return close(next.error().message);
    if (!next->has_value()) break;
    if (Status handled = handle_frame(**next); !handled.ok())
      return close(handled.error().message);
    if (phase_ == Phase::Closed) return;
  }
  read_more();
}

Status BrokerService::handle_frame(const protocol::Frame& frame) {
  switch (frame.type) {
    case FrameType::Control: return handle_control(frame.payload);
    case FrameType::Input: return handle_input(frame.payload);
    default: return protocol_error("frame type not accepted from a broker");
  }
}

Status BrokerService::handle_control(std::string_view payload) {
  auto doc = protocol::parse_json(payload);
  if (!doc.ok()) return protocol_error("control frame: " + doc.error().message);
  if (phase_ == Phase::AwaitingAck) return handle_hello_ack(*doc);
  return dispatch(*doc);
}

Status BrokerService::handle_hello_ack(const Json& doc) {
  auto ack = protocol::decode<wire::HelloAck>(doc);
  if (!ack.ok()) return protocol_error("expected hello: " + ack.error().message);
  if (ack->op != "hello") return protocol_error("expected hello, got " + ack->op);
  if (ack->version < wire::kPtyhostWireMinVersion)
    return protocol_error("broker speaks version " + std::to_string(ack->version) +
                          ", the oldest we speak is " +
                          std::to_string(wire::kPtyhostWireMinVersion));
  features_ = ack->features & wire::kFeaturesSupported;
  phase_ = Phase::Ready;
  host_.broker_ready(this);
  return {};
}

Status BrokerService::dispatch(const Json& doc) {
  auto head = protocol::decode<RequestHead>(doc);
  if (!head.ok()) return protocol_error("request without op/rid: " + head.error().message);
  for (const Op& op : kOps) {
    if (op.name != head->op) continue;
    (this->*op.handler)(head->rid, doc);
    return {};
  }
  if (head->op == "hello") return protocol_error("second hello");
  send_reply(head->rid, Error{ErrorCode::UnknownMethod, "unknown op '" + head->op + "'"});
  return {};
}

Status BrokerService::handle_input(std::string_view payload) {
  if (phase_ != Phase::Ready) return protocol_error("input before hello");
  auto input = protocol::split_input(payload);
  if (!input) return protocol_error("input frame shorter than its header");
  host_.input(input->rid, std::chrono::milliseconds(input->budget_ms), std::string(input->bytes));
  return {};
}

// ---- handlers ---------------------------------------------------------

// Requests without fields have nothing to decode past the head.
template <class Request>
Result<Request> decode_request(const Json& doc) {
  if constexpr (std::tuple_size_v<decltype(Request::fields())> == 0) {
    (void)doc;
    return Request{};
  } else {
    return protocol::decode<Request>(doc);
  }
}

template <class WireOp>
void BrokerService::send_typed_reply(std::uint64_t rid, Result<typename WireOp::Reply> outcome) {
  if (!outcome.ok()) return send_reply(rid, std::move(outcome).error());
  send_reply(rid, protocol::encode(*outcome));
}

template <class WireOp, Result<typename WireOp::Reply> (PaneHost::*Call)(const typename WireOp::Request&)>
void BrokerService::answer(std::uint64_t rid, const Json& doc) {
  auto request = decode_request<typename WireOp::Request>(doc);
  if (!request.ok()) return send_reply(rid, std::move(request).error());
  send_typed_reply<WireOp>(rid, (host_.*Call)(*request));
}

// The attach point: State frame (snapshot), then the Reply, then Output
// frames from that offset on, all in one turn of the single-threaded loop.
void BrokerService::op_stream(std::uint64_t rid, const Json& doc) {
  auto request = protocol::decode<wire::StreamRequest>(doc);
  if (!request.ok()) return send_reply(rid, std::move(request).error());
  const StreamStart at = host_.stream_position();
  if (request->snapshot) send_state(rid, host_.snapshot_vt());
  streaming_ = request->on;
  send_typed_reply<wire::OpStream>(rid, wire::StreamReply{at.output_offset, at.size.cols, at.size.rows});
}

void BrokerService::op_serialize(std::uint64_t rid, const Json& doc) {
  (void)doc;  // no fields besides op and rid
  if (!(features_ & wire::kFeatureSerializeState))
    return send_reply(rid, bad_params("serialize: feature not negotiated"));
  const StreamStart at = host_.stream_position();
  std::string blob = host_.serialize();
  const std::size_t size = blob.size();
  send_state(rid, blob);
  send_typed_reply<wire::OpSerialize>(rid, wire::SerializeReply{size, at.output_offset});
}

// ---- outbound ---------------------------------------------------------

void BrokerService::send_control(const Json& doc) {
  enqueue(protocol::encode_frame(FrameType::Control, dump(doc)));
}

void BrokerService::send_state(std::uint64_t rid, std::string_view bytes) {
  enqueue(protocol::encode_tagged_frame(FrameType::State, rid, bytes));
}

void BrokerService::send_reply(std::uint64_t rid, Result<Json> outcome) {
  wire::Reply reply;
  reply.rid = rid;
  if (outcome.ok()) {
    reply.result = std::move(outcome).value();
  } else {
    Error error = std::move(outcome).error();
    reply.ok = false;
    reply.error = wire::WireError{std::string(wire_name(error.code)), std::move(error.message),
                                  std::move(error.details)};
  }
  send_control(protocol::encode(reply));
}

void BrokerService::send_event(const wire::Event& event) {
  send_control(protocol::encode(event));
}

void BrokerService::send_output(std::uint64_t end_offset, std::string_view bytes) {
  if (!streaming()) return;
  enqueue(protocol::encode_tagged_frame(FrameType::Output, end_offset, bytes));
}

void BrokerService::enqueue(std::string frame) {
  if (phase_ == Phase::Closed) return;
  if (!queue_.push(std::move(frame))) return close("outbound backlog past the hard cap");
  if (inflight_.empty()) write_more();
}

void BrokerService::write_more() {
  inflight_ = queue_.take_batch(kMaxGatherFrames);
  std::vector<boost::asio::const_buffer> buffers;
  buffers.reserve(inflight_.size());
  for (const auto& frame : inflight_) buffers.emplace_back(boost::asio::buffer(frame));
  boost::asio::async_write(
      socket_, buffers,
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
        self->on_written(ec, n);
      });
}

void BrokerService::on_written(const boost::system::error_code& ec, std::size_t) {
  if (phase_ == Phase::Closed) return;
  if (ec) return close("write: " + ec.message());
  inflight_.clear();
  queue_.finish_batch();
  if (!queue_.empty()) {
    write_more();
    return host_.broker_took_output();
  }
  host_.broker_took_output();
  host_.broker_drained();
}

}  // namespace signaltty::ptyhost
