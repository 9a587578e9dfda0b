// broker/dbus_wire.hpp: the D-Bus wire format for the few messages the broker
// exchanges with the system bus (logind_watch.hpp): message headers, and
// bodies of the types b, u, s, o, g, h and a variant holding a b. Encodes
// little-endian; decodes either byte order.
// Runs in: broker (io thread), and the tests' fake bus peers.
// Never: reads a byte outside the message it was given, trusts a length,
// offset, count or signature from the peer without checking it, or decodes
// a message larger than kDbusMaxMessageBytes.
//
// Usage:
//   dbus::BodyWriter body;  body.put_string("shutdown");
//   dbus::Message call = dbus::method_call("org.freedesktop.login1", "/org/...",
//                                          "org.freedesktop.login1.Manager", "Inhibit");
//   call.signature = "ssss"; call.body = body.take();
//   std::string bytes = dbus::encode(call, serial);
//   SIGNALTTY_TRY(std::size_t total, dbus::frame_length(first_16_bytes));
//   SIGNALTTY_TRY(dbus::Message m, dbus::decode(whole_message));
//   dbus::BodyReader in(m);  SIGNALTTY_TRY(bool b, in.get_bool());
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker::dbus {

// The fixed part of every message: endianness, type, flags, version, body
// length, serial, header-field array length.
inline constexpr std::size_t kFixedHeaderBytes = 16;
// Our bound on one message (the spec allows 128 MiB): the messages we
// expect are tiny; a larger one is a protocol error.
inline constexpr std::size_t kDbusMaxMessageBytes = 64u << 10;
// Our bound on file descriptors carried by one message.
inline constexpr std::uint32_t kDbusMaxFdsPerMessage = 4;

enum class MessageType : std::uint8_t {
  MethodCall = 1,
  MethodReturn = 2,
  Error = 3,
  Signal = 4,
};

// Header flag: the sender expects no reply.
inline constexpr std::uint8_t kFlagNoReplyExpected = 0x1;

struct Message {
  MessageType type = MessageType::MethodCall;
  std::uint8_t flags = 0;
  std::uint32_t serial = 0;
  std::string path;
  std::string interface;
  std::string member;
  std::string error_name;
  std::string destination;
  std::string sender;
  std::string signature;  // of the body
  std::optional<std::uint32_t> reply_serial;
  std::uint32_t unix_fds = 0;  // how many fds travel with the message
  std::string body;
  bool big_endian = false;     // of `body`, as received
  std::vector<UniqueFd> fds;   // received with, or to send with, the message
};

Message method_call(std::string destination, std::string path, std::string interface,
                    std::string member);
Message signal(std::string path, std::string interface, std::string member);
Message method_return(const Message& call);
Message error_reply(const Message& call, std::string error_name);

// The wire bytes of `m` with `serial`; unix_fds is taken from m.fds.
std::string encode(const Message& m, std::uint32_t serial);

// From the first kFixedHeaderBytes bytes: the whole message's length, or
// an error (bad endianness or version, or past kDbusMaxMessageBytes).
Result<std::size_t> frame_length(std::string_view fixed_header);

// One whole message (exactly frame_length bytes); fds are attached by the
// caller.
Result<Message> decode(std::string_view bytes);

// Builds a body; alignment is relative to the body's start (the body
// itself starts 8-aligned).
class BodyWriter {
 public:
  void put_bool(bool v) { put_u32(v ? 1 : 0); }
  void put_u32(std::uint32_t v);
  void put_string(std::string_view s);     // s or o
  void put_signature(std::string_view s);  // g
  void put_unix_fd(std::uint32_t index) { put_u32(index); }  // h
  void put_variant_bool(bool v);           // v holding a b
  std::string take() { return std::move(out_); }

 private:
  void align(std::size_t to);
  std::string out_;
};

// Reads a received body, every read bounds-checked.
class BodyReader {
 public:
  explicit BodyReader(const Message& m) : body_(m.body), big_endian_(m.big_endian) {}
  // Reads `bytes` from `start`; alignment is relative to bytes' start.
  BodyReader(std::string_view bytes, bool big_endian, std::size_t start = 0)
      : body_(bytes), big_endian_(big_endian), pos_(start) {}

  Result<bool> get_bool();
  Result<std::uint32_t> get_u32();
  Result<std::string> get_string();      // s or o
  Result<std::string> get_signature();   // g
  Result<std::uint32_t> get_unix_fd();   // h: an index into Message::fds
  Result<bool> get_variant_bool();       // v that must hold a b
  Result<std::uint8_t> get_byte();           // y
  // Skips one value of a fixed-size or string-like basic type.
  Status skip_basic(char type);
  Status align(std::size_t to);
  std::size_t position() const { return pos_; }
  bool at_end() const { return pos_ == body_.size(); }

 private:
  Result<std::uint64_t> get_fixed(std::size_t size);
  Result<std::string> get_text(std::size_t length_bytes);

  std::string_view body_;
  bool big_endian_;
  std::size_t pos_ = 0;
};

}  // namespace signaltty::broker::dbus
