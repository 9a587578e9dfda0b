// common/protocol/frame.hpp: length-prefixed frames of the broker⇄ptyhost
// socket (docs/ptyhost-protocol.md): u32 little-endian length of what
// follows, one type byte, payload. The length is checked against the cap
// before a byte of payload is buffered.
// Runs in: broker, ptyhost. Never: trusts a length it has not checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::protocol {

enum class FrameType : std::uint8_t {
  Control = 1,  // one JSON document (ptyhost_wire.hpp)
  Output = 2,   // ptyhost→broker: u64 LE end output_offset, then raw PTY bytes
  Input = 3,    // broker→ptyhost: u64 LE request id, then raw bytes for the PTY
  State = 4,    // ptyhost→broker: u64 LE request id, then opaque bytes (snapshot/serialized state)
};

inline constexpr std::size_t kFrameHeaderBytes = 5;
// A frame body (type byte + payload) may not exceed this: room for a full
// serialized terminal (5000 lines of history at 500 columns) with margin.
inline constexpr std::size_t kFrameMaxBytes = 64u << 20;

struct Frame {
  FrameType type = FrameType::Control;
  std::string payload;
};

std::string encode_frame(FrameType type, std::string_view payload);
// Output/Input/State frames: u64 prefix + bytes.
std::string encode_tagged_frame(FrameType type, std::uint64_t tag, std::string_view bytes);
// Splits a tagged payload; nullopt when shorter than the tag.
std::optional<std::pair<std::uint64_t, std::string_view>> split_tagged(std::string_view payload);

// An Input frame's payload: u64 request id, u32 write budget in
// milliseconds, then the bytes for the PTY.
struct InputPayload {
  std::uint64_t rid = 0;
  std::uint32_t budget_ms = 0;
  std::string_view bytes;
};
std::string encode_input_frame(std::uint64_t rid, std::uint32_t budget_ms, std::string_view bytes);
// Splits an Input payload; nullopt when shorter than its header.
std::optional<InputPayload> split_input(std::string_view payload);

// Incremental reader: append whatever arrived, then take frames until none.
class FrameReader {
 public:
  explicit FrameReader(std::size_t max_bytes = kFrameMaxBytes) : max_bytes_(max_bytes) {}
  void append(std::string_view bytes) { buffer_.append(bytes); }
  // A complete frame, nothing yet (nullopt), or BAD_PROTOCOL for an
  // oversized or unknown frame (the peer is then disconnected).
  Result<std::optional<Frame>> next();
  std::size_t buffered() const { return buffer_.size() - consumed_; }
  // Bytes of room the reader holds: once a large frame is taken, no more
  // than a small reader's.
  std::size_t held() const { return buffer_.capacity(); }

 private:
  std::size_t max_bytes_;
  std::string buffer_;
  std::size_t consumed_ = 0;
};

}  // namespace signaltty::protocol
