// tests/common/ids_test.cpp: entity ids (common/ids.hpp, docs/rules.md (Model) Ids):
// the one pane-id check every process uses for names of sockets and files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/ids.hpp"

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(PaneId, AFreshPaneIdIsOne) { EXPECT_TRUE(is_pane_id(new_id("pane"))); }

TEST(PaneId, OnlyPanePrefixAndThirtyTwoLowercaseHexDigits) {
  EXPECT_TRUE(is_pane_id("pane_0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(is_pane_id("pane_0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(is_pane_id("pane_0123456789abcdef0123456789abcde"));
  EXPECT_FALSE(is_pane_id("pane_0123456789abcdef0123456789abcdef0"));
  EXPECT_FALSE(is_pane_id("tab_0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(is_pane_id("xpane_0123456789abcdef0123456789abcde"));
  EXPECT_FALSE(is_pane_id("pane-0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(is_pane_id("pane_../../../../../../../../../../x"));
  EXPECT_FALSE(is_pane_id(""));
}

TEST(PaneId, PrefixedIdsOfOtherKinds) {
  EXPECT_TRUE(is_id_with_prefix(new_id("ws"), "ws"));
  EXPECT_FALSE(is_id_with_prefix(new_id("ws"), "w"));
  EXPECT_FALSE(is_id_with_prefix(new_id("ws"), ""));
}

TEST(FillRandom, FillsEveryByteAndNeverRepeats) {
  // A run of 64 zero bytes or two equal draws would mean the buffer was
  // not filled.
  std::vector<std::uint8_t> a(4096), b(4096);
  ASSERT_TRUE(fill_random(a));
  ASSERT_TRUE(fill_random(b));
  EXPECT_NE(a, b);
  const std::vector<std::uint8_t> zeros(64, 0);
  EXPECT_EQ(std::search(a.begin(), a.end(), zeros.begin(), zeros.end()), a.end());
  EXPECT_TRUE(fill_random(std::span<std::uint8_t>()));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
