// tests/broker/store_decisions_test.cpp: the pending decision's life in the
// store (broker/store_decisions.cpp; docs/rules.md "Decision", "Agent
// sessions") and the pane a process belongs to by ancestry
// (broker/agents/pane_ancestry.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "broker/agents/pane_ancestry.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::AgentKind;
using protocol::Attention;
using protocol::Decision;
using protocol::Json;
using protocol::Lifecycle;
using protocol::Pane;

std::vector<std::string> names(Txn& txn) {
  std::vector<std::string> out;
  for (const PendingEvent& e : txn.events()) out.push_back(e.name);
  return out;
}

Decision decision(std::string id, std::vector<std::pair<std::string, std::string>> options = {
                                      {"yes", "Yes"}, {"no", "No"}}) {
  Decision d;
  d.id = std::move(id);
  d.prompt = "Go on?";
  for (auto& [oid, label] : options) d.options.push_back({oid, label});
  return d;
}

struct Fixture {
  Store store{[] { return std::string("2026-12-01T00:00:00.000Z"); }};
  std::string pane;

  Fixture() {
    Txn txn;
    const std::string ws = store.create_workspace(txn, "w", "/").value().id;
    Pane p;
    p.id = new_id("pane");
    p.workspace_id = ws;
    p.title = "agent";
    p.argv = {"/opt/bin/claude"};
    p.process_instance = new_id("proc");
    pane = store.add_pane(txn, p).value().id;
  }
  const Pane& get() { return **store.find_pane(pane); }
};

TEST(StoreDecisions, ASetDecisionSupersedesAndAnAnswerConsumesItMarksSeenAndResumes) {
  Fixture f;
  Txn setup;
  ASSERT_TRUE(f.store.set_pane_lifecycle(setup, f.pane, Lifecycle::Blocked, LifecycleSource::Hook).ok());
  ASSERT_TRUE(f.store.raise_pane_attention(setup, f.pane, Attention::PermissionRequired, {}).ok());
  Txn first;
  ASSERT_TRUE(f.store.set_pending_decision(first, f.pane, decision("a")).ok());
  EXPECT_EQ(first.events().front().payload["prev"], nullptr);
  Txn second;
  ASSERT_TRUE(f.store.set_pending_decision(second, f.pane, decision("b")).ok());
  EXPECT_EQ(names(second), std::vector<std::string>{"decision.created"});
  EXPECT_EQ(second.events().front().payload["prev"], "a");
  EXPECT_EQ(f.get().pending_decision->received_at, "2026-12-01T00:00:00.000Z");

  // Seeing the pane keeps decision and attention.
  Txn seen;
  ASSERT_TRUE(f.store.mark_pane_seen(seen, f.pane, "mark_seen").ok());
  EXPECT_EQ(f.get().attention, Attention::PermissionRequired);

  EXPECT_EQ(f.store.check_answer(f.pane, "a", "yes").error().code, ErrorCode::NoSuchDecision);
  EXPECT_EQ(f.store.check_answer(f.pane, "b", "maybe").error().code, ErrorCode::BadParams);
  EXPECT_EQ(*f.store.check_answer(f.pane, "b", "no"), 1u);
  Txn answer;
  ASSERT_TRUE(f.store.answer_decision(answer, f.pane, "b", "yes").ok());
  EXPECT_EQ(names(answer), (std::vector<std::string>{"decision.answered", "attention.cleared",
                                                     "agent.working"}));
  EXPECT_EQ(answer.events()[1].payload["reason"], "decision_answer");
  EXPECT_EQ(answer.events()[2].payload["source"], "user");
  EXPECT_FALSE(f.get().pending_decision);
  EXPECT_EQ(f.store.check_answer(f.pane, "b", "yes").error().code, ErrorCode::NoSuchDecision);
}

TEST(StoreDecisions, InvalidDecisionsAreRefusedAndChangeNothing) {
  Fixture f;
  std::vector<Decision> bad;
  bad.push_back(decision(""));
  bad.push_back(decision("x", {}));
  bad.push_back(decision("x", {{"a", "A"}, {"a", "B"}}));
  bad.push_back(decision("x", {{"", "A"}}));
  bad.push_back(decision("x", {{"a", "  "}}));
  Decision blank = decision("x");
  blank.prompt = " \n";
  bad.push_back(blank);
  bad.push_back(decision(std::string(200, 'i')));
  for (const Decision& d : bad) {
    Txn txn;
    EXPECT_EQ(f.store.set_pending_decision(txn, f.pane, d).error().code, ErrorCode::BadParams);
    EXPECT_TRUE(txn.empty());
  }
  EXPECT_FALSE(f.get().pending_decision);
}

