// tests/fuzz/fuzz_client_line.cpp: libFuzzer target for what a client
// writes to the broker's socket: the bytes go through the broker's own
// Connection (JSONL framing with its 16 MiB cap, over a real socket pair)
// in reads of varying size; every line it hands on goes through the
// envelope decoder, and the params of a request naming a declared method
// through that method's decoder, as the router dispatches them. A decoded
// value is encoded and decoded once more, and the answer lines are built.
// The same lines are also read as the client reads the broker's lines
// (decode_server_line), with a result decoded as every method's result and
// an event's payload as its declared payload.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp.
// Never: expects a line to be accepted; it looks for exceptions, crashes,
// unbounded recursion, sanitizer reports and a decoded value that does
// not survive its own encoding.
//
// Input layout: the bytes a client writes, sent in chunks whose sizes
// cycle through a few values, then the write side is shut (EOF).
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "broker/connection.hpp"
#include "common/log.hpp"
#include "common/protocol/envelope.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"

namespace {

namespace protocol = signaltty::protocol;
namespace broker = signaltty::broker;
namespace asio = boost::asio;
using protocol::Json;

// The sizes of successive writes, cycled.
constexpr std::array<std::size_t, 5> kChunkSizes{3, 200, 1, 17, 4096};

std::string dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The router's step for one method: decode its params; a value that
// decoded must decode again from its own encoding.
struct DecodeParams {
  const protocol::Request& request;
  bool& known;
  template <class M>
  void operator()() const {
    if (known || request.method != M::name) return;
    known = true;
    auto params = protocol::decode<typename M::Params>(request.params);
    if (!params.ok()) {
      (void)protocol::encode_error(request.id, params.error());
      return;
    }
    const Json encoded = protocol::encode(*params);
    if (!protocol::decode<typename M::Params>(encoded).ok()) std::abort();
    (void)dump(encoded);
  }
};

// The client's step for a response: its result as each method's result.
struct DecodeResult {
  const Json& result;
  template <class M>
  void operator()() const {
    auto decoded = protocol::decode<typename M::Result>(result);
    if (decoded.ok()) (void)dump(protocol::encode(*decoded));
  }
};

struct DecodeEvent {
  const protocol::EventMessage& event;
  template <class E>
  void operator()() const {
    if (event.event != E::name) return;
    auto payload = protocol::decode<typename E::PayloadType>(event.payload);
    if (payload.ok()) (void)protocol::encode_event(E::name, event.seq, protocol::encode(*payload));
  }
};

void take_line(std::string_view line) {
  auto decoded = protocol::decode_request(line);
  if (auto* failure = std::get_if<protocol::RequestError>(&decoded)) {
    (void)protocol::encode_error(failure->id, failure->error);
  } else {
    const auto& request = std::get<protocol::Request>(decoded);
    bool known = false;
    protocol::for_each_type<protocol::AllMethods>(DecodeParams{request, known});
    if (!known) (void)protocol::encode_ok(request.id, Json::object());
  }
  auto server_line = protocol::decode_server_line(line);
  if (!server_line.ok()) return;
  if (const auto* response = std::get_if<protocol::Response>(&*server_line)) {
    if (response->ok) protocol::for_each_type<protocol::AllMethods>(DecodeResult{response->result});
  } else {
    protocol::for_each_type<protocol::AllEvents>(
        DecodeEvent{std::get<protocol::EventMessage>(*server_line)});
  }
}

bool quiet = [] {
  signaltty::log::init("fuzz_client_line", signaltty::log::Level::Error);
  return true;
}();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0) std::abort();
  asio::io_context io;
  broker::Connection::Socket socket(io);
  socket.assign(asio::local::stream_protocol(), fds[0]);
  bool closed = false;
  auto connection = std::make_shared<broker::Connection>(
      std::move(socket), 1, std::size_t{1} << 20,
      std::make_shared<broker::OutputBudget>(std::size_t{4} << 20),
      [](const std::shared_ptr<broker::Connection>&, std::string_view line) { take_line(line); },
      [&closed](std::uint64_t) { closed = true; });
  connection->start();

  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::size_t at = 0;
  for (std::size_t turn = 0; at < bytes.size(); ++turn) {
    const std::size_t take = std::min(kChunkSizes[turn % kChunkSizes.size()], bytes.size() - at);
    const ssize_t n = ::write(fds[1], bytes.data() + at, take);
    if (n > 0) at += static_cast<std::size_t>(n);
    io.poll();  // the connection reads what is there (the socket never stays full)
    if (closed) break;
  }
  ::shutdown(fds[1], SHUT_WR);
  io.run();  // EOF: the connection closes, its close handler runs, no work is left
  if (!closed) std::abort();
  ::close(fds[1]);
  return 0;
}
