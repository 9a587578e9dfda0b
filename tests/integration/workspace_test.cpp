// tests/integration/workspace_test.cpp: workspace.* and tab.* against the
// real broker: handles, defaults, lookups by id or handle, refusals that
// change nothing, and the event each mutation emits (docs/rules.md:
// Ids, handles, names; Workspace; Tab and layout).
// Runs in: the integration test binary.
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <regex>
#include <set>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

const std::string kUnknownWorkspaceId = "ws_00000000000000000000000000000000";
const std::string kUnknownTabId = "tab_00000000000000000000000000000000";
const std::string kUnknownPaneId = "pane_00000000000000000000000000000000";

using BrokerWorkspaces = BrokerTest;

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : path;
}

Json leaf(const std::string& pane_id) { return {{"type", "pane"}, {"pane_id", pane_id}}; }

TEST_F(BrokerWorkspaces, CreateDerivesTheHandleFromTheName) {
  start();
  Json ws = connect().call("workspace.create", {{"name", "My API!!"}})["workspace"];
  EXPECT_EQ(ws["name"], "My API!!");
  EXPECT_EQ(ws["handle"], "my-api");
  EXPECT_TRUE(std::regex_match(ws.value("id", ""), std::regex("ws_[0-9a-f]{32}"))) << ws.dump();
}

TEST_F(BrokerWorkspaces, CreateWithATakenHandleAppendsACounter) {
  start();
  Client client = connect();
  EXPECT_EQ(client.call("workspace.create", {{"name", "My API!!"}})["workspace"]["handle"], "my-api");
  EXPECT_EQ(client.call("workspace.create", {{"name", "my api"}})["workspace"]["handle"], "my-api-2");
  EXPECT_EQ(client.call("workspace.create", {{"name", "MY-API"}})["workspace"]["handle"], "my-api-3");
}

TEST_F(BrokerWorkspaces, CreateDefaultsToNameWorkspaceInHome) {
  start();
  Json ws = connect().call("workspace.create")["workspace"];
  EXPECT_EQ(ws["name"], "workspace");
  EXPECT_EQ(ws["handle"], "workspace");
  EXPECT_EQ(real_path(ws.value("cwd", "")), real_path(dirs_.home()));
  EXPECT_EQ(ws.value("auto_resume", Json()), false) << "always present";
  EXPECT_TRUE(ws["git"].is_object()) << ws.dump();
}

TEST_F(BrokerWorkspaces, CreateInAnExistingDirectoryKeepsIt) {
  start();
  const std::string dir = dirs_.scratch("project");
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  Json ws = connect().call("workspace.create", {{"cwd", dir}})["workspace"];
  EXPECT_EQ(real_path(ws.value("cwd", "")), real_path(dir));
}

TEST_F(BrokerWorkspaces, CreateWithACwdThatIsNotADirectoryIsBadParams) {
  start();
  Client client = connect();
  const std::string file = dirs_.scratch("plain-file");
  write_text_file(file, "x");
  for (const std::string& cwd : {dirs_.scratch("missing"), file, std::string("relative/dir")}) {
    Json error = client.call_error("workspace.create", {{"cwd", cwd}});
    EXPECT_EQ(error.value("code", ""), "BAD_PARAMS") << cwd << ": " << error.dump();
  }
  EXPECT_TRUE(client.call("workspace.list")["workspaces"].empty()) << "nothing was created";
}

TEST_F(BrokerWorkspaces, RenameChangesTheNameButNeverTheHandle) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create", {{"name", "alpha"}})["workspace"];
  Json renamed = client.call("workspace.rename", {{"workspace_id", ws["id"]}, {"name", "Beta"}})["workspace"];
  EXPECT_EQ(renamed["name"], "Beta");
  EXPECT_EQ(renamed["handle"], "alpha");
  EXPECT_EQ(renamed["id"], ws["id"]);
  EXPECT_EQ(client.call("workspace.get", {{"workspace_id", "alpha"}})["workspace"]["name"], "Beta");
  Json error = client.call_error("workspace.get", {{"workspace_id", "beta"}});
  EXPECT_EQ(error.value("code", ""), "NO_SUCH_WORKSPACE");
}

TEST_F(BrokerWorkspaces, HandleIsAcceptedWhereverAWorkspaceIdIs) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create", {{"name", "Handle Me"}})["workspace"];
  const std::string handle = ws["handle"];
  EXPECT_EQ(client.call("workspace.get", {{"workspace_id", handle}})["workspace"]["id"], ws["id"]);
  EXPECT_EQ(client.call("workspace.rename", {{"workspace_id", handle}, {"name", "x"}})["workspace"]["id"],
            ws["id"]);
  Json tab = client.call("tab.create", {{"workspace_id", handle}})["tab"];
  EXPECT_EQ(tab["workspace_id"], ws["id"]);
  EXPECT_EQ(client.call("workspace.close", {{"workspace_id", handle}})["closed"], true);
  EXPECT_TRUE(client.call("workspace.list")["workspaces"].empty());
}

