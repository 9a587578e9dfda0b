// tests/broker/store_panes_test.cpp: the store's pane transitions
// (broker/store_panes.cpp): placement, exit (docs/rules.md, decision 14),
// restore without a process (docs/rules.md, Restore), names, swap and move,
// recovery of an unknown pane (decision 2), and that a refusal changes
// nothing.
#include <gtest/gtest.h>

#include "broker/layout.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Attention;
using protocol::Lifecycle;
using protocol::Pane;
using protocol::RestoreState;

std::vector<std::string> names(Txn& txn) {
  std::vector<std::string> out;
  for (const PendingEvent& e : txn.events()) out.push_back(e.name);
  return out;
}

struct Fixture {
  Store store{[] { return std::string("2026-11-30T00:00:00.000Z"); }};
  std::string ws;

  Fixture() {
    Txn txn;
    ws = store.create_workspace(txn, "w", "/").value().id;
  }
  Pane draft(std::string tab_id = {}) {
    Pane p;
    p.id = new_id("pane");
    p.workspace_id = ws;
    p.tab_id = std::move(tab_id);
    p.title = "cat";
    p.pid = 100;
    p.ptyhost_pid = 99;
    p.process_instance = new_id("proc");
    return p;
  }
  Pane add(std::optional<std::string> split_of = std::nullopt) {
    Txn txn;
    std::string tab;
    if (split_of) tab = (*store.find_pane(*split_of))->tab_id;
    return store.add_pane(txn, draft(tab), split_of).value();
  }
};

TEST(StorePane, FirstPaneCreatesTheAgentsTabAndBecomesActive) {
  Fixture f;
  Txn txn;
  auto pane = f.store.add_pane(txn, f.draft());
  ASSERT_TRUE(pane.ok());
  EXPECT_EQ(names(txn), (std::vector<std::string>{"tab.created", "workspace.updated",
                                                  "pane.created", "tab.updated"}));
  const protocol::Tab* tab = *f.store.find_tab(pane->tab_id);
  EXPECT_EQ(tab->title, "agents");
  EXPECT_EQ(tab->active_pane_id, pane->id);
  EXPECT_EQ(*tab->layout, Layout::leaf(pane->id));
}

TEST(StorePane, SpawnTargetRefusesATabWithPanes) {
  Fixture f;
  Pane a = f.add();
  EXPECT_EQ(f.store.spawn_target_tab(f.ws, std::nullopt).error().code, ErrorCode::BadParams);
  EXPECT_EQ(f.store.spawn_target_tab(f.ws, a.tab_id).error().code, ErrorCode::BadParams);
  EXPECT_EQ(f.store.spawn_target_tab(f.ws, "tab_00000000000000000000000000000000").error().code,
            ErrorCode::NoSuchTab);
  Txn txn;
  auto tab = f.store.create_tab(txn, f.ws, std::nullopt);
  EXPECT_EQ(*f.store.spawn_target_tab(f.ws, std::nullopt), tab->id);
}

TEST(StorePane, SplitPlacesTheNewPaneBesideTheSource) {
  Fixture f;
  Pane a = f.add();
  Pane b = f.add(a.id);
  const protocol::Tab* tab = *f.store.find_tab(a.tab_id);
  EXPECT_EQ(leaves(*tab->layout), (std::vector<std::string>{a.id, b.id}));
}

TEST(StorePane, ExitRecordsCodeLifecycleAndRaisesUnreadOnce) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  auto exited = f.store.pane_exited(txn, a.id, 3, std::nullopt);
  ASSERT_TRUE(exited.ok());
  EXPECT_EQ(names(txn), (std::vector<std::string>{"pane.exited", "agent.exited", "attention.created"}));
  EXPECT_EQ(exited->live.state, "exited");
  EXPECT_EQ(*exited->live.code->value, 3);
  EXPECT_EQ(exited->restore_state, RestoreState::Exited);
  EXPECT_EQ(exited->lifecycle, Lifecycle::Exited);
  EXPECT_EQ(exited->attention, Attention::Unread);
  EXPECT_FALSE(exited->pid.has_value());
  EXPECT_EQ(txn.events()[1].payload["outcome"], "failed");
  Txn again;
  ASSERT_TRUE(f.store.pane_exited(again, a.id, 3, std::nullopt).ok());
  EXPECT_TRUE(again.empty());
}

TEST(StorePane, SignalDeathHasNullCodeAndTheSignalName) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  auto exited = f.store.pane_exited(txn, a.id, std::nullopt, "KILL");
  EXPECT_FALSE(exited->exit_code->has_value());
  EXPECT_EQ(**exited->exit_signal, "KILL");
  EXPECT_TRUE(txn.events()[0].payload["code"].is_null());
  EXPECT_EQ(txn.events()[0].payload["signal"], "KILL");
}

