// tests/broker/store_panes_test.cpp: the store's pane transitions
// (broker/store_panes.cpp): placement, exit (docs/rules.md, decision 14),
// restore without a process (docs/rules.md, Restore), names, swap and move,
// recovery of an unknown pane (decision 2), and that a refusal changes
// nothing.
#include <gtest/gtest.h>

#include "broker/layout.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {

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

}  // namespace
}  // namespace signaltty::broker
