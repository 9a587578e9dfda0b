// tests/common/envelope_test.cpp: the hand-written pty.data line against
// the generic event encoder.
#include <gtest/gtest.h>

#include <string>

#include "common/base64.hpp"
#include "common/protocol/envelope.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::protocol {
namespace {
namespace SIGNALTTY_UNITY_ID {

Json generic(std::string_view pane_id, std::uint64_t seq, std::uint64_t offset,
             std::string_view bytes) {
  PtyDataPayload payload{std::string(pane_id), base64_encode(bytes), offset};
  return Json::parse(encode_event(ev::PtyData::name, seq, encode(payload)));
}

TEST(PtyDataLine, EqualsTheGenericEventAsJson) {
  const std::string pane = "pane_0123456789abcdef0123456789abcdef";
  for (std::string bytes : {std::string(), std::string("a"), std::string("ab"),
                            std::string("\x1b[31mred\x1b[0m\r\n\"\\\0\xff", 16)}) {
    const std::string line = encode_pty_data_line(pane, 42, std::uint64_t{1} << 40, bytes);
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
    EXPECT_EQ(Json::parse(line), generic(pane, 42, std::uint64_t{1} << 40, bytes)) << line;
  }
}

TEST(PtyDataLine, PaneIdNeedingEscapesTakesTheGenericPath) {
  const std::string odd = "pane\"with\\quotes\n";
  const std::string line = encode_pty_data_line(odd, 1, 3, "xyz");
  EXPECT_EQ(Json::parse(line), generic(odd, 1, 3, "xyz"));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::protocol
