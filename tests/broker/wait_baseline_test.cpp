// tests/broker/wait_baseline_test.cpp: the `wait` check and its baseline
// (broker/store_agents.cpp Store::check_wait; docs/rules.md "Wait
// baseline", decision 1): transitions, not states, satisfy a wait with
// `after`; identity is checked first; bad baselines and names are
// BAD_PARAMS; the numbers survive a snapshot round trip.
#include <gtest/gtest.h>

#include "broker/store.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Attention;
using protocol::Lifecycle;
using protocol::Pane;
using protocol::UntilSpec;
using protocol::WaitBaseline;

struct Fixture {
  Store store{[] { return std::string("2026-11-30T00:00:00.000Z"); }};
  std::string id;

  Fixture() {
    Txn txn;
    const std::string ws = store.create_workspace(txn, "w", "/").value().id;
    Pane p;
    p.id = new_id("pane");
    p.workspace_id = ws;
    p.process_instance = new_id("proc");
    id = store.add_pane(txn, p).value().id;
  }
  void lifecycle(Lifecycle l) {
    Txn txn;
    ASSERT_TRUE(store.set_pane_lifecycle(txn, id, l, LifecycleSource::Hook).ok());
  }
  void raise(Attention a) {
    Txn txn;
    ASSERT_TRUE(store.raise_pane_attention(txn, id, a, std::nullopt).ok());
  }
  void seen() {
    Txn txn;
    ASSERT_TRUE(store.mark_pane_seen(txn, id, "mark_seen").ok());
  }
  WaitBaseline baseline() { return store.wait_baseline(id).value(); }
  // The outcome name, "" while nothing matches, or the error code's name.
  std::string check(std::vector<std::string> until, std::optional<WaitBaseline> after) {
    auto r = store.check_wait(id, UntilSpec{std::move(until)}, after);
    if (!r.ok()) return std::string(wire_name(r.error().code));
    return *r ? (*r)->outcome : std::string();
  }
  // Replaces the store by a restart's: the snapshot through its JSON form.
  void restart(const std::function<void(SnapshotDoc&)>& edit = {}) {
    auto doc = protocol::decode<SnapshotDoc>(protocol::encode(store.to_snapshot()));
    ASSERT_TRUE(doc.ok());
    if (edit) edit(*doc);
    store = *Store::from_snapshot(std::move(doc).value(),
                                  [] { return std::string("2026-11-30T00:00:00.000Z"); });
  }
};

TEST(WaitBaseline, PaneGetsBaselineNumbersFollowEachAxis) {
  Fixture f;
  EXPECT_EQ(f.baseline().lifecycle_seq, 0u);
  f.lifecycle(Lifecycle::Working);
  f.raise(Attention::Unread);
  f.lifecycle(Lifecycle::Done);
  const WaitBaseline b = f.baseline();
  EXPECT_EQ(b.pane_id, f.id);
  EXPECT_EQ(b.lifecycle_seq, 3u);
  EXPECT_EQ(b.attention_seq, 2u);
  EXPECT_EQ(b.process_instance, (*f.store.find_pane(f.id))->process_instance);
}

TEST(WaitBaseline, RepeatedSameStateIsNotATransition) {
  Fixture f;
  f.lifecycle(Lifecycle::Done);
  const WaitBaseline b = f.baseline();
  f.lifecycle(Lifecycle::Done);
  EXPECT_EQ(f.check({"done"}, b), "");
  EXPECT_EQ(f.baseline(), b);
}

TEST(WaitBaseline, WorkFinishedBeforeTheWaitArrivesStillMatches) {
  Fixture f;
  f.lifecycle(Lifecycle::Idle);
  const WaitBaseline b = f.baseline();
  f.lifecycle(Lifecycle::Working);
  f.lifecycle(Lifecycle::Done);
  f.lifecycle(Lifecycle::Idle);  // already moved on
  auto r = f.store.check_wait(f.id, UntilSpec{{"done"}}, b);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->outcome, "done");
  EXPECT_EQ((*r)->transition_seq, 3u);
  EXPECT_EQ((*r)->lifecycle, Lifecycle::Idle);
}

TEST(WaitBaseline, AnAttentionChangeCannotValidateAnOldDone) {
  Fixture f;
  f.lifecycle(Lifecycle::Done);
  const WaitBaseline b = f.baseline();
  f.raise(Attention::Unread);
  f.raise(Attention::Error);
  EXPECT_EQ(f.check({"done"}, b), "");
  EXPECT_EQ(f.check({"done", "unread"}, b), "unread");
}

TEST(WaitBaseline, SeenAndAttentionClearedStandForAttentionNone) {
  Fixture f;
  f.raise(Attention::Unread);
  const WaitBaseline b = f.baseline();
  EXPECT_EQ(f.check({"seen"}, b), "");
  f.seen();
  EXPECT_EQ(f.check({"seen"}, b), "seen");
  EXPECT_EQ(f.check({"attention_cleared"}, b), "attention_cleared");
  EXPECT_EQ(f.check({"none"}, b), "none");
}

TEST(WaitBaseline, AlternativesMatchInCallerOrder) {
  Fixture f;
  const WaitBaseline b = f.baseline();
  f.lifecycle(Lifecycle::Failed);
  f.raise(Attention::Error);
  EXPECT_EQ(f.check({"error", "failed"}, b), "error");
  EXPECT_EQ(f.check({"failed", "error"}, b), "failed");
}

