// tests/common/method_table_test.cpp: sync tests holding the protocol tables
// (AllMethods, AllEvents, ErrorCode) to the protocol's published lists, copied
// here literally as the independent reference: a method, event or code added
// to or dropped from a table without the protocol changing fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"
#include "common/protocol/schema.hpp"

namespace signaltty::protocol {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The protocol's methods, in its order.
const std::vector<std::string> kSeedMethods = {
    "server.status",       "server.shutdown",     "server.schema",
    "workspace.create",    "workspace.list",      "workspace.get",
    "workspace.rename",    "workspace.close",     "workspace.refresh_git",
    "workspace.diff",      "workspace.file_diff", "worktree.list",
    "worktree.create",     "worktree.open",       "worktree.remove",
    "tab.create",          "tab.close",           "tab.set_layout",
    "tab.set_ratio",       "pane.spawn",          "pane.split",
    "pane.rename",         "pane.swap",           "pane.move",
    "pane.get",            "pane.input",          "pane.resize",
    "pane.signal",         "pane.read",           "pane.wait_for_output",
    "pane.clear",          "pane.attach",         "pane.detach",
    "pane.close",          "pane.resume",         "pane.mark_seen",
    "pane.explain",        "pane.submit",         "decision.answer",
    "notify",              "hook-event",          "report-session",
    "subscribe",           "wait",                "focus.next_unread",
    "task.start",          "task.get",            "task.list",
    "task.wait",           "task.cancel",         "task.report",
    "task.diff",           "task.file_diff",      "task.finish",
    "task.pr_open",        "task.pr_refresh",     "attention.pending",
    "plugin.list",         "plugin.reload",       "agents.list",
    "agents.reload",
};

// The protocol's events, in its order.
const std::vector<std::string> kSeedEvents = {
    "workspace.created",  "workspace.updated",  "workspace.closed",
    "workspace.turn_started",
    "worktree.changed",
    "tab.created",        "tab.updated",        "tab.closed",
    "pane.created",       "pane.updated",       "pane.exited",        "pane.closed",
    "pane.resized",       "pty.data",           "pty.snapshot",
    "agent.working",      "agent.blocked",      "agent.done",         "agent.failed",
    "agent.idle",         "agent.unknown",      "agent.exited",
    "attention.created",  "attention.updated",  "attention.cleared",
    "decision.created",   "decision.answered",  "decision.cleared",
    "notification.created",
    "task.created",       "task.updated",       "task.result",
    "git.branch_changed",
    "server.will_shutdown",
};

// The protocol's error codes (docs/rules.md, Error codes), NO_SUCH_{SERVER,
// WORKSPACE,TAB,PANE} spelled out.
const std::vector<std::string> kSeedErrorCodes = {
    "BAD_PROTOCOL",  "UNKNOWN_METHOD",    "BAD_PARAMS",     "NO_SUCH_SERVER",
    "NO_SUCH_WORKSPACE", "NO_SUCH_TAB",   "NO_SUCH_PANE",   "NO_SUCH_TASK",
    "NO_SUCH_DECISION", "AGENT_BUSY",     "AGENT_NOT_READY", "MERGE_CONFLICT",
    "PANE_EXITED",   "PANES_ALIVE",       "SPAWN_FAILED",   "IO_ERROR",
    "TIMEOUT",       "IDENTITY_CHANGED",  "RATE_LIMITED",   "FORBIDDEN",
    "INTERNAL",
};

struct MethodRow {
  std::string name;
  unsigned flags;
  Availability availability;
  Json params;
  Json result;
};

std::vector<MethodRow> method_rows() {
  std::vector<MethodRow> rows;
  for_each_type<AllMethods>([&]<class M>() {
    rows.push_back({std::string(M::name), M::flags, M::availability,
                    schema_of<typename M::Params>(), schema_of<typename M::Result>()});
  });
  return rows;
}

const MethodRow& row_named(const std::vector<MethodRow>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(),
                         [&](const MethodRow& r) { return r.name == name; });
  if (it == rows.end()) throw std::runtime_error("no method " + name);
  return *it;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// ---- methods ------------------------------------------------------------------

TEST(MethodTable, NamesEqualTheSeedsMethodList) {
  std::vector<std::string> names;
  for (const auto& row : method_rows()) names.push_back(row.name);
  EXPECT_EQ(as_set(names), as_set(kSeedMethods));
  EXPECT_EQ(names.size(), kSeedMethods.size());
}

TEST(MethodTable, NamesAreUnique) {
  std::set<std::string> seen;
  for (const auto& row : method_rows()) EXPECT_TRUE(seen.insert(row.name).second) << row.name;
}

TEST(MethodTable, EveryParamsAndResultSchemaIsAnObjectSchema) {
  for (const auto& row : method_rows()) {
    EXPECT_EQ(row.params.value("type", ""), "object") << row.name << " params";
    EXPECT_TRUE(row.params.contains("properties")) << row.name << " params";
    EXPECT_EQ(row.result.value("type", ""), "object") << row.name << " result";
    EXPECT_TRUE(row.result.contains("properties")) << row.name << " result";
  }
}

TEST(MethodTable, PositionalSlotsAreDistinctAndStartAtZero) {
  for (const auto& row : method_rows()) {
    std::vector<int> slots;
    for (const auto& [field, schema] : row.params["properties"].items())
      if (schema.contains("x-positional")) slots.push_back(schema["x-positional"].get<int>());
    std::sort(slots.begin(), slots.end());
    for (std::size_t i = 0; i < slots.size(); ++i)
      EXPECT_EQ(slots[i], static_cast<int>(i)) << row.name;
  }
}

TEST(MethodTable, WaitersHoldADedicatedConnection) {
  const auto rows = method_rows();
  for (const std::string name : {"wait", "task.wait", "hook-event"}) {
    const unsigned flags = row_named(rows, name).flags;
    EXPECT_TRUE(flags & kSingleFlight) << name;
    EXPECT_TRUE(flags & kConnectionBound) << name;
  }
}

TEST(MethodTable, StreamsAreBoundToTheirConnection) {
  const auto rows = method_rows();
  for (const std::string name : {"subscribe", "pane.attach", "pane.detach"})
    EXPECT_TRUE(row_named(rows, name).flags & kConnectionBound) << name;
  EXPECT_TRUE(row_named(rows, "pane.attach").flags & kMutating);
}

TEST(MethodTable, ReadsAreNotMutating) {
  const auto rows = method_rows();
  for (const std::string name :
       {"server.status", "server.schema", "workspace.list", "workspace.get", "workspace.diff",
        "workspace.file_diff", "worktree.list", "pane.get", "pane.read", "pane.wait_for_output",
        "pane.explain", "pane.detach", "wait", "focus.next_unread", "task.get", "task.list",
        "task.wait", "task.diff", "task.file_diff", "attention.pending", "plugin.list",
        "agents.list"})
    EXPECT_FALSE(row_named(rows, name).flags & kMutating) << name;
}

TEST(MethodTable, ReportsHowManyMethodsArePlanned) {
  int planned = 0;
  for (const auto& row : method_rows())
    if (row.availability == Availability::Planned) ++planned;
  RecordProperty("planned_methods", planned);
  RecordProperty("total_methods", static_cast<int>(kSeedMethods.size()));
  EXPECT_LE(planned, static_cast<int>(kSeedMethods.size()));
}

TEST(MethodTable, ServerSchemaListsEveryMethodOnce) {
  const ServerSchemaResult schema = build_schema();
  std::vector<std::string> names;
  for (const auto& m : schema.methods) names.push_back(m.name);
  EXPECT_EQ(names.size(), kSeedMethods.size());
  EXPECT_EQ(as_set(names), as_set(kSeedMethods));
}

// ---- error codes --------------------------------------------------------------

TEST(ErrorCodes, EachCodeHasOneDistinctWireString) {
  std::set<std::string> wires;
  std::set<ErrorCode> codes;
  for (const auto& [code, wire] : kErrorCodeNames) {
    EXPECT_TRUE(codes.insert(code).second) << wire;
    EXPECT_TRUE(wires.insert(std::string(wire)).second) << wire;
    EXPECT_EQ(wire_name(code), wire);
  }
  EXPECT_EQ(codes.size(), static_cast<std::size_t>(ErrorCode::Internal) + 1);
}

TEST(ErrorCodes, WireStringsRoundTrip) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::Internal); ++i) {
    const auto code = static_cast<ErrorCode>(i);
    EXPECT_EQ(error_code_from_wire(wire_name(code)), code) << wire_name(code);
  }
  EXPECT_FALSE(error_code_from_wire("NOT_A_CODE").has_value());
}

