// common/protocol/frame.cpp: frame encode/decode. Runs in: broker, ptyhost.
#include "common/protocol/frame.hpp"

#include <cstring>

namespace signaltty::protocol {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint64_t get_le(std::string_view s, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
  return v;
}
bool known_type(std::uint8_t t) { return t >= 1 && t <= 4; }

}  // namespace

std::string encode_frame(FrameType type, std::string_view payload) {
  std::string out;
  out.reserve(kFrameHeaderBytes + payload.size());
  put_u32(out, static_cast<std::uint32_t>(payload.size() + 1));
  out.push_back(static_cast<char>(type));
  out.append(payload);
  return out;
}

std::string encode_tagged_frame(FrameType type, std::uint64_t tag, std::string_view bytes) {
  std::string out;
  out.reserve(kFrameHeaderBytes + 8 + bytes.size());
  put_u32(out, static_cast<std::uint32_t>(bytes.size() + 9));
  out.push_back(static_cast<char>(type));
  put_u64(out, tag);
  out.append(bytes);
  return out;
}

std::optional<std::pair<std::uint64_t, std::string_view>> split_tagged(std::string_view payload) {
  if (payload.size() < 8) return std::nullopt;
  return std::pair{get_le(payload, 8), payload.substr(8)};
}

Result<std::optional<Frame>> FrameReader::next() {
  std::string_view avail(buffer_.data() + consumed_, buffer_.size() - consumed_);
  if (avail.size() < kFrameHeaderBytes) return std::optional<Frame>{};
  const std::uint64_t len = get_le(avail, 4);
  if (len == 0 || len > max_bytes_)
    return Error{ErrorCode::BadProtocol, "frame length " + std::to_string(len) + " outside 1.." +
                                             std::to_string(max_bytes_)};
  const auto type = static_cast<std::uint8_t>(avail[4]);
  if (!known_type(type))
    return Error{ErrorCode::BadProtocol, "unknown frame type " + std::to_string(type)};
  if (avail.size() < 4 + len) return std::optional<Frame>{};
  Frame f{static_cast<FrameType>(type), std::string(avail.substr(kFrameHeaderBytes, len - 1))};
  consumed_ += 4 + len;
  // Compact once the consumed prefix dominates, keeping appends amortised.
  if (consumed_ > buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  return std::optional<Frame>(std::move(f));
}

}  // namespace signaltty::protocol
