// tests/common/bounded_queue_test.cpp: the byte cap and both overflow
// policies of common/bounded_queue.hpp.
#include "common/bounded_queue.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(BoundedQueue, AcceptsUpToTheCapInclusive) {
  BoundedQueue<std::string> q(6, OverflowPolicy::kRefuseItem);
  EXPECT_TRUE(q.push("abc"));
  EXPECT_TRUE(q.push("def"));
  EXPECT_EQ(q.bytes(), 6u);
  EXPECT_FALSE(q.push("g"));
}

TEST(BoundedQueue, RefuseItemKeepsWhatIsQueuedAndAcceptsLaterItemsThatFit) {
  BoundedQueue<std::string> q(4, OverflowPolicy::kRefuseItem);
  EXPECT_TRUE(q.push("abc"));
  EXPECT_FALSE(q.push("de"));
  EXPECT_FALSE(q.overflowed());
  EXPECT_TRUE(q.push("d"));
  EXPECT_EQ(q.drain(), (std::deque<std::string>{"abc", "d"}));
  EXPECT_EQ(q.bytes(), 0u);
}

TEST(BoundedQueue, DropReaderDiscardsEverythingAndRefusesFromThenOn) {
  BoundedQueue<std::string> q(4, OverflowPolicy::kDropReader);
  EXPECT_TRUE(q.push("abc"));
  EXPECT_FALSE(q.push("de"));
  EXPECT_TRUE(q.overflowed());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.bytes(), 0u);
  EXPECT_EQ(q.dropped_bytes(), 3u) << "what it held when it dropped the reader";
  EXPECT_FALSE(q.push("d"));
  EXPECT_EQ(q.dropped_bytes(), 3u) << "later refusals add nothing";
}

TEST(BoundedQueue, DroppedBytesCountTheBatchInFlightAndStayZeroUntilADrop) {
  BoundedQueue<std::string> q(6, OverflowPolicy::kDropReader);
  ASSERT_TRUE(q.push("ab"));
  ASSERT_TRUE(q.push("cd"));
  EXPECT_EQ(q.take_batch(1), std::vector<std::string>{"ab"});
  EXPECT_EQ(q.dropped_bytes(), 0u);
  EXPECT_FALSE(q.push("efg"));
  EXPECT_EQ(q.dropped_bytes(), 4u);
  BoundedQueue<std::string> refusing(2, OverflowPolicy::kRefuseItem);
  EXPECT_FALSE(refusing.push("abc"));
  EXPECT_EQ(refusing.dropped_bytes(), 0u) << "kRefuseItem drops nothing it held";
}

TEST(BoundedQueue, BatchInFlightCountsAgainstTheCapUntilFinished) {
  BoundedQueue<std::string> q(6, OverflowPolicy::kRefuseItem);
  ASSERT_TRUE(q.push("ab"));
  ASSERT_TRUE(q.push("cd"));
  ASSERT_TRUE(q.push("ef"));
  EXPECT_EQ(q.take_batch(2), (std::vector<std::string>{"ab", "cd"}));
  EXPECT_EQ(q.bytes(), 6u);
  EXPECT_FALSE(q.push("g"));
  q.finish_batch();
  EXPECT_EQ(q.bytes(), 2u);
  EXPECT_TRUE(q.push("ghij"));
}

struct Sized {
  std::size_t n;
  std::size_t size() const { return n; }
};

TEST(BoundedQueue, ItemsCountBytesBySize) {
  BoundedQueue<Sized> q(10, OverflowPolicy::kRefuseItem);
  EXPECT_TRUE(q.push({7}));
  EXPECT_FALSE(q.push({4}));
  EXPECT_TRUE(q.push({3}));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
