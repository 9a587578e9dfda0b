// tests/fuzz/fuzz_ptyhost_link.cpp: libFuzzer target for the broker's side
// of the broker⇄ptyhost link: arbitrary bytes from a (compromised) ptyhost
// go through the same frame reader and decoders the link uses (Hello first,
// then output, state, replies and events), every reply result through each
// op's typed reply, and what the supervisor would store through its checks.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp.
// Never: expects any frame to be accepted; it looks for exceptions, crashes,
// unbounded recursion and sanitizer reports.
//
// Input layout: the bytes a ptyhost writes to its socket, read in chunks
// whose sizes cycle through a few values (frames split across reads).
#include <array>
#include <cstdint>
#include <string_view>

#include "broker/ptyhost_link.hpp"
#include "broker/ptyhost_text.hpp"
#include "common/protocol/frame.hpp"
#include "common/protocol/json_parse.hpp"

namespace {

namespace protocol = signaltty::protocol;
namespace wire = signaltty::protocol::ptyhost;
namespace broker = signaltty::broker;

// The sizes of successive reads, cycled.
constexpr std::array<std::size_t, 4> kChunkSizes{7, 64, 1, 4096};

// Each op's reply decoded from one ok result; decoded replies dump cleanly.
struct DecodeAsEveryReply {
  const protocol::Json& result;
  template <class Op>
  void operator()() const {
    auto reply = protocol::decode<typename Op::Reply>(result);
    if (reply.ok()) (void)protocol::encode(*reply).dump(-1, ' ', false, protocol::Json::error_handler_t::replace);
  }
};

void take_hello(const protocol::Frame& frame) {
  auto hello = broker::decode_hello(frame, "");
  if (!hello.ok()) return;
  if (hello->exited) (void)broker::checked_exit(*hello->exited);
  auto pane = protocol::decode<protocol::Pane>(hello->meta);
  if (pane.ok()) (void)broker::checked_recovered_pane(std::move(pane).value(), hello->title);
}

void take_frame(const protocol::Frame& frame) {
  auto message = broker::decode_inbound(frame);
  if (!message.ok()) return;
  if (const auto* reply = std::get_if<wire::Reply>(&*message)) {
    protocol::for_each_type<wire::PtyhostOps>(DecodeAsEveryReply{reply->result});
    (void)protocol::decode<wire::InputReply>(reply->result);
  } else if (const auto* event = std::get_if<wire::Event>(&*message)) {
    (void)broker::notification_source(event->source);
    if (event->exit) (void)broker::checked_exit(*event->exit);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)protocol::parse_json(bytes);
  protocol::FrameReader reader;
  bool hello_seen = false;
  std::size_t at = 0;
  for (std::size_t turn = 0; at < bytes.size(); ++turn) {
    const std::size_t take = std::min(kChunkSizes[turn % kChunkSizes.size()], bytes.size() - at);
    reader.append(bytes.substr(at, take));
    at += take;
    for (;;) {
      auto next = reader.next();
      if (!next.ok()) return 0;  // the link drops the ptyhost here
      if (!next->has_value()) break;
      if (!hello_seen) {
        take_hello(**next);
        hello_seen = true;
      } else {
        take_frame(**next);
      }
    }
  }
  return 0;
}
