// tests/broker/agent_axes_test.cpp: the store's two agent axes
// (broker/store_agents.cpp; docs/rules.md "Lifecycle axis", "Attention axis",
// "Clearing (mark seen)", "Attention order", decisions 11, 12 and 14), rule
// by rule, each as a table of cases.
#include <gtest/gtest.h>

#include "broker/store.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Attention;
using protocol::Json;
using protocol::Lifecycle;
using protocol::Pane;
using protocol::Severity;

std::vector<std::string> names(Txn& txn) {
  std::vector<std::string> out;
  for (const PendingEvent& e : txn.events()) out.push_back(e.name);
  return out;
}

std::string text(Lifecycle l) { return protocol::encode(l).get<std::string>(); }
std::string text(Attention a) { return protocol::encode(a).get<std::string>(); }

struct Fixture {
  std::string now = "2026-11-30T00:00:00.000Z";
  Store store{[this] { return now; }};
  std::string ws;

  Fixture() {
    Txn txn;
    ws = store.create_workspace(txn, "w", "/").value().id;
  }
  Pane add() {
    Pane p;
    p.id = new_id("pane");
    p.workspace_id = ws;
    p.title = "agent";
    p.process_instance = new_id("proc");
    Txn txn;
    std::optional<std::string> split_of;
    if (!last.empty()) {
      p.tab_id = (*store.find_pane(last))->tab_id;
      split_of = last;
    }
    last = p.id;
    return store.add_pane(txn, p, split_of).value();
  }
  void lifecycle(const std::string& id, Lifecycle l, LifecycleSource s = LifecycleSource::Hook) {
    Txn txn;
    ASSERT_TRUE(store.set_pane_lifecycle(txn, id, l, s).ok());
  }
  void raise(const std::string& id, Attention a) {
    Txn txn;
    ASSERT_TRUE(store.raise_pane_attention(txn, id, a, std::nullopt).ok());
  }
  const Pane& pane(const std::string& id) { return **store.find_pane(id); }
  std::string last;
};

// ---- lifecycle -----------------------------------------------------------------

struct LifecycleCase {
  Lifecycle from;
  Lifecycle to;
  LifecycleSource source;
  std::string event;  // empty: no event
};

class LifecycleChange : public testing::TestWithParam<LifecycleCase> {};

TEST_P(LifecycleChange, EmitsAgentStateWithPrevAndSourceOnlyWhenTheValueDiffers) {
  const LifecycleCase c = GetParam();
  Fixture f;
  const std::string id = f.add().id;
  if (c.from != Lifecycle::Unknown) f.lifecycle(id, c.from);
  f.now = "2026-11-30T00:00:05.000Z";
  const std::optional<std::string> since_before = f.pane(id).lifecycle_since;
  Txn txn;
  auto pane = f.store.set_pane_lifecycle(txn, id, c.to, c.source);
  ASSERT_TRUE(pane.ok());
  EXPECT_EQ(pane->lifecycle, c.to);
  if (c.event.empty()) {
    EXPECT_TRUE(txn.empty());
    EXPECT_EQ(pane->lifecycle_since, since_before);
    return;
  }
  ASSERT_EQ(names(txn), std::vector<std::string>{c.event});
  const Json& payload = txn.events().front().payload;
  EXPECT_EQ(payload["pane_id"], id);
  EXPECT_EQ(payload["lifecycle"], text(c.to));
  EXPECT_EQ(payload["prev"], text(c.from));
  EXPECT_EQ(payload["source"], std::string(source_name(c.source)));
  EXPECT_EQ(pane->last_lifecycle, c.from);
  EXPECT_EQ(pane->lifecycle_since, "2026-11-30T00:00:05.000Z");
}

