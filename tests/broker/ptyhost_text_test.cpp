// tests/broker/ptyhost_text_test.cpp: what a ptyhost reports is held to the
// rules of client input before it is stored (security.md): notification
// text, exit statuses, and every string of a recovered pane's Hello.meta.
#include <gtest/gtest.h>

#include <string>

#include "broker/ptyhost_text.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

namespace wire = protocol::ptyhost;

TEST(PtyhostText, ControlsAreStrippedExceptNewlineAndTab) {
  EXPECT_EQ(clean_text("a\x1b]0;x\x07" "b\tc\nd\x7f\xc2\x9b" "e", 100), "a]0;xb\tc\nde");
  EXPECT_EQ(clean_text("\xff\xfeok", 100), "ok");
  EXPECT_EQ(clean_text("h\xc3\xa9llo", 2), "h\xc3\xa9");
}

TEST(PtyhostText, NotificationTitleAndBodyAreCleanedAndCut) {
  wire::Event event;
  event.kind = wire::EventKind::Notification;
  std::string title(500, 'T');
  title.append("\x1b[2J");
  std::string body(5000, 'b');
  body.append("\x1b[31m");
  event.title = title;
  event.body = body;
  auto message = notification_message(event);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(*message, std::string(limits::kTitleMaxChars, 'T') + ": " +
                          std::string(limits::kNotificationBodyMaxChars, 'b'));
  event.body = "\x1b\x07";
  EXPECT_FALSE(notification_message(event).has_value());
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
  pane.title = std::string("\x1b]0;evil\x07", 9) + std::string(400, 'x');
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

}  // namespace
}  // namespace signaltty::broker
