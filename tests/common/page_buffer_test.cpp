// tests/common/page_buffer_test.cpp: PageBuffer's pages are resident only
// once read into, and give_back() returns them (common/page_buffer.hpp).
// Residency is read with mincore(2), page by page.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "common/page_buffer.hpp"

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::size_t resident_pages(const PageBuffer& buffer) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec(buffer.size() / page);
  EXPECT_EQ(::mincore(buffer.data(), buffer.size(), vec.data()), 0);
  std::size_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

TEST(PageBuffer, IsWholePagesNoneResidentUntilWritten) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  PageBuffer buffer(64 * 1024 + 1);
  EXPECT_EQ(buffer.size(), (64 * 1024 / page + 1) * page);
  EXPECT_EQ(resident_pages(buffer), 0u);
  std::memset(buffer.data() + page, 'x', 2 * page);
  EXPECT_EQ(resident_pages(buffer), 2u);
}

TEST(PageBuffer, GiveBackDropsTheTouchedPagesAndLeavesItUsable) {
  PageBuffer buffer(64 * 1024);
  std::memset(buffer.data(), 'x', buffer.size());
  buffer.mark_used();
  ASSERT_EQ(resident_pages(buffer), buffer.size() / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
  buffer.give_back();
  EXPECT_EQ(resident_pages(buffer), 0u);
  EXPECT_EQ(buffer.data()[0], 0);  // the contents went with the pages
  buffer.data()[10] = 'y';         // and the range is still mapped
  EXPECT_EQ(resident_pages(buffer), 1u);
}

TEST(PageBuffer, GiveBackWithoutAReadSinceIsANoOp) {
  PageBuffer buffer(16 * 1024);
  buffer.data()[0] = 'x';  // written but never marked used: nothing was read in
  buffer.give_back();
  EXPECT_EQ(buffer.data()[0], 'x');
  buffer.mark_used();
  buffer.give_back();
  EXPECT_EQ(buffer.data()[0], 0);
  buffer.data()[0] = 'z';
  buffer.give_back();  // no read since the last give-back
  EXPECT_EQ(buffer.data()[0], 'z');
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
