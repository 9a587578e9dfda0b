// tests/cli/terminal_text_test.cpp: control characters from the broker are
// escaped, printable text (UTF-8 included) is left alone, and JSON stays
// the same JSON.
#include "cli/terminal_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(Printable, EscapeSequencesPrintAsTheirBytes) {
  EXPECT_EQ(printable("\x1b]0;owned\x07title"), "\\x1b]0;owned\\x07title");
  EXPECT_EQ(printable("a\x1b[2Jb"), "a\\x1b[2Jb");
}

TEST(Printable, EveryC0ControlAndDeleteIsEscaped) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string escaped = printable(std::string(1, static_cast<char>(c)));
    EXPECT_EQ(escaped.size(), 4u) << c;
    EXPECT_EQ(escaped.rfind("\\x", 0), 0u) << c;
  }
  EXPECT_EQ(printable("\x7f"), "\\x7f");
}

TEST(Printable, C1ControlsAreEscapedAsCodePoints) {
  EXPECT_EQ(printable("\xc2\x9b" "31m"), "\\u009b31m");  // CSI
  EXPECT_EQ(printable("\xc2\x9d" "0;x"), "\\u009d0;x");   // OSC
  EXPECT_EQ(printable("\xc2\x80"), "\\u0080");
}

TEST(Printable, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(printable("\x9b" "2J"), "\\x9b2J");              // a raw 8-bit CSI
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\xe2\x82"), "\\xe2\\x82");           // cut short
}

TEST(Printable, PrintableUtf8IsKept) {
  EXPECT_EQ(printable("café ✓ 日本 🙂 \xc2\xa0"), "café ✓ 日本 🙂 \xc2\xa0");
  EXPECT_EQ(printable("plain ascii ~!"), "plain ascii ~!");
}

TEST(Printable, LineBreaksAreEscapedOnOneLineAndKeptInABlock) {
  EXPECT_EQ(printable("a\nb\tc\r"), "a\\x0ab\\x09c\\x0d");
  EXPECT_EQ(printable("a\nb\tc\r\x1b", LineBreaks::Keep), "a\nb\tc\\x0d\\x1b");
}

TEST(JsonForTerminal, C0ControlsAreAlreadyEscapedByTheEncoder) {
  const std::string dumped = nlohmann::json{{"t", "\x1b[2J\x07\n"}}.dump();
  EXPECT_EQ(dumped, R"({"t":"\u001b[2J\u0007\n"})");
  EXPECT_EQ(json_for_terminal(dumped), dumped);
}

TEST(JsonForTerminal, DeleteAndC1ControlsBecomeUnicodeEscapesOfTheSameString) {
  const nlohmann::json doc = {{"t", "a\x7f" "b\xc2\x9b" "c ✓"}};
  const std::string shown = json_for_terminal(doc.dump());
  EXPECT_EQ(shown, R"({"t":"a\u007fb\u009bc ✓"})");
  EXPECT_EQ(nlohmann::json::parse(shown), doc);
}

TEST(JsonForTerminal, WhitespaceControlsBetweenTokensBecomeSpaces) {
  const std::string received = "{\"a\":\t1,\r\"b\":2}";
  const std::string shown = json_for_terminal(received);
  EXPECT_EQ(shown, "{\"a\": 1, \"b\":2}");
  EXPECT_EQ(nlohmann::json::parse(shown), nlohmann::json::parse(received));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