TEST(StoreDecisions, AHookClearOrAnExitDropsTheDecisionWithItsReason) {
  Fixture f;
  Txn txn;
  ASSERT_TRUE(f.store.set_pending_decision(txn, f.pane, decision("a")).ok());
  ASSERT_TRUE(f.store.raise_pane_attention(txn, f.pane, Attention::InputRequired, {}).ok());
  Txn clear;
  ASSERT_TRUE(f.store.clear_pane_attention(clear, f.pane, "hook").ok());
  EXPECT_EQ(names(clear), (std::vector<std::string>{"decision.cleared", "attention.cleared"}));
  EXPECT_EQ(clear.events()[0].payload["reason"], "attention_cleared");

  ASSERT_TRUE(f.store.set_pending_decision(txn, f.pane, decision("b")).ok());
  Txn wrong;
  EXPECT_FALSE(f.store.clear_pending_decision(wrong, f.pane, "native_cancelled", "a"));
  EXPECT_TRUE(wrong.empty());
  Txn exit;
  ASSERT_TRUE(f.store.pane_exited(exit, f.pane, 0, std::nullopt).ok());
  const auto& events = exit.events();
  auto cleared = std::find_if(events.begin(), events.end(),
                              [](const PendingEvent& e) { return e.name == "decision.cleared"; });
  ASSERT_NE(cleared, events.end());
  EXPECT_EQ(cleared->payload["reason"], "pane_exited");
}

TEST(StoreDecisions, ARestoredNativeDecisionWaitsUnanswerableAndComesBackOnRegistration) {
  Fixture f;
  const std::string id = new_id("permission");
  Txn txn;
  ASSERT_TRUE(f.store.set_pending_decision(txn, f.pane, decision(id)).ok());
  f.store.mark_decision_unanswerable(f.pane, id);
  EXPECT_FALSE(f.get().pending_decision->answerable);
  Txn again;
  ASSERT_TRUE(f.store.set_pending_decision(again, f.pane, decision(id)).ok());
  EXPECT_TRUE(f.get().pending_decision->answerable);
  ASSERT_EQ(names(again), std::vector<std::string>{"decision.created"});
  EXPECT_EQ(again.events().front().payload["prev"], id);
  Txn same;
  ASSERT_TRUE(f.store.set_pending_decision(same, f.pane, decision(id)).ok());
  EXPECT_TRUE(same.empty());
}

TEST(StoreDecisions, ASessionIdRecordsKindResumeAndBumpsTheGenerationOnlyWhenItChanges) {
  Fixture f;
  Txn txn;
  ASSERT_TRUE(f.store.record_agent_session(txn, f.pane, AgentKind::Claude, "s1").ok());
  EXPECT_EQ(f.get().agent.kind, AgentKind::Claude);
  EXPECT_EQ(f.get().session_generation, 1u);
  EXPECT_EQ(*f.get().agent.resume_argv,
            (std::vector<std::string>{"/opt/bin/claude", "--resume", "s1"}));
  Txn same;
  ASSERT_TRUE(f.store.record_agent_session(same, f.pane, AgentKind::Claude, "s1").ok());
  EXPECT_TRUE(same.empty());
  Txn reported;
  ASSERT_TRUE(f.store.record_agent_session(reported, f.pane, AgentKind::Generic, "s1",
                                           std::vector<std::string>{"claude", "-c"})
                  .ok());
  EXPECT_EQ(f.get().agent.kind, AgentKind::Claude);
  EXPECT_EQ(*f.get().agent.resume_argv, (std::vector<std::string>{"claude", "-c"}));
  Txn replaced;
  ASSERT_TRUE(f.store.record_agent_session(replaced, f.pane, AgentKind::Claude, "s2").ok());
  EXPECT_EQ(f.get().session_generation, 2u);
  EXPECT_EQ(names(replaced), std::vector<std::string>{"pane.updated"});
}

TEST(PaneAncestry, TheNearestPaneAncestorWinsAndTheWalkIsBounded) {
  const std::map<std::int64_t, std::int64_t> parents = {
      {500, 400}, {400, 300}, {300, 200}, {200, 1}, {900, 900}};
  auto parent_of = [&](std::int64_t pid) -> std::optional<std::int64_t> {
    auto it = parents.find(pid);
    if (it == parents.end()) return std::nullopt;
    return it->second;
  };
  const std::map<std::int64_t, std::string> panes = {{200, "outer"}, {400, "inner"}, {1, "init"}};
  EXPECT_EQ(agents::pane_of_process(500, panes, parent_of), "inner");
  EXPECT_EQ(agents::pane_of_process(300, panes, parent_of), "outer");
  EXPECT_EQ(agents::pane_of_process(900, panes, parent_of), std::nullopt);
  EXPECT_EQ(agents::pane_of_process(12345, panes, parent_of), std::nullopt);
  // A chain longer than the bound is not followed to its end.
  std::map<std::int64_t, std::string> far = {{2, "far"}};
  auto chain = [](std::int64_t pid) -> std::optional<std::int64_t> { return pid - 1; };
  EXPECT_EQ(agents::pane_of_process(2 + agents::kMaxAncestryDepth, far, chain), "far");
  EXPECT_EQ(agents::pane_of_process(3 + agents::kMaxAncestryDepth, far, chain), std::nullopt);
  // The real /proc: this process's parent chain reaches pid 1.
  EXPECT_TRUE(agents::parent_pid(::getpid()).has_value());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
