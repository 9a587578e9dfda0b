// tests/cli/human_output_test.cpp: the human views of sample results, the
// generic fallback, and --json passthrough.
#include "cli/human_output.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "common/protocol/methods.hpp"
#include "common/protocol/schema.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;

protocol::Workspace sample_workspace(std::string handle, std::string name, std::string id) {
  protocol::Workspace ws;
  ws.id = std::move(id);
  ws.handle = std::move(handle);
  ws.name = std::move(name);
  ws.cwd = "/home/u/" + ws.handle;
  ws.tabs = {"tab_1"};
  ws.active_tab_id = "tab_1";
  ws.created_at = "2026-01-01T00:00:00.000Z";
  return ws;
}

template <class M>
std::string human(const typename M::Result& result) {
  std::ostringstream out;
  render_human(M::name, protocol::encode(result), out);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(HumanOutput, WorkspaceListIsAnAlignedTable) {
  protocol::WorkspaceListResult r;
  r.workspaces = {sample_workspace("api", "My API", "ws_a"),
                  sample_workspace("website-long", "Site", "ws_b")};
  auto lines = lines_of(human<protocol::WorkspaceList>(r));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("HANDLE", 0), 0u);
  for (const char* column : {"NAME", "ID", "TABS", "CWD"})
    EXPECT_NE(lines[0].find(column), std::string::npos) << column;
  // Every column starts at the same offset on every row.
  const auto name_col = lines[0].find("NAME");
  EXPECT_EQ(lines[1].find("My API"), name_col);
  EXPECT_EQ(lines[2].find("Site"), name_col);
  const auto cwd_col = lines[0].find("CWD");
  EXPECT_EQ(lines[1].find("/home/u/api"), cwd_col);
  EXPECT_EQ(lines[2].find("/home/u/website-long"), cwd_col);
}

TEST(HumanOutput, EmptyWorkspaceListSaysSo) {
  EXPECT_EQ(human<protocol::WorkspaceList>({}), "no workspaces\n");
}

TEST(HumanOutput, SingleWorkspaceIsAKeyValueBlock) {
  protocol::WorkspaceResult r{sample_workspace("api", "My API", "ws_a")};
  const std::string text = human<protocol::WorkspaceCreate>(r);
  EXPECT_NE(text.find("id:"), std::string::npos);
  EXPECT_NE(text.find("handle:"), std::string::npos);
  EXPECT_NE(text.find("My API"), std::string::npos);
  EXPECT_NE(text.find("/home/u/api"), std::string::npos);
  // Values are aligned one column after the longest key.
  auto lines = lines_of(text);
  const auto value_col = lines[0].find("ws_a");
  EXPECT_EQ(lines[1].find("api"), value_col);
}

TEST(HumanOutput, WorkspaceGetListsTabsAndPanes) {
  protocol::WorkspaceGetResult r;
  r.workspace = sample_workspace("api", "My API", "ws_a");
  protocol::Tab tab;
  tab.id = "tab_1";
  tab.workspace_id = "ws_a";
  tab.title = "agents";
  r.tabs = {tab};
  protocol::Pane pane;
  pane.id = "pane_1";
  pane.workspace_id = "ws_a";
  pane.tab_id = "tab_1";
  pane.title = "claude";
  pane.lifecycle = protocol::Lifecycle::Working;
  pane.attention = protocol::Attention::InputRequired;
  pane.pid = std::int64_t{4242};
  r.panes = {pane};
  const std::string text = human<protocol::WorkspaceGet>(r);
  EXPECT_NE(text.find("tabs:"), std::string::npos);
  EXPECT_NE(text.find("agents"), std::string::npos);
  EXPECT_NE(text.find("panes:"), std::string::npos);
  EXPECT_NE(text.find("working"), std::string::npos);
  EXPECT_NE(text.find("input_required"), std::string::npos);
  EXPECT_NE(text.find("4242"), std::string::npos);
}

TEST(HumanOutput, TabBlockCountsLayoutPanes) {
  protocol::TabResult r;
  r.tab.id = "tab_1";
  r.tab.workspace_id = "ws_a";
  r.tab.title = "tab";
  r.tab.layout = protocol::Layout::split(protocol::SplitDir::Right, 0.5,
                                         protocol::Layout::leaf("pane_1"),
                                         protocol::Layout::leaf("pane_2"));
  const std::string text = human<protocol::TabCreate>(r);
  EXPECT_NE(text.find("tab_1"), std::string::npos);
  EXPECT_NE(text.find("panes:"), std::string::npos);
  EXPECT_NE(text.find("2"), std::string::npos);
}

TEST(HumanOutput, StatusIsOneBlockWithReadableUptime) {
  protocol::ServerStatusResult r;
  r.version = "0.1.0";
  r.protocol = std::string(protocol::kProtocol);
  r.uptime_s = 3661;
  r.workspaces = 2;
  r.live_panes = 1;
  const std::string text = human<protocol::ServerStatus>(r);
  EXPECT_NE(text.find("1h 1m 1s"), std::string::npos);
  EXPECT_NE(text.find("signaltty/1"), std::string::npos);
  EXPECT_NE(text.find("live panes:"), std::string::npos);
}

TEST(HumanOutput, SchemaListsMethodsWithFlagsAndNotImplementedMarks) {
  protocol::ServerSchemaResult r = protocol::build_schema();
  ASSERT_FALSE(r.methods.empty());
  r.methods[0].implemented = false;
  const std::string text = human<protocol::ServerSchema>(r);
  for (const auto& m : r.methods) EXPECT_NE(text.find(m.name), std::string::npos) << m.name;
  EXPECT_NE(text.find("mutating"), std::string::npos);
  EXPECT_NE(text.find("(not implemented yet)"), std::string::npos);
}

TEST(HumanOutput, ClosedAndStoppedAreOneWord) {
  EXPECT_EQ(human<protocol::WorkspaceClose>({true}), "closed\n");
  EXPECT_EQ(human<protocol::ServerShutdown>({true}), "stopped\n");
}

TEST(HumanOutput, ResultThatDoesNotDecodeFallsBackToKeyValues) {
  std::ostringstream out;
  render_human(protocol::ServerStatus::name, Json{{"surprise", "yes"}, {"n", 3}}, out);
  EXPECT_EQ(out.str(), "n:        3\nsurprise: yes\n");
}

TEST(HumanOutput, MethodWithoutAViewGetsKeyValuesWithNestedJson) {
  std::ostringstream out;
  render_human("no.such_method", Json{{"sent", true}, {"pane", {{"id", "p"}}}}, out);
  EXPECT_EQ(out.str(), "pane: {\"id\":\"p\"}\nsent: true\n");
}

TEST(HumanOutput, EmptyResultSaysOk) {
  std::ostringstream out;
  render_human("no.such_method", Json::object(), out);
  EXPECT_EQ(out.str(), "ok\n");
}

TEST(JsonOutput, PrintsTheResultVerbatimOnOneLine) {
  const Json result = {{"workspaces", Json::array()}, {"extra", {{"k", 1}}}};
  std::ostringstream out;
  render_json(result, JsonStyle::OneLine, out);
  EXPECT_EQ(out.str(), result.dump() + "\n");
  EXPECT_EQ(Json::parse(out.str()), result);
}

TEST(JsonOutput, PrettyIsIndentedButTheSameDocument) {
  const Json result = {{"a", {1, 2}}};
  std::ostringstream out;
  render_json(result, JsonStyle::Pretty, out);
  EXPECT_NE(out.str().find("\n  "), std::string::npos);
  EXPECT_EQ(Json::parse(out.str()), result);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