TEST(StorePane, PaneWithoutItsPtyhostIsRestoredOrExited) {
  Fixture f;
  Pane live = f.add();
  Pane done = f.add(live.id);
  Txn txn;
  ASSERT_TRUE(f.store.pane_exited(txn, done.id, 0, std::nullopt).ok());
  auto restored = f.store.pane_without_process(txn, live.id);
  EXPECT_EQ(restored->restore_state, RestoreState::Restored);
  EXPECT_EQ(restored->live.state, "exited");
  EXPECT_FALSE(restored->ptyhost_pid.has_value());
  EXPECT_NE(restored->process_instance, live.process_instance);
  auto tomb = f.store.pane_without_process(txn, done.id);
  EXPECT_EQ(tomb->restore_state, RestoreState::Exited);
}

TEST(StorePane, NamesAreUniqueSlugsAndFindable) {
  Fixture f;
  Pane a = f.add();
  Pane b = f.add(a.id);
  Txn txn;
  ASSERT_TRUE(f.store.rename_pane(txn, a.id, "alpha").ok());
  EXPECT_EQ((*f.store.find_pane("alpha"))->id, a.id);
  EXPECT_EQ(f.store.rename_pane(txn, b.id, "alpha").error().code, ErrorCode::BadParams);
  EXPECT_EQ(f.store.rename_pane(txn, b.id, "Alpha").error().code, ErrorCode::BadParams);
  EXPECT_EQ(f.store.rename_pane(txn, b.id, a.id).error().code, ErrorCode::BadParams);
  EXPECT_FALSE((*f.store.find_pane(b.id))->name.has_value());
}

TEST(StorePane, SwapAcrossTabsExchangesSlotsAndTabs) {
  Fixture f;
  Pane a = f.add();
  Pane b = f.add(a.id);
  Txn t;
  auto tab2 = f.store.create_tab(t, f.ws, std::nullopt);
  Txn t2;
  Pane c = f.store.add_pane(t2, f.draft(tab2->id)).value();
  Txn txn;
  auto tabs = f.store.swap_panes(txn, a.id, c.id);
  ASSERT_TRUE(tabs.ok());
  EXPECT_EQ(names(txn), (std::vector<std::string>{"tab.updated", "tab.updated", "pane.updated",
                                                  "pane.updated"}));
  EXPECT_EQ((*f.store.find_pane(a.id))->tab_id, tab2->id);
  EXPECT_EQ(leaves(*(*f.store.find_tab(b.tab_id))->layout), (std::vector<std::string>{c.id, b.id}));
  EXPECT_EQ((*f.store.find_tab(b.tab_id))->active_pane_id, b.id);
}

TEST(StorePane, MoveEmptiesTheSourceTabAndSplitsTheTarget) {
  Fixture f;
  Pane a = f.add();
  Txn t;
  auto tab2 = f.store.create_tab(t, f.ws, std::nullopt);
  Pane c = f.store.add_pane(t, f.draft(tab2->id)).value();
  Txn txn;
  ASSERT_TRUE(f.store.move_pane(txn, c.id, a.id, protocol::SplitDir::Down).ok());
  EXPECT_FALSE((*f.store.find_tab(tab2->id))->layout.has_value());
  const protocol::Tab* target = *f.store.find_tab(a.tab_id);
  EXPECT_EQ(leaves(*target->layout), (std::vector<std::string>{a.id, c.id}));
  EXPECT_EQ((*target->layout).dir, protocol::SplitDir::Down);
  Txn refused;
  EXPECT_EQ(f.store.move_pane(refused, a.id, a.id, protocol::SplitDir::Right).error().code,
            ErrorCode::BadParams);
  EXPECT_TRUE(refused.empty());
}

TEST(StorePane, UnknownPaneGoesBackToItsTabOrIntoRecovered) {
  Fixture f;
  Pane a = f.add();
  Pane home = f.draft(a.tab_id);
  Txn txn;
  auto back = f.store.add_recovered_pane(txn, home);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tab_id, a.tab_id);
  Pane lost = f.draft("tab_00000000000000000000000000000000");
  lost.workspace_id = "ws_00000000000000000000000000000000";
  auto recovered = f.store.add_recovered_pane(txn, lost);
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ((*f.store.find_workspace(recovered->workspace_id))->name, "recovered");
  Pane second = f.draft("tab_00000000000000000000000000000000");
  second.workspace_id = "ws_00000000000000000000000000000000";
  EXPECT_EQ(f.store.add_recovered_pane(txn, second)->workspace_id, recovered->workspace_id);
}

