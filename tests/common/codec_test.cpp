// tests/common/codec_test.cpp: the declaration machinery decodes, encodes and
// describes wire structs from one field list.
#include "common/protocol/codec.hpp"

#include <gtest/gtest.h>

#include "common/protocol/methods.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::protocol {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(Codec, MissingAndNullOptionalsMeanAbsent) {
  auto a = decode<WorkspaceCreateParams>(Json::object());
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->name.has_value());
  auto b = decode<WorkspaceCreateParams>(Json{{"name", nullptr}, {"cwd", nullptr}});
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->name.has_value());
}

TEST(Codec, MistypedFieldIsBadParamsNamingTheField) {
  auto r = decode<WorkspaceCreateParams>(Json{{"name", 42}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  EXPECT_NE(r.error().message.find("name"), std::string::npos);
  EXPECT_EQ(r.error().details["field"], "name");
}

TEST(Codec, RequiredFieldMissingIsBadParams) {
  auto r = decode<WorkspaceRenameParams>(Json{{"workspace_id", "ws"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().details["field"], "name");
}

TEST(Codec, UnknownFieldsAreIgnored) {
  auto r = decode<WorkspaceRenameParams>(Json{{"workspace_id", "a"}, {"name", "b"}, {"zzz", 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->name, "b");
}

TEST(Codec, IntegersOutOfRangeAreRefused) {
  struct P {
    int n = 0;
    static constexpr auto fields() { return std::tuple{req("n", &P::n)}; }
  };
  EXPECT_FALSE(decode<P>(Json{{"n", 1ULL << 40}}).ok());
  EXPECT_FALSE(decode<P>(Json{{"n", 1.5}}).ok());
  EXPECT_TRUE(decode<P>(Json{{"n", -3}}).ok());
}

TEST(Codec, AbsentOptionalsAreOmittedOnEncode) {
  Workspace ws;
  ws.id = "ws_1";
  Json j = encode(ws);
  EXPECT_FALSE(j.contains("active_tab_id"));
  EXPECT_TRUE(j.contains("auto_resume"));
  EXPECT_FALSE(j["git"].contains("root"));
  EXPECT_EQ(j["git"]["detached"], false);
}

TEST(Codec, NullableFieldsEncodeAsNull) {
  Pane pane;
  Json j = encode(pane);
  ASSERT_TRUE(j.contains("pid"));
  EXPECT_TRUE(j["pid"].is_null());
}

TEST(Codec, PresentNullSurvivesForOptionalNullable) {
  PaneLive live;
  live.state = "exited";
  live.code = Nullable<int>{};
  Json j = encode(live);
  ASSERT_TRUE(j.contains("code"));
  auto back = decode<PaneLive>(j);
  ASSERT_TRUE(back.ok());
  ASSERT_TRUE(back->code.has_value());
  EXPECT_FALSE(back->code->has_value());
}

TEST(Codec, SchemaListsRequiredFieldsAndPositionals) {
  Json s = schema_of<WorkspaceRenameParams>();
  EXPECT_EQ(s["type"], "object");
  EXPECT_EQ(s["required"], Json::array({"workspace_id", "name"}));
  EXPECT_EQ(s["properties"]["workspace_id"]["x-positional"], 0);
}

TEST(Layout, DecodesAndClampsRatios) {
  Json j = {{"type", "split"},
            {"dir", "right"},
            {"ratio", 0.99},
            {"first", {{"type", "pane"}, {"pane_id", "a"}}},
            {"second", {{"type", "pane"}, {"pane_id", "b"}}}};
  auto l = decode<Layout>(j);
  ASSERT_TRUE(l.ok());
  EXPECT_DOUBLE_EQ(l->ratio, 0.95);
  EXPECT_EQ(encode(*l)["first"]["pane_id"], "a");
}

TEST(Layout, RefusesUnknownTypeAndBadDirection) {
  EXPECT_FALSE(decode<Layout>(Json{{"type", "grid"}}).ok());
  Json j = {{"type", "split"}, {"dir", "left"}, {"first", {{"type", "pane"}, {"pane_id", "a"}}},
            {"second", {{"type", "pane"}, {"pane_id", "b"}}}};
  auto r = decode<Layout>(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().details["field"], "layout.dir");
}

TEST(Layout, RefusesTreesDeeperThanTheBound) {
  Json leaf = {{"type", "pane"}, {"pane_id", "x"}};
  Json j = leaf;
  for (int i = 0; i < 100; ++i)
    j = Json{{"type", "split"}, {"dir", "down"}, {"first", j}, {"second", leaf}};
  EXPECT_FALSE(decode<Layout>(j).ok());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::protocol