INSTANTIATE_TEST_SUITE_P(
    Table, LifecycleChange,
    testing::Values(
        LifecycleCase{Lifecycle::Unknown, Lifecycle::Working, LifecycleSource::Hook, "agent.working"},
        LifecycleCase{Lifecycle::Working, Lifecycle::Blocked, LifecycleSource::Screen, "agent.blocked"},
        LifecycleCase{Lifecycle::Blocked, Lifecycle::Done, LifecycleSource::Osc, "agent.done"},
        LifecycleCase{Lifecycle::Done, Lifecycle::Idle, LifecycleSource::Process, "agent.idle"},
        LifecycleCase{Lifecycle::Idle, Lifecycle::Failed, LifecycleSource::User, "agent.failed"},
        LifecycleCase{Lifecycle::Failed, Lifecycle::Unknown, LifecycleSource::Process, "agent.unknown"},
        LifecycleCase{Lifecycle::Working, Lifecycle::Exited, LifecycleSource::Exit, "agent.exited"},
        LifecycleCase{Lifecycle::Working, Lifecycle::Working, LifecycleSource::Hook, ""},
        LifecycleCase{Lifecycle::Done, Lifecycle::Done, LifecycleSource::Screen, ""},
        LifecycleCase{Lifecycle::Unknown, Lifecycle::Unknown, LifecycleSource::User, ""}));

struct RunCase {
  Lifecycle leave_to;
  std::string left_at;
  std::optional<double> last_run_secs;
};

class LastRun : public testing::TestWithParam<RunCase> {};

TEST_P(LastRun, IsTheLengthOfTheWorkingStretchSetWhenLeavingWorking) {
  const RunCase c = GetParam();
  Fixture f;
  const std::string id = f.add().id;
  f.now = "2026-11-30T10:00:00.000Z";
  f.lifecycle(id, Lifecycle::Working);
  f.now = c.left_at;
  f.lifecycle(id, c.leave_to);
  EXPECT_EQ(f.pane(id).last_run_secs, c.last_run_secs);
}

INSTANTIATE_TEST_SUITE_P(Table, LastRun,
                         testing::Values(RunCase{Lifecycle::Done, "2026-11-30T10:01:30.000Z", 90.0},
                                         RunCase{Lifecycle::Blocked, "2026-11-30T10:00:02.500Z", 2.5},
                                         RunCase{Lifecycle::Working, "2026-11-30T10:05:00.000Z",
                                                 std::nullopt}));

TEST(AgentAxes, LastRunSecsIsNotSetByLeavingAnotherState) {
  Fixture f;
  const std::string id = f.add().id;
  f.lifecycle(id, Lifecycle::Idle);
  f.now = "2026-11-30T00:10:00.000Z";
  f.lifecycle(id, Lifecycle::Done);
  EXPECT_FALSE(f.pane(id).last_run_secs.has_value());
}

TEST(AgentAxes, UnknownPaneIsNoSuchPane) {
  Fixture f;
  Txn txn;
  EXPECT_EQ(f.store.set_pane_lifecycle(txn, "pane_x", Lifecycle::Done, LifecycleSource::Hook)
                .error()
                .code,
            ErrorCode::NoSuchPane);
  EXPECT_TRUE(txn.empty());
}

// ---- attention raise -------------------------------------------------------------

struct RaiseCase {
  Attention from;
  Attention raise;
  Attention after;
  std::string event;  // empty: no event
};

class AttentionRaise : public testing::TestWithParam<RaiseCase> {};

TEST_P(AttentionRaise, TakesTheMaximumAndNeverLowers) {
  const RaiseCase c = GetParam();
  Fixture f;
  const std::string id = f.add().id;
  if (c.from != Attention::None) f.raise(id, c.from);
  Txn txn;
  ASSERT_TRUE(f.store.raise_pane_attention(txn, id, c.raise, std::nullopt).ok());
  EXPECT_EQ(f.pane(id).attention, c.after);
  if (c.event.empty()) {
    EXPECT_TRUE(txn.empty());
    return;
  }
  ASSERT_EQ(names(txn), std::vector<std::string>{c.event});
  const Json& payload = txn.events().front().payload;
  EXPECT_EQ(payload, (Json{{"pane_id", id}, {"attention", text(c.after)}, {"prev", text(c.from)}}));
}

INSTANTIATE_TEST_SUITE_P(
    Table, AttentionRaise,
    testing::Values(
        RaiseCase{Attention::None, Attention::Unread, Attention::Unread, "attention.created"},
        RaiseCase{Attention::None, Attention::Error, Attention::Error, "attention.created"},
        RaiseCase{Attention::Unread, Attention::Warning, Attention::Warning, "attention.updated"},
        RaiseCase{Attention::InputRequired, Attention::PermissionRequired,
                  Attention::PermissionRequired, "attention.updated"},
        RaiseCase{Attention::Error, Attention::Unread, Attention::Error, ""},
        RaiseCase{Attention::PermissionRequired, Attention::InputRequired,
                  Attention::PermissionRequired, ""},
        RaiseCase{Attention::Warning, Attention::Warning, Attention::Warning, ""},
        RaiseCase{Attention::None, Attention::None, Attention::None, ""}));