TEST(WaitBaseline, WithoutAfterTheCurrentStateMatches) {
  Fixture f;
  EXPECT_EQ(f.check({"none"}, std::nullopt), "none");
  EXPECT_EQ(f.check({"working"}, std::nullopt), "");
  f.lifecycle(Lifecycle::Working);
  EXPECT_EQ(f.check({"done", "working"}, std::nullopt), "working");
  Txn txn;
  ASSERT_TRUE(f.store.pane_exited(txn, f.id, 0, std::nullopt).ok());
  EXPECT_EQ(f.check({"exited"}, std::nullopt), "exited");
}

TEST(WaitBaseline, ExitKeepsIdentitySoExitedMatchesAfterABaseline) {
  Fixture f;
  f.lifecycle(Lifecycle::Working);
  const WaitBaseline b = f.baseline();
  Txn txn;
  ASSERT_TRUE(f.store.pane_exited(txn, f.id, 0, std::nullopt).ok());
  EXPECT_EQ(f.check({"exited"}, b), "exited");
}

TEST(WaitBaseline, ProcessReplacementIsIdentityChangedBeforeState) {
  Fixture f;
  const WaitBaseline b = f.baseline();
  f.lifecycle(Lifecycle::Done);
  Txn txn;
  ASSERT_TRUE(f.store.pane_without_process(txn, f.id).ok());  // gone; a resume follows
  EXPECT_EQ(f.check({"done"}, b), "IDENTITY_CHANGED");
}

struct SessionCase {
  std::optional<std::string> before;
  std::uint64_t before_generation;
  std::optional<std::string> after;
  std::uint64_t after_generation;
  std::string expected;
};

class SessionIdentity : public testing::TestWithParam<SessionCase> {};

TEST_P(SessionIdentity, FirstDiscoveryIsAllowedAnyLaterReplacementIsNot) {
  const SessionCase c = GetParam();
  Fixture f;
  f.restart([&](SnapshotDoc& doc) {
    doc.panes.front().agent.agent_session_id = c.before;
    doc.panes.front().session_generation = c.before_generation;
  });
  const WaitBaseline b = f.baseline();
  f.lifecycle(Lifecycle::Done);
  f.restart([&](SnapshotDoc& doc) {
    doc.panes.front().agent.agent_session_id = c.after;
    doc.panes.front().session_generation = c.after_generation;
  });
  EXPECT_EQ(f.check({"done"}, b), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SessionIdentity,
    testing::Values(SessionCase{std::nullopt, 0, "s1", 1, "done"},
                    SessionCase{"s1", 1, "s1", 1, "done"},
                    SessionCase{"s1", 1, "s2", 2, "IDENTITY_CHANGED"},
                    SessionCase{"s1", 1, "s1", 3, "IDENTITY_CHANGED"},  // back to the original
                    SessionCase{std::nullopt, 0, "s2", 2, "IDENTITY_CHANGED"}));

TEST(WaitBaseline, MalformedOrAheadBaselinesAndBadNamesAreBadParams) {
  Fixture f;
  f.lifecycle(Lifecycle::Working);
  WaitBaseline ahead = f.baseline();
  ahead.lifecycle_seq += 1;
  EXPECT_EQ(f.check({"done"}, ahead), "BAD_PARAMS");
  WaitBaseline attention_ahead = f.baseline();
  attention_ahead.attention_seq = 7;
  EXPECT_EQ(f.check({"done"}, attention_ahead), "BAD_PARAMS");
  WaitBaseline other = f.baseline();
  other.pane_id = "pane_00000000000000000000000000000000";
  EXPECT_EQ(f.check({"done"}, other), "BAD_PARAMS");
  EXPECT_EQ(f.check({"finished"}, std::nullopt), "BAD_PARAMS");
  EXPECT_EQ(f.check({}, std::nullopt), "BAD_PARAMS");
  auto missing = f.store.check_wait("pane_00000000000000000000000000000000", UntilSpec{{"done"}},
                                    std::nullopt);
  EXPECT_EQ(missing.error().code, ErrorCode::NoSuchPane);
}

TEST(WaitBaseline, ABaselineTakenBeforeARestartStaysValid) {
  Fixture f;
  f.lifecycle(Lifecycle::Working);
  f.raise(Attention::Unread);
  const WaitBaseline b = f.baseline();
  const PaneTransitions before = f.store.transitions_of(f.id);
  f.restart();
  EXPECT_EQ(f.store.transitions_of(f.id), before);
  EXPECT_EQ(f.baseline(), b);
  EXPECT_EQ(f.check({"done"}, b), "");
  f.lifecycle(Lifecycle::Done);
  EXPECT_EQ(f.check({"done"}, b), "done");
}

TEST(WaitBaseline, ASnapshotWithoutTransitionsLoadsZeros) {
  Fixture f;
  f.lifecycle(Lifecycle::Done);
  f.restart([](SnapshotDoc& doc) { doc.transitions.clear(); });
  const WaitBaseline b = f.baseline();
  EXPECT_EQ(b.lifecycle_seq, 0u);
  EXPECT_EQ(b.attention_seq, 0u);
  f.lifecycle(Lifecycle::Working);
  EXPECT_EQ(f.check({"working"}, b), "working");
}

TEST(WaitBaseline, RemovingThePaneForgetsItsNumbers) {
  Fixture f;
  f.lifecycle(Lifecycle::Done);
  Txn txn;
  ASSERT_TRUE(f.store.remove_pane(txn, f.id).ok());
  EXPECT_EQ(f.store.to_snapshot().transitions.size(), 0u);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