TEST(StorePane, ResizeClampsAndEmitsOnlyOnChange) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  auto r = f.store.resize_pane(txn, a.id, {1, 1000});
  EXPECT_EQ(r->pty_size, (protocol::PtySize{20, 200}));
  EXPECT_EQ(names(txn), (std::vector<std::string>{"pane.resized"}));
  Txn same;
  ASSERT_TRUE(f.store.resize_pane(same, a.id, {20, 200}).ok());
  EXPECT_TRUE(same.empty());
}

// docs/rules.md (Model), Lifecycle axis: agent.* events carry {pane_id, lifecycle, prev}
// (docs/rules.md, decision 12 adds source, §14 the exit fields).
TEST(StorePane, AgentExitedCarriesLifecycleAndPrev) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  ASSERT_TRUE(f.store.pane_exited(txn, a.id, 0, std::nullopt).ok());
  const protocol::Json& payload = txn.events()[1].payload;
  ASSERT_EQ(txn.events()[1].name, "agent.exited");
  EXPECT_EQ(payload["lifecycle"], "exited");
  EXPECT_EQ(payload["prev"], "unknown");
  EXPECT_EQ(payload["source"], "exit");
  EXPECT_EQ(payload["outcome"], "done");
}

NotificationDraft osc(const std::string& pane_id, std::optional<std::string> title,
                      std::string body, std::string source = "osc777") {
  return NotificationDraft{pane_id, std::move(title), std::move(body), protocol::Severity::Info,
                           std::move(source)};
}

TEST(StorePane, AnOscNotificationIsARecordAnEventAndTheLastMessage) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  auto made = f.store.add_notification(txn, osc(a.id, "build", "done\x1b[31m red"));
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE(made->has_value());
  const protocol::Json& n = **made;
  EXPECT_TRUE(n["id"].get<std::string>().starts_with("notif_"));
  EXPECT_EQ(n["pane_id"], a.id);
  EXPECT_EQ(n["workspace_id"], f.ws);
  EXPECT_EQ(n["title"], "build");
  EXPECT_EQ(n["body"], "done[31m red");  // the escape is neutralized
  EXPECT_EQ(n["severity"], "info");
  EXPECT_EQ(n["source"], "osc777");
  EXPECT_EQ(names(txn), (std::vector<std::string>{"notification.created", "attention.created"}));
  EXPECT_EQ(txn.events()[0].payload, protocol::Json({{"notification", n}}));
  const Pane& now = **f.store.find_pane(a.id);
  EXPECT_EQ(now.last_message, "build: done[31m red");
  EXPECT_EQ(now.attention, Attention::Unread);
  EXPECT_EQ(f.store.notifications().size(), 1u);
}

TEST(StorePane, LastMessageCutsTheBodyAtThreeHundredCharsOnlyWithATitle) {
  Fixture f;
  Pane a = f.add();
  std::string body;
  for (int i = 0; i < 301; ++i) body += "\u00e9";  // two bytes each
  Txn txn;
  ASSERT_TRUE(f.store.add_notification(txn, osc(a.id, "t", body)).ok());
  std::string cut;
  for (int i = 0; i < 300; ++i) cut += "\u00e9";
  EXPECT_EQ((*f.store.find_pane(a.id))->last_message, "t: " + cut + "\u2026");
  ASSERT_TRUE(f.store.add_notification(txn, osc(a.id, std::nullopt, body, "osc9")).ok());
  EXPECT_EQ((*f.store.find_pane(a.id))->last_message, body);
  EXPECT_EQ(f.store.notifications().back()["title"], "signaltty");
}

TEST(StorePane, AnOscProgressReportIsNoNotification) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  auto progress = f.store.add_notification(txn, osc(a.id, std::nullopt, "4;1;50", "osc9"));
  ASSERT_TRUE(progress.ok());
  EXPECT_FALSE(progress->has_value());
  EXPECT_TRUE(txn.empty());
  EXPECT_TRUE(f.store.notifications().empty());
  EXPECT_EQ((*f.store.find_pane(a.id))->attention, Attention::None);
}

TEST(StorePane, TheServerKeepsTheLastTwoHundredNotificationsAndSavesThem) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  for (int i = 0; i < 205; ++i)
    ASSERT_TRUE(f.store.add_notification(txn, osc(a.id, std::nullopt, "n" + std::to_string(i))).ok());
  ASSERT_EQ(f.store.notifications().size(), 200u);
  EXPECT_EQ(f.store.notifications().front()["body"], "n5");
  auto restored = Store::from_snapshot(f.store.to_snapshot());
  ASSERT_TRUE(restored.ok());
  ASSERT_EQ(restored->notifications().size(), 200u);
  EXPECT_EQ(restored->notifications().back()["body"], "n204");
}

