// common/byte_order.hpp: unsigned integers as little-endian bytes, the byte
// order of every binary field on the broker⇄ptyhost socket
// (docs/ptyhost-protocol.md).
// Runs in: broker, ptyhost, their tests. Never: reads past the bytes it is
// given; callers check the length first.
#pragma once

#include <climits>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>

namespace signaltty {

// Appends `value` to `out`, least significant byte first.
template <std::unsigned_integral T>
void append_le(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((value >> (CHAR_BIT * i)) & 0xffu));
}

// The value of the first sizeof(T) bytes of `bytes`, least significant
// first. `bytes` must hold at least that many.
template <std::unsigned_integral T>
T read_le(std::string_view bytes) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<T>(static_cast<unsigned char>(bytes[i]))
                            << (CHAR_BIT * i));
  return value;
}

}  // namespace signaltty