// ---- notifications raise by severity (decision 11) -----------------------------------

struct NotifyCase {
  Severity severity;
  Attention attention;
};

class NotifyRaise : public testing::TestWithParam<NotifyCase> {};

TEST_P(NotifyRaise, SeverityRaisesItsAttentionOnThePaneOnly) {
  const NotifyCase c = GetParam();
  Fixture f;
  const std::string id = f.add().id;
  const std::string other = f.add().id;
  Txn txn;
  ASSERT_TRUE(f.store.add_notification(txn, {id, "t", "b", c.severity, "cli"}).ok());
  EXPECT_EQ(f.pane(id).attention, c.attention);
  EXPECT_EQ(f.pane(other).attention, Attention::None);
}

INSTANTIATE_TEST_SUITE_P(Table, NotifyRaise,
                         testing::Values(NotifyCase{Severity::Info, Attention::Unread},
                                         NotifyCase{Severity::Warning, Attention::Warning},
                                         NotifyCase{Severity::Error, Attention::Error}));

TEST(AgentAxes, AGlobalNotificationRaisesNoPane) {
  Fixture f;
  const std::string id = f.add().id;
  Txn txn;
  auto record = f.store.add_notification(txn, {std::nullopt, "t", "b", Severity::Error, "cli"});
  ASSERT_TRUE(record.ok());
  EXPECT_FALSE((*record)->contains("pane_id"));
  EXPECT_EQ(f.pane(id).attention, Attention::None);
  EXPECT_EQ(names(txn), std::vector<std::string>{"notification.created"});
}

// ---- clearing (mark seen) ------------------------------------------------------------

struct SeenCase {
  Attention from;
  bool decision_pending;
  Attention after;
  std::vector<std::string> events;
};

class MarkSeen : public testing::TestWithParam<SeenCase> {};

TEST_P(MarkSeen, ClearsOnlyRaisedAttentionWithoutAPendingDecisionAndAlwaysRecordsTheRead) {
  const SeenCase c = GetParam();
  Fixture f;
  const std::string id = f.add().id;
  if (c.from != Attention::None) f.raise(id, c.from);
  if (c.decision_pending) {
    // The hook-event path sets decisions; a snapshot carries one in here.
    SnapshotDoc doc = f.store.to_snapshot();
    for (Pane& p : doc.panes)
      if (p.id == id)
        p.pending_decision = protocol::Decision{"d1", "Allow?", {{"once", "Allow"}}, true, f.now};
    f.store = *Store::from_snapshot(std::move(doc), [&f] { return f.now; });
  }
  f.now = "2026-11-30T01:00:00.000Z";
  Txn txn;
  ASSERT_TRUE(f.store.mark_pane_seen(txn, id, "mark_seen").ok());
  EXPECT_EQ(f.pane(id).attention, c.after);
  EXPECT_EQ(f.pane(id).last_seen_at, "2026-11-30T01:00:00.000Z");
  EXPECT_EQ(names(txn), c.events);
  if (!c.events.empty()) {
    EXPECT_EQ(txn.events().front().payload, (Json{{"pane_id", id}, {"reason", "mark_seen"}}));
  }
  EXPECT_EQ(f.pane(id).attention_since.has_value(), c.after != Attention::None);
}

INSTANTIATE_TEST_SUITE_P(
    Table, MarkSeen,
    testing::Values(SeenCase{Attention::Unread, false, Attention::None, {"attention.cleared"}},
                    SeenCase{Attention::Error, false, Attention::None, {"attention.cleared"}},
                    SeenCase{Attention::None, false, Attention::None, {}},
                    SeenCase{Attention::PermissionRequired, true, Attention::PermissionRequired, {}},
                    SeenCase{Attention::Unread, true, Attention::Unread, {}}));

