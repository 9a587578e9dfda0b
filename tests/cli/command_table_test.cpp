// tests/cli/command_table_test.cpp: method names become command words and
// params schemas become typed parameter specs.
#include "cli/command_table.hpp"

#include <gtest/gtest.h>

#include "common/protocol/schema.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;

const ParamSpec* find_param(const CommandSpec& spec, std::string_view field) {
  for (const auto& p : spec.params)
    if (p.field == field) return &p;
  return nullptr;
}

const CommandSpec& spec_of(std::string_view method) {
  static const std::vector<CommandSpec> specs = command_specs(protocol::build_schema().methods);
  for (const auto& spec : specs)
    if (spec.method == method) return spec;
  throw std::runtime_error("no spec for " + std::string(method));
}

TEST(CommandWords, DottedNamesBecomeNestedWordsWithDashes) {
  EXPECT_EQ(command_words(protocol::WorkspaceCreate::name),
            (std::vector<std::string>{"workspace", "create"}));
  EXPECT_EQ(command_words(protocol::TabSetLayout::name),
            (std::vector<std::string>{"tab", "set-layout"}));
  EXPECT_EQ(command_words(protocol::Subscribe::name), (std::vector<std::string>{"subscribe"}));
}

TEST(CommandWords, FieldNamesAreDashed) {
  EXPECT_EQ(dashed("workspace_id"), "workspace-id");
  EXPECT_EQ(dashed("force"), "force");
}

TEST(ParamKind, FollowsTheFieldSchemaType) {
  EXPECT_EQ(param_kind({{"type", "string"}}), ParamKind::String);
  EXPECT_EQ(param_kind({{"type", "string"}, {"enum", {"right", "down"}}}), ParamKind::String);
  EXPECT_EQ(param_kind({{"type", "integer"}, {"minimum", 0}}), ParamKind::Integer);
  EXPECT_EQ(param_kind({{"type", "number"}}), ParamKind::Number);
  EXPECT_EQ(param_kind({{"type", "boolean"}}), ParamKind::Boolean);
  EXPECT_EQ(param_kind({{"type", "array"}, {"items", {{"type", "string"}}}}),
            ParamKind::StringList);
  EXPECT_EQ(param_kind({{"type", "array"}, {"items", {{"type", "integer"}}}}),
            ParamKind::JsonArray);
  EXPECT_EQ(param_kind({{"type", "object"}}), ParamKind::JsonValue);
  EXPECT_EQ(param_kind(Json::object()), ParamKind::JsonValue);
}

TEST(ParamKind, NullableFieldTakesItsValueType) {
  Json nullable = {{"anyOf", Json::array({{{"type", "string"}}, {{"type", "null"}}})}};
  EXPECT_EQ(param_kind(nullable), ParamKind::String);
}

TEST(CommandSpecs, EveryMethodOfTheTableHasOneSpecInTableOrder) {
  const auto schema = protocol::build_schema();
  const auto specs = command_specs(schema.methods);
  ASSERT_EQ(specs.size(), schema.methods.size());
  std::size_t i = 0;
  protocol::for_each_type<protocol::AllMethods>([&]<class M>() {
    EXPECT_EQ(specs[i].method, M::name);
    EXPECT_EQ(specs[i].implemented, M::availability == protocol::Availability::Implemented);
    ++i;
  });
}

TEST(CommandSpecs, PositionalsComeFirstInSlotOrder) {
  const auto& spec = spec_of(protocol::TabSetRatio::name);
  ASSERT_EQ(spec.params.size(), 3u);
  EXPECT_EQ(spec.params[0].field, "tab_id");
  EXPECT_EQ(spec.params[1].field, "path");
  EXPECT_EQ(spec.params[1].kind, ParamKind::JsonArray);
  EXPECT_EQ(spec.params[2].field, "ratio");
  EXPECT_EQ(spec.params[2].kind, ParamKind::Number);
  for (int slot = 0; slot < 3; ++slot) {
    EXPECT_EQ(spec.params[slot].positional, slot);
    EXPECT_TRUE(spec.params[slot].required);
  }
}

TEST(CommandSpecs, OptionalFieldsAreOptionsWithTheirKinds) {
  const auto& subscribe = spec_of(protocol::Subscribe::name);
  const ParamSpec* events = find_param(subscribe, "events");
  const ParamSpec* from_seq = find_param(subscribe, "from_seq");
  ASSERT_TRUE(events && from_seq);
  EXPECT_EQ(events->kind, ParamKind::StringList);
  EXPECT_EQ(events->positional, -1);
  EXPECT_FALSE(events->required);
  EXPECT_EQ(from_seq->kind, ParamKind::Integer);

  const ParamSpec* force = find_param(spec_of(protocol::ServerShutdown::name), "force");
  ASSERT_NE(force, nullptr);
  EXPECT_EQ(force->kind, ParamKind::Boolean);

  const ParamSpec* layout = find_param(spec_of(protocol::TabSetLayout::name), "layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(layout->kind, ParamKind::JsonValue);
}

TEST(CommandSpecs, DocsNameTheAllowedValues) {
  const ParamSpec* signal = find_param(spec_of(protocol::WorkspaceClose::name), "signal");
  ASSERT_NE(signal, nullptr);
  EXPECT_NE(signal->doc.find("TERM"), std::string::npos);
  EXPECT_NE(signal->doc.find("signal sent to each pane"), std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
