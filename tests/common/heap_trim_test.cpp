// tests/common/heap_trim_test.cpp: shrink_when_small, the rule every read
// buffer uses to give back the room a large message took.
#include "common/heap_trim.hpp"

#include <gtest/gtest.h>

#include <string>

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr std::size_t kKept = 4096;

TEST(ShrinkWhenSmall, GivesBackRoomPastTheKeptSizeOnceTheContentFitsInHalfOfIt) {
  std::string buffer(4 * kKept, 'x');
  buffer.resize(kKept / 2);
  shrink_when_small(buffer, kKept);
  EXPECT_LE(buffer.capacity(), kKept) << "the large message's room went back";
  EXPECT_EQ(buffer, std::string(kKept / 2, 'x')) << "and the content stayed";
}

TEST(ShrinkWhenSmall, KeepsRoomWhileTheContentIsLargeOrTheRoomIsWithinTheKeptSize) {
  std::string large(4 * kKept, 'x');
  large.resize(kKept / 2 + 1);
  const std::size_t before = large.capacity();
  shrink_when_small(large, kKept);
  EXPECT_EQ(large.capacity(), before) << "more than half the kept size is still held";

  std::string steady;
  steady.reserve(kKept);
  const std::size_t reserved = steady.capacity();
  steady.assign(10, 'y');
  shrink_when_small(steady, kKept);
  EXPECT_EQ(steady.capacity(), reserved) << "room within the kept size stays for the next batch";
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty
