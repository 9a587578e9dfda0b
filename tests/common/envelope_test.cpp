// tests/common/envelope_test.cpp: the hand-written pty.data line against
// the generic event encoder.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <variant>

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

// RFC 4648, section 10, and appending after what the string holds.
TEST(Base64, EncodesTheRfcVectorsAndAppendsWithoutTouchingWhatWasThere) {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(plain), encoded) << plain;
    std::string line = "head:";
    base64_append(line, plain);
    EXPECT_EQ(line, "head:" + std::string(encoded)) << plain;
    EXPECT_EQ(base64_decode(encoded), std::string(plain)) << plain;
  }
  const std::string binary("\0\xff\x80\n\x1b", 5);
  std::string line = "x";
  base64_append(line, binary);
  EXPECT_EQ(base64_decode(std::string_view(line).substr(1)), binary);
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

// The envelope's optional token (docs/security.md, "Roles on the socket"):
// a string is taken as is, null or absent is none, anything else is
// BAD_PARAMS naming the field, answered with the request's id.
TEST(RequestToken, AStringIsTakenAndAnythingElseIsBadParams) {
  const auto taken = decode_request(
      R"({"protocol":"signaltty/1","id":1,"method":"server.status","params":{},"token":"stp1.x.y"})");
  ASSERT_TRUE(std::holds_alternative<Request>(taken));
  EXPECT_EQ(std::get<Request>(taken).token, "stp1.x.y");
  const auto none = decode_request(
      R"({"protocol":"signaltty/1","id":2,"method":"server.status","params":{},"token":null})");
  ASSERT_TRUE(std::holds_alternative<Request>(none));
  EXPECT_FALSE(std::get<Request>(none).token.has_value());
  for (const char* bad : {"1", "[\"stp1\"]", "{\"a\":1}", "true"}) {
    const std::string line =
        std::string(R"({"protocol":"signaltty/1","id":3,"method":"server.status","params":{},"token":)") +
        bad + "}";
    const auto refused = decode_request(line);
    ASSERT_TRUE(std::holds_alternative<RequestError>(refused)) << bad;
    const auto& err = std::get<RequestError>(refused);
    EXPECT_EQ(err.id, 3) << bad;
    EXPECT_EQ(err.error.code, ErrorCode::BadParams) << bad;
    EXPECT_EQ(err.error.details["field"], "token") << bad;
  }
  EXPECT_EQ(Json::parse(encode_request(4, "server.status", Json::object(), "t"))["token"], "t");
  EXPECT_FALSE(Json::parse(encode_request(4, "server.status", Json::object(), ""))
                   .contains("token"));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::protocol
