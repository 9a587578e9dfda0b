// common/protocol/frame.cpp: frame encode/decode. Runs in: broker, ptyhost.
#include "common/protocol/frame.hpp"

#include "common/byte_order.hpp"
#include "common/heap_trim.hpp"

namespace signaltty::protocol {
namespace {

constexpr std::size_t kLengthBytes = sizeof(std::uint32_t);
constexpr std::size_t kTagBytes = sizeof(std::uint64_t);
constexpr std::size_t kBudgetBytes = sizeof(std::uint32_t);
// Room a reader keeps once its frames are taken; beyond it, it is freed.
constexpr std::size_t kKeptBufferBytes = 256u << 10;

bool known_type(std::uint8_t t) { return t >= 1 && t <= 4; }

}  // namespace

std::string encode_frame(FrameType type, std::string_view payload) {
  std::string out;
  out.reserve(kFrameHeaderBytes + payload.size());
  append_le(out, static_cast<std::uint32_t>(payload.size() + 1));
  out.push_back(static_cast<char>(type));
  out.append(payload);
  return out;
}

std::string encode_tagged_frame(FrameType type, std::uint64_t tag, std::string_view bytes) {
  std::string out;
  out.reserve(kFrameHeaderBytes + kTagBytes + bytes.size());
  append_le(out, static_cast<std::uint32_t>(1 + kTagBytes + bytes.size()));
  out.push_back(static_cast<char>(type));
  append_le(out, tag);
  out.append(bytes);
  return out;
}

std::optional<std::pair<std::uint64_t, std::string_view>> split_tagged(std::string_view payload) {
  if (payload.size() < kTagBytes) return std::nullopt;
  return std::pair{read_le<std::uint64_t>(payload), payload.substr(kTagBytes)};
}

std::string encode_input_frame(std::uint64_t rid, std::uint32_t budget_ms, std::string_view bytes) {
  std::string body;
  body.reserve(kBudgetBytes + bytes.size());
  append_le(body, budget_ms);
  body.append(bytes);
  return encode_tagged_frame(FrameType::Input, rid, body);
}

std::optional<InputPayload> split_input(std::string_view payload) {
  auto tagged = split_tagged(payload);
  if (!tagged || tagged->second.size() < kBudgetBytes) return std::nullopt;
  return InputPayload{tagged->first, read_le<std::uint32_t>(tagged->second),
                      tagged->second.substr(kBudgetBytes)};
}

Result<std::optional<Frame>> FrameReader::next() {
  std::string_view avail(buffer_.data() + consumed_, buffer_.size() - consumed_);
  if (avail.size() < kFrameHeaderBytes) return std::optional<Frame>{};
  const std::uint64_t len = read_le<std::uint32_t>(avail);
  if (len == 0 || len > max_bytes_)
    return Error{ErrorCode::BadProtocol, "frame length " + std::to_string(len) + " outside 1.." +
                                             std::to_string(max_bytes_)};
  const auto type = static_cast<std::uint8_t>(avail[4]);
  if (!known_type(type))
    return Error{ErrorCode::BadProtocol, "unknown frame type " + std::to_string(type)};
  if (avail.size() < kLengthBytes + len) return std::optional<Frame>{};
  Frame f{static_cast<FrameType>(type), std::string(avail.substr(kFrameHeaderBytes, len - 1))};
  consumed_ += kLengthBytes + len;
  // Compact once the consumed prefix dominates, keeping appends amortised.
  if (consumed_ > buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
    // A large frame (a terminal's state) is gone: so is the room it took.
    shrink_when_small(buffer_, kKeptBufferBytes);
  }
  return std::optional<Frame>(std::move(f));
}

}  // namespace signaltty::protocol
