// tests/integration/schema_test.cpp: server.status and server.schema, and
// the sync test: every method the live schema lists is dispatched (never
// UNKNOWN_METHOD), and the ones this build has not built yet say so.
// Runs in: the integration test binary.
// Never: takes the method list from the headers: the live schema is the
// contract under test, the protocol's names are spelled here on purpose.
#include <iostream>
#include <set>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using BrokerSchema = BrokerTest;

// docs/rules.md, Error codes.
const std::set<std::string> kSeedErrorCodes{
    "BAD_PROTOCOL",  "UNKNOWN_METHOD",   "BAD_PARAMS",       "NO_SUCH_SERVER",
    "NO_SUCH_WORKSPACE", "NO_SUCH_TAB",  "NO_SUCH_PANE",     "NO_SUCH_TASK",
    "NO_SUCH_DECISION", "AGENT_BUSY",    "AGENT_NOT_READY",  "MERGE_CONFLICT",
    "PANE_EXITED",   "PANES_ALIVE",      "SPAWN_FAILED",     "IO_ERROR",
    "TIMEOUT",       "IDENTITY_CHANGED", "RATE_LIMITED",     "FORBIDDEN",
    "INTERNAL"};

// docs/rules.md, Events.
const std::set<std::string> kSeedEvents{
    "workspace.created", "workspace.updated", "workspace.closed", "workspace.turn_started",
    "worktree.changed",  "tab.created",       "tab.updated",      "tab.closed",
    "pane.created",      "pane.updated",      "pane.exited",      "pane.closed",
    "pane.resized",      "pty.data",          "pty.snapshot",     "agent.working",
    "agent.blocked",     "agent.done",        "agent.failed",     "agent.idle",
    "agent.unknown",     "agent.exited",      "attention.created", "attention.updated",
    "attention.cleared", "decision.created",  "decision.answered", "decision.cleared",
    "notification.created", "task.created",   "task.updated",     "task.result",
    "git.branch_changed", "server.will_shutdown"};

// The foundation's methods: served by this build, not merely declared.
const std::set<std::string> kFoundationMethods{
    "server.status",    "server.shutdown", "server.schema",    "workspace.create",
    "workspace.list",   "workspace.get",   "workspace.rename", "workspace.close",
    "tab.create",       "tab.close",       "tab.set_layout",   "tab.set_ratio",
    "subscribe"};

constexpr std::string_view kNotImplemented = "not implemented yet";

TEST_F(BrokerSchema, StatusReportsVersionProtocolAndCounts) {
  start();
  Client client = connect();
  Json status = client.call("server.status");
  EXPECT_FALSE(status.value("version", "").empty()) << status.dump();
  EXPECT_EQ(status.value("protocol", ""), "signaltty/1");
  EXPECT_TRUE(status["uptime_s"].is_number_unsigned()) << status.dump();
  for (const char* count : {"workspaces", "tabs", "panes", "live_panes"})
    EXPECT_EQ(status.value(count, Json()), 0) << count << " in " << status.dump();

  Json ws = client.call("workspace.create")["workspace"];
  client.call("tab.create", {{"workspace_id", ws["id"]}});
  client.call("tab.create", {{"workspace_id", ws["id"]}});
  status = client.call("server.status");
  EXPECT_EQ(status["workspaces"], 1);
  EXPECT_EQ(status["tabs"], 2);
  EXPECT_EQ(status["panes"], 0);
}

TEST_F(BrokerSchema, SchemaListsMethodsWithParamsAndResultSchemas) {
  start();
  Client client = connect();
  Json schema = client.call("server.schema");
  EXPECT_EQ(schema.value("protocol", ""), "signaltty/1");
  EXPECT_EQ(schema.value("version", ""), client.call("server.status").value("version", "?"));
  std::set<std::string> names;
  for (const Json& m : schema.at("methods")) {
    const std::string name = m.value("name", "");
    EXPECT_TRUE(names.insert(name).second) << "listed twice: " << name;
    EXPECT_TRUE(m.at("params").is_object()) << name;
    EXPECT_TRUE(m.at("result").is_object()) << name;
    EXPECT_FALSE(m.value("summary", "").empty()) << name;
  }
  for (const auto& name : kFoundationMethods) EXPECT_TRUE(names.count(name)) << name;
}

TEST_F(BrokerSchema, SchemaListsEveryEventOfTheSeed) {
  start();
  Json schema = connect().call("server.schema");
  std::set<std::string> events;
  for (const Json& e : schema.at("events")) events.insert(e.get<std::string>());
  for (const auto& name : kSeedEvents) EXPECT_TRUE(events.count(name)) << "missing " << name;
}

TEST_F(BrokerSchema, SchemaListsExactlyTheSeedErrorCodes) {
  start();
  Json schema = connect().call("server.schema");
  std::set<std::string> codes;
  for (const Json& c : schema.at("codes")) codes.insert(c.get<std::string>());
  EXPECT_EQ(codes, kSeedErrorCodes);
}

// One method, empty params, on its own connection (some methods bind the
// connection). Returns the response line.
Json call_with_empty_params(const std::string& socket_path, const std::string& method) {
  Client client(socket_path);
  return client.request(method, Json::object());
}

TEST_F(BrokerSchema, EveryListedMethodIsDispatched) {
  start();
  Json schema = connect().call("server.schema");
  std::size_t planned = 0;
  std::size_t total = 0;
  Json shutdown;  // server.shutdown goes last: it stops the broker
  for (const Json& m : schema.at("methods")) {
    const std::string name = m.value("name", "");
    if (name == "server.shutdown") {
      shutdown = m;
      continue;
    }
    ++total;
    Json reply = call_with_empty_params(broker().socket_path(), name);
    EXPECT_NE(error_code(reply), "UNKNOWN_METHOD") << name;
    const bool says_planned = error_code(reply) == "INTERNAL" &&
        reply["error"].value("message", "").find(kNotImplemented) != std::string::npos;
    EXPECT_EQ(says_planned, !m.value("implemented", true)) << name << ": " << reply.dump();
    if (says_planned) ++planned;
  }
  ASSERT_FALSE(shutdown.is_null()) << "server.shutdown is not listed";
  ++total;
  Json reply = call_with_empty_params(broker().socket_path(), "server.shutdown");
  EXPECT_TRUE(is_ok(reply)) << reply.dump();
  std::cout << "[ INFO     ] " << total << " methods listed, " << planned
            << " answered \"not implemented yet\"\n";
  RecordProperty("planned_methods", static_cast<int>(planned));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