TEST(ErrorCodes, EqualTheSeedsList) {
  std::vector<std::string> wires;
  for (const auto& entry : kErrorCodeNames) wires.emplace_back(entry.second);
  EXPECT_EQ(wires, kSeedErrorCodes);
  EXPECT_EQ(build_schema().codes, kSeedErrorCodes);
}

// ---- events -------------------------------------------------------------------

TEST(EventTable, EverySeedEventIsDeclared) {
  std::set<std::string> declared;
  for_each_type<AllEvents>([&]<class E>() { declared.insert(std::string(E::name)); });
  for (const auto& name : kSeedEvents) EXPECT_TRUE(declared.count(name)) << name;
}

// ---- UntilSpec ------------------------------------------------------------------

TEST(UntilSpec, AcceptsOneStateOrAlternativesInCallerOrder) {
  auto one = decode<UntilSpec>(Json("done"), "until");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->states, std::vector<std::string>{"done"});
  auto many = decode<UntilSpec>(Json::array({"blocked", "done"}), "until");
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->states, (std::vector<std::string>{"blocked", "done"}));
  EXPECT_EQ(encode(*one), Json("done"));
  EXPECT_EQ(encode(*many), Json::array({"blocked", "done"}));
  EXPECT_EQ(schema_of<UntilSpec>()["anyOf"][0]["type"], "array");
}

