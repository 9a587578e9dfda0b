// tests/common/ids_test.cpp: entity ids (common/ids.hpp, docs/rules.md (Model) Ids):
// the one pane-id check every process uses for names of sockets and files.
#include <gtest/gtest.h>

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

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
