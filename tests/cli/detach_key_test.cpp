// tests/cli/detach_key_test.cpp: the detach key of the attach client:
// key spellings, and the prefix state machine over keyboard bytes.
#include "cli/detach_key.hpp"

#include <gtest/gtest.h>

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr char kPrefix = '\x1c';  // Ctrl-backslash

TEST(DetachKeySpec, AcceptsTheCommonSpellingsOfAControlKey) {
  for (const char* spec : {"C-\\", "c-\\", "^\\", "ctrl-\\", "Ctrl-\\"})
    EXPECT_EQ(*parse_detach_key(spec), DetachKey{0x1c}) << spec;
  EXPECT_EQ(*parse_detach_key("C-a"), DetachKey{0x01});
  EXPECT_EQ(*parse_detach_key("^A"), DetachKey{0x01});
  EXPECT_EQ(*parse_detach_key("ctrl-b"), DetachKey{0x02});
  EXPECT_EQ(*parse_detach_key("C-]"), DetachKey{0x1d});
  EXPECT_EQ(*parse_detach_key("C-@"), DetachKey{0x00});
  EXPECT_EQ(*parse_detach_key("^?"), DetachKey{0x7f});
}

TEST(DetachKeySpec, NoneDisablesDetaching) {
  auto key = parse_detach_key("none");
  ASSERT_TRUE(key.ok());
  EXPECT_FALSE(key->has_value());
}

TEST(DetachKeySpec, RejectsWhatIsNotAControlKey) {
  for (const char* spec : {"", "a", "C-", "C-ab", "M-a", "C-1", "^", "ctrl-\\x"}) {
    auto key = parse_detach_key(spec);
    ASSERT_FALSE(key.ok()) << spec;
    EXPECT_EQ(key.error().code, ErrorCode::BadParams);
  }
}

TEST(DetachKeySpec, DescribesTheKeyTheWayHelpNamesIt) {
  EXPECT_EQ(describe_detach_key(kDefaultDetachKey), "Ctrl-\\");
  EXPECT_EQ(describe_detach_key(DetachKey{0x01}), "Ctrl-A");
  EXPECT_EQ(describe_detach_key(std::nullopt), "none");
}

TEST(DetachKeyFilter, OrdinaryBytesPassThroughUnchanged) {
  DetachKeyFilter filter(kDefaultDetachKey);
  auto step = filter.feed("ls -l\r");
  EXPECT_EQ(step.forward, "ls -l\r");
  EXPECT_FALSE(step.detach);
}

TEST(DetachKeyFilter, PrefixThenDDetachesAndForwardsWhatCameBefore) {
  DetachKeyFilter filter(kDefaultDetachKey);
  auto step = filter.feed(std::string("abc") + kPrefix + "d" + "ignored");
  EXPECT_EQ(step.forward, "abc");
  EXPECT_TRUE(step.detach);
}

TEST(DetachKeyFilter, PrefixTwiceSendsOneLiteralPrefix) {
  DetachKeyFilter filter(kDefaultDetachKey);
  auto step = filter.feed(std::string(2, kPrefix));
  EXPECT_EQ(step.forward, std::string(1, kPrefix));
  EXPECT_FALSE(step.detach);
  EXPECT_FALSE(filter.holding_prefix());
}

TEST(DetachKeyFilter, PrefixThenAnotherKeySendsBoth) {
  DetachKeyFilter filter(kDefaultDetachKey);
  auto step = filter.feed(std::string(1, kPrefix) + "x");
  EXPECT_EQ(step.forward, std::string(1, kPrefix) + "x");
  EXPECT_FALSE(step.detach);
}

TEST(DetachKeyFilter, APrefixAtTheEndOfAReadWaitsForTheNextByte) {
  DetachKeyFilter filter(kDefaultDetachKey);
  auto first = filter.feed(std::string("x") + kPrefix);
  EXPECT_EQ(first.forward, "x");
  EXPECT_TRUE(filter.holding_prefix());
  auto second = filter.feed("d");
  EXPECT_EQ(second.forward, "");
  EXPECT_TRUE(second.detach);
}

TEST(DetachKeyFilter, UppercaseDDoesNotDetach) {
  DetachKeyFilter filter(kDefaultDetachKey);
  auto step = filter.feed(std::string(1, kPrefix) + "D");
  EXPECT_FALSE(step.detach);
  EXPECT_EQ(step.forward, std::string(1, kPrefix) + "D");
}

TEST(DetachKeyFilter, ACustomPrefixLeavesCtrlBackslashAlone) {
  DetachKeyFilter filter(DetachKey{0x01});
  auto passed = filter.feed(std::string(1, kPrefix) + "d");
  EXPECT_EQ(passed.forward, std::string(1, kPrefix) + "d");
  EXPECT_FALSE(passed.detach);
  EXPECT_TRUE(filter.feed("\x01" "d").detach);
}

TEST(DetachKeyFilter, WithoutAPrefixNothingDetaches) {
  DetachKeyFilter filter(std::nullopt);
  auto step = filter.feed(std::string(1, kPrefix) + "d");
  EXPECT_EQ(step.forward, std::string(1, kPrefix) + "d");
  EXPECT_FALSE(step.detach);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
