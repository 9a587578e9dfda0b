// tests/broker/handle_test.cpp: workspace handle slugs, pane name rules and
// display name sanitizing (docs/rules.md, "Ids, handles, names").
#include "broker/handle.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/limits.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

HandleTaken taken_from(std::set<std::string, std::less<>> taken) {
  return [taken = std::move(taken)](std::string_view h) { return taken.contains(h); };
}

TEST(HandleSlug, LowercasesAndTurnsEachPunctuationRunIntoOneDash) {
  EXPECT_EQ(handle_slug("My API!!"), "my-api");
  EXPECT_EQ(handle_slug("Front  end / Web"), "front-end-web");
}

TEST(HandleSlug, TrimsDashesAtBothEnds) { EXPECT_EQ(handle_slug("--Hello--World--"), "hello-world"); }

TEST(HandleSlug, NonAsciiLettersCountAsSeparators) {
  EXPECT_EQ(handle_slug("caf\xc3\xa9 bar"), "caf-bar");
}

TEST(HandleSlug, NeverContainsUnderscore) { EXPECT_EQ(handle_slug("my_repo"), "my-repo"); }

TEST(HandleSlug, NameWithoutLettersOrDigitsBecomesWs) {
  EXPECT_EQ(handle_slug(""), "ws");
  EXPECT_EQ(handle_slug("!!! ???"), "ws");
  EXPECT_EQ(handle_slug("\xe6\x97\xa5\xe6\x9c\xac"), "ws");
}

TEST(HandleSlug, CutsAtThirtyTwoCharacters) {
  EXPECT_EQ(handle_slug(std::string(40, 'a')), std::string(limits::kHandleMaxChars, 'a'));
}

TEST(HandleSlug, TrimsADashLeftAtTheCut) {
  // 31 letters, a separator, more letters: the cut at 32 ends on '-'.
  EXPECT_EQ(handle_slug(std::string(31, 'a') + " bcd"), std::string(31, 'a'));
}

TEST(MakeHandle, FreeSlugIsUsedAsIs) { EXPECT_EQ(make_handle("My API!!", taken_from({})), "my-api"); }

TEST(MakeHandle, CollisionsGetNumberedSuffixes) {
  EXPECT_EQ(make_handle("My API!!", taken_from({"my-api"})), "my-api-2");
  EXPECT_EQ(make_handle("my api", taken_from({"my-api", "my-api-2"})), "my-api-3");
}

TEST(MakeHandle, SuffixedHandleStillFitsTheLimitByCuttingTheBase) {
  const std::string base(limits::kHandleMaxChars, 'x');
  const std::string h = make_handle(base, taken_from({base}));
  EXPECT_EQ(h, std::string(limits::kHandleMaxChars - 2, 'x') + "-2");
  EXPECT_LE(h.size(), limits::kHandleMaxChars);
}

TEST(MakeHandle, CutBaseNeverEndsInDoubleDash) {
  const std::string base = std::string(29, 'a') + "-bc";  // 32 chars
  EXPECT_EQ(make_handle(base, taken_from({base})), std::string(29, 'a') + "-2");
}

TEST(PaneName, AcceptsLowercaseSlugs) {
  EXPECT_TRUE(validate_pane_name("worker").ok());
  EXPECT_TRUE(validate_pane_name("a").ok());
  EXPECT_TRUE(validate_pane_name("a1_b-c").ok());
  EXPECT_TRUE(validate_pane_name(std::string(limits::kPaneNameMaxBytes, 'z')).ok());
}

TEST(PaneName, RejectsAnythingElseAsBadParamsNamingTheField) {
  for (const std::string& bad : std::vector<std::string>{"", "Worker", "1abc", "-abc", "_abc", "a b", "a.b", "caf\xc3\xa9",
                                std::string(limits::kPaneNameMaxBytes + 1, 'z')}) {
    Status s = validate_pane_name(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().code, ErrorCode::BadParams);
    EXPECT_EQ(s.error().details["field"], "name");
  }
}

TEST(DisplayName, RemovesC0AndC1ControlCharacters) {
  auto r = sanitize_display_name("a\x1b[31mb\tc\xc2\x85" "d\x7f" "e", "name");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "a[31mbcde");
}

TEST(DisplayName, KeepsPrintableUnicode) {
  auto r = sanitize_display_name("caf\xc3\xa9 \xe2\x9c\x93", "name");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "caf\xc3\xa9 \xe2\x9c\x93");
}

TEST(DisplayName, CutsAtTwoHundredCodePointsWithoutSplittingOne) {
  auto ascii = sanitize_display_name(std::string(250, 'a'), "name");
  ASSERT_TRUE(ascii.ok());
  EXPECT_EQ(ascii->size(), limits::kTitleMaxChars);
  auto mixed = sanitize_display_name(std::string(199, 'a') + "\xc3\xa9" + std::string(20, 'b'), "name");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(*mixed, std::string(199, 'a') + "\xc3\xa9");
}

TEST(DisplayName, RawValueOverTheByteLimitIsBadParamsNamingTheField) {
  auto r = sanitize_display_name(std::string(limits::kNameMaxBytes + 1, 'a'), "title");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  EXPECT_EQ(r.error().details["field"], "title");
}

TEST(DisplayName, NameOfOnlyControlsIsBadParams) {
  EXPECT_FALSE(sanitize_display_name("\x01\x02", "name").ok());
  EXPECT_FALSE(sanitize_display_name("", "name").ok());
}

TEST(CodePoints, CountsCodePointsNotBytes) {
  EXPECT_EQ(code_point_count(""), 0u);
  EXPECT_EQ(code_point_count("abc"), 3u);
  EXPECT_EQ(code_point_count("\u00e9\u2026\U0001F600"), 3u);
}

TEST(NotificationText, KeepsNewlinesAndTabsAndDropsOtherControls) {
  EXPECT_EQ(sanitize_notification_text("a\tb\nc\x1b]0;x\x07" "d\u0085e", 100), "a\tb\nc]0;xde");
  EXPECT_EQ(sanitize_notification_text("\u00e9\u00e9\u00e9", 2), "\u00e9\u00e9");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