TEST_F(BrokerWorkspaces, ListReturnsEveryOpenWorkspace) {
  start();
  Client client = connect();
  std::set<std::string> ids;
  for (const char* name : {"a", "b", "c"})
    ids.insert(client.call("workspace.create", {{"name", name}})["workspace"]["id"].get<std::string>());
  std::set<std::string> listed;
  const Json result = client.call("workspace.list");
  for (const Json& ws : result["workspaces"]) listed.insert(ws["id"].get<std::string>());
  EXPECT_EQ(listed, ids);
}

TEST_F(BrokerWorkspaces, GetReturnsTheWorkspaceWithItsTabsAndPanes) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json t1 = client.call("tab.create", {{"workspace_id", ws["id"]}, {"title", "one"}})["tab"];
  Json t2 = client.call("tab.create", {{"workspace_id", ws["id"]}, {"title", "two"}})["tab"];
  Json got = client.call("workspace.get", {{"workspace_id", ws["id"]}});
  ASSERT_EQ(got["tabs"].size(), 2u) << got.dump();
  EXPECT_EQ(got["tabs"][0], t1);
  EXPECT_EQ(got["tabs"][1], t2);
  EXPECT_EQ(got["workspace"]["tabs"], Json::array({t1["id"], t2["id"]}));
  EXPECT_TRUE(got.at("panes").is_array() && got["panes"].empty()) << got.dump();
}

TEST_F(BrokerWorkspaces, UnknownWorkspaceIsNoSuchWorkspace) {
  start();
  Client client = connect();
  for (const std::string& key : {kUnknownWorkspaceId, std::string("no-such-handle")}) {
    EXPECT_EQ(client.call_error("workspace.get", {{"workspace_id", key}})["code"], "NO_SUCH_WORKSPACE");
    EXPECT_EQ(client.call_error("workspace.rename", {{"workspace_id", key}, {"name", "n"}})["code"],
              "NO_SUCH_WORKSPACE");
    EXPECT_EQ(client.call_error("workspace.close", {{"workspace_id", key}})["code"], "NO_SUCH_WORKSPACE");
    EXPECT_EQ(client.call_error("tab.create", {{"workspace_id", key}})["code"], "NO_SUCH_WORKSPACE");
  }
}

TEST_F(BrokerWorkspaces, UnknownTabIsNoSuchTab) {
  start();
  Client client = connect();
  EXPECT_EQ(client.call_error("tab.close", {{"tab_id", kUnknownTabId}})["code"], "NO_SUCH_TAB");
  EXPECT_EQ(client.call_error("tab.set_layout", {{"tab_id", kUnknownTabId}, {"layout", leaf(kUnknownPaneId)}})["code"],
            "NO_SUCH_TAB");
  EXPECT_EQ(client.call_error("tab.set_ratio", {{"tab_id", kUnknownTabId}, {"path", Json::array()}, {"ratio", 0.3}})["code"],
            "NO_SUCH_TAB");
}

TEST_F(BrokerWorkspaces, TabCreateDefaultsTheTitleAndBecomesTheActiveTab) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json first = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  Json second = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  EXPECT_EQ(second["title"], "tab");
  EXPECT_TRUE(second.value("layout", Json()).is_null()) << "a new tab has no panes: " << second.dump();
  EXPECT_TRUE(std::regex_match(second.value("id", ""), std::regex("tab_[0-9a-f]{32}")));
  Json got = client.call("workspace.get", {{"workspace_id", ws["id"]}})["workspace"];
  EXPECT_EQ(got["active_tab_id"], second["id"]);
  EXPECT_NE(first["id"], second["id"]);
}

TEST_F(BrokerWorkspaces, TabCloseRemovesItFromItsWorkspace) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json tab = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  EXPECT_EQ(client.call("tab.close", {{"tab_id", tab["id"]}})["closed"], true);
  Json got = client.call("workspace.get", {{"workspace_id", ws["id"]}});
  EXPECT_TRUE(got["tabs"].empty()) << got.dump();
  EXPECT_TRUE(got["workspace"].value("tabs", Json::array()).empty()) << got.dump();
  EXPECT_EQ(client.call_error("tab.close", {{"tab_id", tab["id"]}})["code"], "NO_SUCH_TAB");
}

TEST_F(BrokerWorkspaces, SetLayoutWithAForeignPaneIsBadParamsAndChangesNothing) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json tab = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  Json before = client.call("workspace.get", {{"workspace_id", ws["id"]}});
  Json layout = {{"type", "split"}, {"dir", "right"}, {"ratio", 0.5},
                 {"first", leaf(kUnknownPaneId)}, {"second", leaf("pane_11111111111111111111111111111111")}};
  for (const Json& l : {leaf(kUnknownPaneId), layout}) {
    Json error = client.call_error("tab.set_layout", {{"tab_id", tab["id"]}, {"layout", l}});
    EXPECT_EQ(error.value("code", ""), "BAD_PARAMS") << error.dump();
  }
  EXPECT_EQ(client.call("workspace.get", {{"workspace_id", ws["id"]}}), before);
}

