// tests/broker/ptyhost_text_test.cpp: what a ptyhost reports is held to the
// rules of client input before it is stored (docs/rules.md "Ptyhost strings"): notification
// text, exit statuses, and every string of a recovered pane's Hello.meta.
#include <gtest/gtest.h>

#include <string>

#include "broker/ptyhost_text.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace wire = protocol::ptyhost;

TEST(PtyhostText, ControlsAreStrippedExceptNewlineAndTab) {
  EXPECT_EQ(clean_text("a\x1b]0;x\x07" "b\tc\nd\x7f\xc2\x9b" "e", 100), "a]0;xb\tc\nde");
  EXPECT_EQ(clean_text("\xff\xfeok", 100), "ok");
  EXPECT_EQ(clean_text("h\xc3\xa9llo", 2), "h\xc3\xa9");
}

// What a lenient decoder lets through and strict JSON encoding refuses:
// overlong forms, surrogates, code points past U+10FFFF, bad leads.
TEST(PtyhostText, IllFormedUtf8IsDroppedNotPassedOn) {
  EXPECT_EQ(clean_text("a\xc0\xaf" "b", 100), "ab");                  // overlong '/'
  EXPECT_EQ(clean_text("a\xe0\x80\xaf" "b", 100), "ab");              // overlong, 3 bytes
  EXPECT_EQ(clean_text("a\xf0\x80\x80\xaf" "b", 100), "ab");          // overlong, 4 bytes
  EXPECT_EQ(clean_text("a\xed\xa0\x80" "b", 100), "ab");              // U+D800
  EXPECT_EQ(clean_text("a\xf4\x90\x80\x80" "b", 100), "ab");          // U+110000
  EXPECT_EQ(clean_text("a\xf5\x80\x80\x80" "b", 100), "ab");
  EXPECT_EQ(clean_text("\xed\x9f\xbf\xf4\x8f\xbf\xbf\xe0\xa0\x80", 100),
            "\xed\x9f\xbf\xf4\x8f\xbf\xbf\xe0\xa0\x80")
      << "U+D7FF, U+10FFFF and U+0800 are well-formed";
  std::string noise;
  std::uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) noise.push_back(static_cast<char>((x = x * 1103515245 + 12345) >> 16));
  const std::string clean = clean_text(noise, noise.size());
  EXPECT_NO_THROW((void)protocol::Json(clean).dump()) << "strict encoding accepts it";
}

TEST(PtyhostText, NotificationSourceIsOneOfTheOscSources) {
  EXPECT_EQ(notification_source("osc99"), "osc99");
  EXPECT_EQ(notification_source("osc777"), "osc777");
  EXPECT_EQ(notification_source("hook:claude:Stop"), "osc9");
  EXPECT_EQ(notification_source(std::string("osc9\x1b[2J")), "osc9");
  EXPECT_EQ(notification_source(std::nullopt), "osc9");
}

TEST(PtyhostText, ExitStatusOutOfRangeOrOddSignalNameIsNull) {
  wire::ExitStatus exit{protocol::Nullable<int>(70000), protocol::Nullable<std::string>("KILL\x1b[2J")};
  wire::ExitStatus checked = checked_exit(exit);
  EXPECT_FALSE(checked.code.has_value());
  EXPECT_FALSE(checked.signal.has_value());
  checked = checked_exit({protocol::Nullable<int>(3), protocol::Nullable<std::string>("TERM")});
  EXPECT_EQ(*checked.code, 3);
  EXPECT_EQ(*checked.signal, "TERM");
}

TEST(PtyhostText, RecoveredPaneRecordIsCheckedLikeClientInput) {
  protocol::Pane pane;
  pane.name = "Bad Name!";
  pane.title.assign("\x1b]0;evil\x07", 9);
  pane.title.append(400, 'x');  // by append: GCC 12 misreads string + string here
  pane.argv = std::vector<std::string>(100, "arg");
  pane.cwd = "relative/\x1b[2J";
  pane.agent.resume_argv = std::vector<std::string>{"claude", "--resume", "\x1b[31m"};
  pane.agent.config_env = std::map<std::string, std::string>{
      {"CLAUDE_CONFIG_DIR", "/home/u/.claude"}, {"LD_PRELOAD", "/tmp/x.so"}, {"CODEX_HOME", "rel"}};
  protocol::Pane checked = checked_recovered_pane(pane, "fallback");
  EXPECT_FALSE(checked.name.has_value());
  EXPECT_EQ(checked.title.find('\x1b'), std::string::npos);
  EXPECT_LE(checked.title.size(), limits::kTitleMaxChars);
  EXPECT_TRUE(checked.argv.empty());
  EXPECT_TRUE(checked.cwd.empty());
  EXPECT_FALSE(checked.agent.resume_argv.has_value());
  ASSERT_TRUE(checked.agent.config_env.has_value());
  EXPECT_EQ(*checked.agent.config_env,
            (std::map<std::string, std::string>{{"CLAUDE_CONFIG_DIR", "/home/u/.claude"}}));
}

TEST(PtyhostText, WellFormedRecoveredPaneRecordIsKept) {
  protocol::Pane pane;
  pane.name = "build";
  pane.title = "make all";
  pane.argv = {"make", "all"};
  pane.cwd = "/home/u/src";
  pane.agent.resume_argv = std::vector<std::string>{"claude", "--resume", "s1"};
  protocol::Pane checked = checked_recovered_pane(pane, "fallback");
  EXPECT_EQ(checked, pane);
  pane.title.clear();
  EXPECT_EQ(checked_recovered_pane(pane, "from hello").title, "from hello");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
