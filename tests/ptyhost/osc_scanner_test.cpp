// tests/ptyhost/osc_scanner_test.cpp: docs/rules.md "OSC / BEL scanner" and the
// notification sanitizer.
#include "ptyhost/osc_scanner.hpp"

#include <gtest/gtest.h>

#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::vector<OscEvent> scan(std::string_view bytes) {
  OscScanner scanner;
  return scanner.scan(bytes);
}

OscEvent title(std::string text) { return TitleEvent{std::move(text)}; }
OscEvent note(NotificationSource source, std::optional<std::string> t, std::string body) {
  return NotificationEvent{source, std::move(t), std::move(body)};
}

TEST(OscScanner, TitlesFromOsc0And1And2) {
  EXPECT_EQ(scan("\x1b]0;zero\x07\x1b]1;one\x07\x1b]2;two\x1b\\"),
            (std::vector<OscEvent>{title("zero"), title("one"), title("two")}));
}

TEST(OscScanner, EverySplitPointGivesTheSameEvents) {
  const std::string stream = "a\x07" "b\x1b]2;héllo\x1b\\c\x1b]9;done\x07\x1b]777;notify;T;B\x07";
  const std::vector<OscEvent> whole = scan(stream);
  ASSERT_EQ(whole.size(), 4u);
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    OscScanner scanner;
    std::vector<OscEvent> events = scanner.scan(std::string_view(stream).substr(0, cut));
    for (OscEvent& e : scanner.scan(std::string_view(stream).substr(cut))) events.push_back(e);
    EXPECT_EQ(events, whole) << "cut at " << cut;
  }
}

TEST(OscScanner, BelOutsideAnOscIsABellAndInsideItIsNot) {
  EXPECT_EQ(scan("\x07x\x1b]2;t\x07y\x07"),
            (std::vector<OscEvent>{BellEvent{}, title("t"), BellEvent{}}));
}

TEST(OscScanner, NewOscAbortsAnUnterminatedOne) {
  EXPECT_EQ(scan("\x1b]2;lost\x1b]2;kept\x07"), (std::vector<OscEvent>{title("kept")}));
}

TEST(OscScanner, OtherEscapeOrCancelAbortsAnOsc) {
  EXPECT_EQ(scan("\x1b]2;lost\x1b[0m\x07"), (std::vector<OscEvent>{BellEvent{}}));
  EXPECT_EQ(scan("\x1b]2;lost\x18\x07"), (std::vector<OscEvent>{BellEvent{}}));
}

TEST(OscScanner, ProgressIsConsumedNotNotified) {
  EXPECT_EQ(scan("\x1b]9;4;1;50\x07\x1b]9;4\x07"), std::vector<OscEvent>{});
}

TEST(OscScanner, Osc9IsANotificationBody) {
  EXPECT_EQ(scan("\x1b]9;build finished\x07"),
            (std::vector<OscEvent>{note(NotificationSource::Osc9, std::nullopt, "build finished")}));
}

TEST(OscScanner, KittyPartIsMetadataOrTitle) {
  EXPECT_EQ(scan("\x1b]99;i=1:d=0;body one\x07\x1b]99;Title;body two\x07"),
            (std::vector<OscEvent>{note(NotificationSource::Osc99, std::nullopt, "body one"),
                                   note(NotificationSource::Osc99, "Title", "body two")}));
  EXPECT_EQ(scan("\x1b]99;;body\x07"),
            (std::vector<OscEvent>{note(NotificationSource::Osc99, std::nullopt, "body")}));
  EXPECT_EQ(scan("\x1b]99;only\x07"), std::vector<OscEvent>{});
}

TEST(OscScanner, Osc777OnlyForNotifyWithTitleAndBody) {
  EXPECT_EQ(scan("\x1b]777;notify;Agent;needs input\x07"),
            (std::vector<OscEvent>{note(NotificationSource::Osc777, "Agent", "needs input")}));
  EXPECT_EQ(scan("\x1b]777;notify;only two\x07\x1b]777;other;a;b\x07"), std::vector<OscEvent>{});
}

TEST(OscScanner, EmptyTextsAndPayloadsWithoutSemicolonAreIgnored) {
  EXPECT_EQ(scan("\x1b]2;\x07\x1b]9;\x07\x1b]2\x07\x1b]52;c;abc\x07"), std::vector<OscEvent>{});
  EXPECT_EQ(scan("\x1b]9;\x01\x02\x07"), std::vector<OscEvent>{});
}

TEST(OscScanner, UnterminatedRunLongerThanTheCarryIsDropped) {
  OscScanner scanner;
  EXPECT_TRUE(scanner.scan("\x1b]2;" + std::string(limits::kOscCarryMaxBytes, 'x')).empty());
  EXPECT_EQ(scanner.scan("tail\x07\x07\x1b]2;next\x07"),
            (std::vector<OscEvent>{BellEvent{}, title("next")}));
}

TEST(OscScanner, PayloadJustUnderTheCarryIsKept) {
  const std::string body(limits::kOscCarryMaxBytes - 2, 'b');
  OscScanner scanner;
  EXPECT_TRUE(scanner.scan("\x1b]9;" + body.substr(0, 100)).empty());
  const auto events = scanner.scan(body.substr(100) + "\x07");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(std::get<NotificationEvent>(events[0]).body.size(), limits::kNotificationBodyMaxChars);
}

TEST(OscScanner, SanitizerStripsControlsAndCutsAtCodePoints) {
  EXPECT_EQ(sanitize_text("a\x01" "b\tc\nd\x7f" "e\xc2\x9b" "f", 100), "ab\tc\nde" "f");
  EXPECT_EQ(sanitize_text("\xff" "ok\xe4\xb8", 100), "\xef\xbf\xbd" "ok\xef\xbf\xbd");  // one per maximal subpart
  EXPECT_EQ(sanitize_text("世界世界", 3), "世界世");
}

TEST(OscScanner, TitleCutAt200AndBodyAt2000CodePoints) {
  std::string long_title;
  for (int i = 0; i < 300; ++i) long_title += "é";
  const auto events = scan("\x1b]2;" + long_title + "\x07\x1b]9;" + std::string(2500, 'b') + "\x07");
  ASSERT_EQ(events.size(), 2u);
  const std::string& t = std::get<TitleEvent>(events[0]).text;
  EXPECT_EQ(t.size(), 200u * 2);
  EXPECT_EQ(std::get<NotificationEvent>(events[1]).body.size(), 2000u);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost
