// tests/common/byte_order_test.cpp: little-endian integers in byte strings.
#include "common/byte_order.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(ByteOrder, AppendsLeastSignificantByteFirst) {
  std::string out = "x";
  append_le<std::uint32_t>(out, 0x11223344u);
  append_le<std::uint64_t>(out, 0x8000000000000001u);
  EXPECT_EQ(out, std::string("x\x44\x33\x22\x11\x01\0\0\0\0\0\0\x80", 13));
}

TEST(ByteOrder, ReadsBackWhatItAppendedIgnoringTrailingBytes) {
  std::string out;
  append_le<std::uint64_t>(out, 0xfedcba9876543210u);
  out += "tail";
  EXPECT_EQ(read_le<std::uint64_t>(out), 0xfedcba9876543210u);
  EXPECT_EQ(read_le<std::uint32_t>(out), 0x76543210u);
  EXPECT_EQ(read_le<std::uint32_t>(std::string("\xff\xff\xff\xff", 4)), 0xffffffffu);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