TEST(AgentAxes, MarkSeenSetsReadAtOnThePanesUnreadNotificationsOnly) {
  Fixture f;
  const std::string id = f.add().id;
  const std::string other = f.add().id;
  Txn txn;
  ASSERT_TRUE(f.store.add_notification(txn, {id, "mine", "", Severity::Info, "cli"}).ok());
  ASSERT_TRUE(f.store.add_notification(txn, {other, "theirs", "", Severity::Info, "cli"}).ok());
  f.now = "2026-11-30T02:00:00.000Z";
  ASSERT_TRUE(f.store.mark_pane_seen(txn, id, "mark_seen").ok());
  const auto& kept = f.store.notifications();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].value("read_at", ""), "2026-11-30T02:00:00.000Z");
  EXPECT_FALSE(kept[1].contains("read_at"));
}

// ---- exit (decision 14) ------------------------------------------------------------------

struct ExitCase {
  Lifecycle lifecycle;
  Attention from;
  Attention after;
};

class ExitAttention : public testing::TestWithParam<ExitCase> {};

TEST_P(ExitAttention, RequiredDropsToUnreadOthersRaiseExceptAReviewedPane) {
  const ExitCase c = GetParam();
  Fixture f;
  const std::string id = f.add().id;
  f.lifecycle(id, c.lifecycle);
  if (c.from != Attention::None) f.raise(id, c.from);
  Txn txn;
  auto pane = f.store.pane_exited(txn, id, 0, std::nullopt);
  ASSERT_TRUE(pane.ok());
  EXPECT_EQ(pane->attention, c.after);
  EXPECT_EQ(pane->lifecycle, Lifecycle::Exited);
  EXPECT_EQ(pane->last_lifecycle, c.lifecycle);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ExitAttention,
    testing::Values(ExitCase{Lifecycle::Blocked, Attention::PermissionRequired, Attention::Unread},
                    ExitCase{Lifecycle::Blocked, Attention::InputRequired, Attention::Unread},
                    ExitCase{Lifecycle::Working, Attention::Error, Attention::Error},
                    ExitCase{Lifecycle::Working, Attention::None, Attention::Unread},
                    ExitCase{Lifecycle::Done, Attention::None, Attention::None},
                    ExitCase{Lifecycle::Failed, Attention::None, Attention::None},
                    ExitCase{Lifecycle::Done, Attention::Unread, Attention::Unread}));

TEST(AgentAxes, ExitLeavingWorkingRecordsTheRunAndSaysItsSource) {
  Fixture f;
  const std::string id = f.add().id;
  f.lifecycle(id, Lifecycle::Working);
  f.now = "2026-11-30T00:00:42.000Z";
  Txn txn;
  ASSERT_TRUE(f.store.pane_exited(txn, id, 1, std::nullopt).ok());
  EXPECT_EQ(f.pane(id).last_run_secs, 42.0);
  const auto exited = std::find_if(txn.events().begin(), txn.events().end(),
                                   [](const PendingEvent& e) { return e.name == "agent.exited"; });
  ASSERT_NE(exited, txn.events().end());
  EXPECT_EQ(exited->payload["source"], "exit");
  EXPECT_EQ(exited->payload["prev"], "working");
}

// ---- attention order -----------------------------------------------------------------

TEST(AgentAxes, PendingRanksBySeverityThenRecencyAndLeavesOutNone) {
  Fixture f;
  const std::string quiet = f.add().id;
  const std::string old_unread = f.add().id;
  const std::string new_unread = f.add().id;
  const std::string error = f.add().id;
  f.now = "2026-11-30T00:00:01.000Z";
  f.raise(old_unread, Attention::Unread);
  f.now = "2026-11-30T00:00:02.000Z";
  f.raise(error, Attention::Error);
  f.now = "2026-11-30T00:00:03.000Z";
  f.raise(new_unread, Attention::Unread);
  std::vector<std::string> order;
  for (const auto& p : f.store.pending_attention(50)) order.push_back(p.pane_id);
  EXPECT_EQ(order, (std::vector<std::string>{error, new_unread, old_unread}));
  ASSERT_EQ(f.store.pending_attention(1).size(), 1u);
  EXPECT_EQ(f.store.pending_attention(1).front().pane_id, error);
  EXPECT_EQ(f.store.pending_attention(1).front().attention_since, "2026-11-30T00:00:02.000Z");
  (void)quiet;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