TEST(UntilSpec, EmptyArrayOrEmptyNameIsBadParamsNamingTheField) {
  for (const Json& bad : {Json::array(), Json(""), Json::array({"done", ""})}) {
    auto r = decode<WaitParams>(Json{{"pane_id", "p"}, {"until", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::BadParams);
    EXPECT_NE(r.error().details["field"].get<std::string>().find("until"), std::string::npos);
  }
}

TEST(UntilSpec, NonStringValuesAreBadParams) {
  for (const Json& bad : {Json(3), Json::object(), Json::array({1})}) {
    auto r = decode<TaskWaitParams>(Json{{"task_id", "t"}, {"until", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  }
}

// ---- a few params whose defaults the protocol fixes ----------------------------------

TEST(MethodParams, PaneReadDefaultsToTwoHundredTailLinesStripped) {
  auto r = decode<PaneReadParams>(Json{{"pane_id", "p"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mode, ReadMode::Tail);
  EXPECT_EQ(r->lines, kReadLinesDefault);
  EXPECT_TRUE(r->strip_ansi);
  EXPECT_EQ(r->after_seq, 0u);
}

TEST(MethodParams, UnknownEnumValuesAreBadParams) {
  EXPECT_FALSE(decode<PaneReadParams>(Json{{"pane_id", "p"}, {"mode", "raw"}}).ok());
  EXPECT_FALSE(decode<TaskFinishParams>(Json{{"task_id", "t"}, {"mode", "squash"}}).ok());
  EXPECT_FALSE(decode<NotifyParams>(Json{{"title", "t"}, {"severity", "fatal"}}).ok());
  EXPECT_FALSE(
      decode<TaskReportParams>(Json{{"status", "canceled"}, {"summary", "s"}}).ok());
}

TEST(MethodParams, WaitBaselineRoundTripsThroughWaitAfter) {
  WaitBaseline b{"pane_1", "inst_1", Nullable<std::string>{}, 2, 10, 11};
  auto r = decode<WaitParams>(Json{{"pane_id", "pane_1"}, {"until", "done"}, {"after", encode(b)}});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->after.has_value());
  EXPECT_EQ(*r->after, b);
  EXPECT_TRUE(encode(b)["agent_session_id"].is_null());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::protocol