TEST_F(BrokerWorkspaces, SetRatioOnATabWithoutLayoutIsBadParams) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json tab = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  Json error = client.call_error("tab.set_ratio", {{"tab_id", tab["id"]}, {"path", Json::array()}, {"ratio", 0.3}});
  EXPECT_EQ(error.value("code", ""), "BAD_PARAMS") << error.dump();
}

TEST_F(BrokerWorkspaces, WorkspaceCloseRemovesItAndItsTabs) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json keep = client.call("workspace.create", {{"name", "keep"}})["workspace"];
  Json tab = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  EXPECT_EQ(client.call("workspace.close", {{"workspace_id", ws["id"]}})["closed"], true);
  Json list = client.call("workspace.list")["workspaces"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], keep["id"]);
  EXPECT_EQ(client.call_error("workspace.get", {{"workspace_id", ws["id"]}})["code"], "NO_SUCH_WORKSPACE");
  EXPECT_EQ(client.call_error("tab.close", {{"tab_id", tab["id"]}})["code"], "NO_SUCH_TAB");
  EXPECT_EQ(client.call("server.status")["tabs"], 0);
}

// Events on `subscriber` until one named `last` arrives (or the deadline).
std::vector<Json> events_until(Client& subscriber, const std::string& last) {
  std::vector<Json> events;
  const Deadline deadline = deadline_after();
  while (auto ev = subscriber.next_event(deadline)) {
    events.push_back(*ev);
    if (ev->value("event", "") == last) break;
  }
  return events;
}

// The position of the first event after `from` named `name` whose payload
// satisfies `pred`, or events.size().
template <class Pred>
std::size_t find_event(const std::vector<Json>& events, std::size_t from, const std::string& name,
                       Pred pred) {
  for (std::size_t i = from; i < events.size(); ++i)
    if (events[i].value("event", "") == name && pred(events[i]["payload"])) return i;
  return events.size();
}

TEST_F(BrokerWorkspaces, EachMutationEmitsItsEventInAscendingSeq) {
  start();
  Client subscriber = connect();
  Json sub = subscriber.call("subscribe", {{"events", {"*"}}});
  ASSERT_EQ(sub["subscribed"], true);
  const std::uint64_t fence = sub["seq"];

  Client client = connect();
  Json ws = client.call("workspace.create", {{"name", "ev"}})["workspace"];
  client.call("workspace.rename", {{"workspace_id", ws["id"]}, {"name", "renamed"}});
  Json tab = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  client.call("tab.close", {{"tab_id", tab["id"]}});
  client.call("workspace.close", {{"workspace_id", ws["id"]}});

  std::vector<Json> events = events_until(subscriber, "workspace.closed");
  std::uint64_t prev = fence;
  for (const Json& ev : events) {
    EXPECT_EQ(ev.value("protocol", ""), "signaltty/1");
    EXPECT_GT(ev["seq"].get<std::uint64_t>(), prev) << ev.dump();
    prev = ev["seq"];
  }
  std::size_t at = find_event(events, 0, "workspace.created", [&](const Json& p) { return p["workspace"] == ws; });
  ASSERT_LT(at, events.size()) << "workspace.created {workspace}";
  at = find_event(events, at, "workspace.updated", [&](const Json& p) {
    return p["workspace"]["id"] == ws["id"] && p["workspace"]["name"] == "renamed";
  });
  ASSERT_LT(at, events.size()) << "workspace.updated {workspace} after the rename";
  at = find_event(events, at, "tab.created", [&](const Json& p) { return p["tab"] == tab; });
  ASSERT_LT(at, events.size()) << "tab.created {tab}";
  at = find_event(events, at, "tab.closed", [&](const Json& p) {
    return p["tab_id"] == tab["id"] && p["workspace_id"] == ws["id"];
  });
  ASSERT_LT(at, events.size()) << "tab.closed {tab_id, workspace_id}";
  at = find_event(events, at, "workspace.closed", [&](const Json& p) { return p["workspace_id"] == ws["id"]; });
  ASSERT_LT(at, events.size()) << "workspace.closed {workspace_id}";
}

TEST_F(BrokerWorkspaces, SubscribeWithAGlobReceivesOnlyMatchingEvents) {
  start();
  Client subscriber = connect();
  ASSERT_EQ(subscriber.call("subscribe", {{"events", {"tab.*"}}})["subscribed"], true);
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  Json tab = client.call("tab.create", {{"workspace_id", ws["id"]}})["tab"];
  client.call("tab.close", {{"tab_id", tab["id"]}});
  std::vector<Json> events = events_until(subscriber, "tab.closed");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().value("event", ""), "tab.closed");
  for (const Json& ev : events) EXPECT_EQ(ev.value("event", "").rfind("tab.", 0), 0u) << ev.dump();
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
