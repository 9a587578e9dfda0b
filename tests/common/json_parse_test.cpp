// tests/common/json_parse_test.cpp: peer JSON text nested past the bound is
// refused before a tree is built, and decoding a peer's line never throws.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "common/limits.hpp"
#include "common/protocol/envelope.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::protocol {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonParse, AcceptsNestingUpToTheBound) {
  auto doc = parse_json(nested(limits::kJsonMaxDepth));
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_TRUE(doc->is_array());
}

TEST(JsonParse, RefusesNestingPastTheBoundAsBadProtocol) {
  auto doc = parse_json(nested(limits::kJsonMaxDepth + 1));
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::BadProtocol);
  EXPECT_FALSE(parse_json(std::string(100000, '[')).ok());
  EXPECT_FALSE(parse_json(std::string(100000, '{')).ok());
}

TEST(JsonParse, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"a\":\"" + std::string(1000, '[') + "\\\"" + "\"}";
  auto doc = parse_json(text);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ((*doc)["a"].get<std::string>().size(), 1001u);
}

TEST(JsonParse, MalformedTextIsAnErrorNotAnException) {
  EXPECT_FALSE(parse_json("{").ok());
  EXPECT_FALSE(parse_json("").ok());
  EXPECT_FALSE(parse_json("\"\xff\"").ok());
}

TEST(ClientLine, DeeplyNestedRequestIsBadProtocol) {
  auto decoded = decode_request(std::string(100000, '['));
  ASSERT_TRUE(std::holds_alternative<RequestError>(decoded));
  EXPECT_EQ(std::get<RequestError>(decoded).error.code, ErrorCode::BadProtocol);
  const std::string deep_params = R"({"protocol":"signaltty/1","id":1,"method":"server.status","params":{"x":)" +
                                  nested(200) + "}}";
  EXPECT_TRUE(std::holds_alternative<RequestError>(decode_request(deep_params)));
}

TEST(ServerLine, WrongTypedMembersDecodeWithoutThrowing) {
  for (const char* line :
       {R"({"type":5,"event":[],"seq":"x","payload":1})", R"({"type":"event","event":3,"seq":-1})",
        R"({"id":{"a":1},"ok":"yes","result":3})", R"({"ok":false,"error":{"code":1,"message":[],"details":2}})",
        R"({"ok":false,"error":"bad"})"}) {
    EXPECT_NO_THROW({ auto r = decode_server_line(line); EXPECT_TRUE(r.ok()); }) << line;
  }
  EXPECT_FALSE(decode_server_line(std::string(100000, '[')).ok());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::protocol