TEST(StorePane, SeverityRaisesAttentionAndANotificationForAnUnknownPaneIsRefused) {
  Fixture f;
  Pane a = f.add();
  Txn txn;
  NotificationDraft warn = osc(a.id, "t", "b");
  warn.severity = protocol::Severity::Error;
  ASSERT_TRUE(f.store.add_notification(txn, warn).ok());
  EXPECT_EQ((*f.store.find_pane(a.id))->attention, Attention::Error);
  Txn refused;
  auto unknown = f.store.add_notification(refused, osc("pane_00000000000000000000000000000000", "t", "b"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::NoSuchPane);
  EXPECT_TRUE(refused.empty());
}

// docs/rules.md (Panes and PTYs), Output path: touch last_activity_at, no event; rate-limited so
// output is never journaled or counted as a change.
TEST(StorePane, OutputMovesLastActivityAtMostOncePerIntervalWithoutAnEvent) {
  std::string now = "2026-11-30T00:00:00.000Z";
  Store store{[&now] { return now; }};
  Txn setup;
  const std::string ws = store.create_workspace(setup, "w", "/").value().id;
  Pane draft;
  draft.id = new_id("pane");
  draft.workspace_id = ws;
  draft.title = "cat";
  draft.last_activity_at = now;
  ASSERT_TRUE(store.add_pane(setup, draft).ok());
  const std::uint64_t revision = store.revision();
  const auto t0 = std::chrono::steady_clock::now();
  now = "2026-11-30T00:00:05.000Z";
  store.note_output(draft.id, t0);
  EXPECT_EQ((*store.find_pane(draft.id))->last_activity_at, "2026-11-30T00:00:05.000Z");
  now = "2026-11-30T00:00:05.500Z";
  store.note_output(draft.id, t0 + limits::kActivityTouchInterval / 2);
  EXPECT_EQ((*store.find_pane(draft.id))->last_activity_at, "2026-11-30T00:00:05.000Z");
  now = "2026-11-30T00:00:06.000Z";
  store.note_output(draft.id, t0 + limits::kActivityTouchInterval);
  EXPECT_EQ((*store.find_pane(draft.id))->last_activity_at, "2026-11-30T00:00:06.000Z");
  EXPECT_EQ(store.revision(), revision);
}

// docs/rules.md "Detection without hooks", live process refresh: a generic
// or none pane is promoted, never a known one; the cwd follows only a clean
// absolute path; one pane.updated for both, nothing without a change.
TEST(StorePane, ProcessRefreshPromotesGenericPanesAndMovesTheCwd) {
  Fixture f;
  Pane pane = f.add();
  ASSERT_EQ(pane.agent.kind, protocol::AgentKind::None);  // promoted from none as from generic
  Txn txn;
  auto r = f.store.refresh_pane_process(txn, pane.id, protocol::AgentKind::Codex, "/tmp");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->agent.kind, protocol::AgentKind::Codex);
  EXPECT_EQ(r->cwd, "/tmp");
  EXPECT_EQ(names(txn), (std::vector<std::string>{"pane.updated"}));

  Txn again;
  ASSERT_TRUE(f.store.refresh_pane_process(again, pane.id, protocol::AgentKind::Codex, "/tmp").ok());
  EXPECT_TRUE(again.events().empty());

  Txn demote;
  auto kept = f.store.refresh_pane_process(demote, pane.id, protocol::AgentKind::Claude, std::nullopt);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->agent.kind, protocol::AgentKind::Codex);
  Txn generic;
  ASSERT_TRUE(f.store.refresh_pane_process(generic, pane.id, protocol::AgentKind::Generic, std::nullopt).ok());
  EXPECT_EQ((*f.store.find_pane(pane.id))->agent.kind, protocol::AgentKind::Codex);
  EXPECT_TRUE(demote.events().empty());
  EXPECT_TRUE(generic.events().empty());
}

TEST(StorePane, ProcessRefreshIgnoresAnUncleanCwd) {
  Fixture f;
  Pane pane = f.add();
  const std::string before = pane.cwd;
  for (const std::string& bad : {std::string("relative/dir"), std::string("/tmp/a\x1b]0;x\x07"),
                                std::string("/tmp/\xff\xfe"), std::string()}) {
    Txn txn;
    ASSERT_TRUE(f.store.refresh_pane_process(txn, pane.id, std::nullopt, bad).ok());
    EXPECT_TRUE(txn.events().empty()) << bad;
    EXPECT_EQ((*f.store.find_pane(pane.id))->cwd, before);
  }
  Txn txn;
  EXPECT_EQ(f.store.refresh_pane_process(txn, "pane_nope", std::nullopt, "/tmp").error().code,
            ErrorCode::NoSuchPane);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
