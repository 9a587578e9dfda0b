// common/hex.hpp: bytes as lowercase hexadecimal, two digits per byte (ids,
// SHA-256 chain hashes, pane-token MACs, the D-Bus EXTERNAL auth line).
// Runs in: any process.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace signaltty {

inline void append_hex(std::string& out, const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out.reserve(out.size() + 2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xf]);
  }
}

inline std::string to_hex(const unsigned char* bytes, std::size_t n) {
  std::string out;
  append_hex(out, bytes, n);
  return out;
}

inline std::string to_hex(std::string_view bytes) {
  return to_hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

}  // namespace signaltty
