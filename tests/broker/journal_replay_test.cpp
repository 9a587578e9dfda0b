// tests/broker/journal_replay_test.cpp: the startup replay of decision 25
// (broker/journal_replay.cpp, broker/store_replay.cpp): a model rebuilt
// from the state images its transactions journaled, over an empty store or
// over a snapshot; records at or below the snapshot's seq left alone;
// lines that are no records and records that do not fit skipped, the rest
// applied.
#include "broker/journal_replay.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/state_image.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
using protocol::Json;
using protocol::Pane;

// A directory of this test's own (tests/broker/temp_dir.hpp).
struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("signaltty-replay") {}
};

Clock fixed_clock() {
  return [] { return std::string("2026-11-30T00:00:00.000Z"); };
}

// The model without the save time, for comparing two stores.
Json model_of(const Store& store) {
  Json j = protocol::encode(store.to_snapshot());
  j.erase("saved_at");
  return j;
}

// A live store whose every transaction is journaled the way the pipeline
// journals it: numbered, the state image on its last record.
class JournaledStore {
 public:
  explicit JournaledStore(const TempDir& dir) {
    auto journal = AuditJournal::open(dir.path());
    if (!journal.ok()) throw std::runtime_error(journal.error().message);
    journal_ = std::move(journal).value();
  }

  // Runs `change` on the store, then journals its transaction.
  void run(const std::function<void(Store&, Txn&)>& change) {
    Txn txn;
    change(store, txn);
    std::string state = journal_state_of(store, txn.events(), txn.touched());
    std::vector<StateEvent> records;
    for (PendingEvent& ev : txn.events())
      records.push_back({++seq, ev.name, ev.payload, "2026-11-30T00:00:00.000Z", {}});
    if (records.empty() && !state.empty())
      records.push_back({++seq, std::string(kStateOnlyRecord), Json::object(), "", {}});
    if (records.empty()) return;
    records.back().state = std::move(state);
    write(records);
  }
  void write(const std::vector<StateEvent>& records) {
    if (!journal_->write_batch(records).ok() || !journal_->sync().ok())
      throw std::runtime_error("journal write failed");
    journal_->publish_view(journal_->durable_view());  // as the pipeline does
  }
  JournalCapture capture() const { return journal_->capture(); }

  Store store{fixed_clock()};
  std::uint64_t seq = 0;

 private:
  std::unique_ptr<AuditJournal> journal_;
};

Pane pane_draft(const std::string& ws) {
  Pane p;
  p.id = new_id("pane");
  p.workspace_id = ws;
  p.title = "cat";
  p.pid = 100;
  p.ptyhost_pid = 99;
  p.process_instance = new_id("proc");
  return p;
}

struct Ids {
  std::string ws, tab, pane, other;
};

// The changes clients get `ok` for, each its own transaction.
Ids build_model(JournaledStore& j) {
  Ids ids;
  j.run([&](Store& s, Txn& t) { ids.ws = s.create_workspace(t, "api", "/").value().id; });
  j.run([&](Store& s, Txn& t) { ids.pane = s.add_pane(t, pane_draft(ids.ws)).value().id; });
  ids.tab = (*j.store.find_pane(ids.pane))->tab_id;
  j.run([&](Store& s, Txn& t) {
    Pane p = pane_draft(ids.ws);
    p.tab_id = ids.tab;
    ids.other = s.add_pane(t, p, ids.pane).value().id;
  });
  j.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.rename_pane(t, ids.pane, "builder").ok()); });
  j.run([&](Store& s, Txn& t) {
    ASSERT_TRUE(s.add_notification(t, {ids.pane, "t", "done", protocol::Severity::Info, "cli"}).ok());
  });
  j.run([&](Store& s, Txn& t) {
    ASSERT_TRUE(s.set_pane_lifecycle(t, ids.pane, protocol::Lifecycle::Working,
                                     LifecycleSource::Hook).ok());
  });
  j.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.mark_pane_seen(t, ids.other, "mark_seen").ok()); });
  j.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.set_ratio(t, ids.tab, {}, 0.3).ok()); });
  j.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.rename_workspace(t, ids.ws, "api2").ok()); });
  return ids;
}

TEST(JournalReplay, EveryJournaledTransactionRebuildsTheModelFromNothing) {
  TempDir dir;
  JournaledStore live(dir);
  const Ids ids = build_model(live);
  Store restored(fixed_clock());
  JournalReplayReport report = replay_journal(live.capture(), 0, restored);
  EXPECT_EQ(report.skipped, 0u);
  EXPECT_EQ(report.not_records, 0u);
  EXPECT_EQ(model_of(restored), model_of(live.store));
  EXPECT_EQ(restored.wait_baseline(ids.pane).value().lifecycle_seq,
            live.store.wait_baseline(ids.pane).value().lifecycle_seq);
  EXPECT_TRUE((*restored.find_pane(ids.other))->last_seen_at.has_value());
}

TEST(JournalReplay, OnlyRecordsAfterTheSnapshotSeqAreAppliedOverIt) {
  TempDir dir;
  JournaledStore live(dir);
  Ids ids;
  live.run([&](Store& s, Txn& t) { ids.ws = s.create_workspace(t, "api", "/").value().id; });
  live.run([&](Store& s, Txn& t) { ids.pane = s.add_pane(t, pane_draft(ids.ws)).value().id; });
  SnapshotDoc snapshot = live.store.to_snapshot();
  const std::uint64_t snapshot_seq = live.seq;
  live.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.rename_pane(t, ids.pane, "late").ok()); });
  live.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.mark_pane_seen(t, ids.pane, "mark_seen").ok()); });

  Store restored = Store::from_snapshot(snapshot, fixed_clock()).value();
  replay_journal(live.capture(), snapshot_seq, restored);
  EXPECT_EQ(model_of(restored), model_of(live.store));

  // The snapshot reflects every record up to its seq: those are not applied again.
  StateImage stale;
  stale.workspaces.push_back(*snapshot.workspaces.begin());
  stale.workspaces.back().name = "stale";
  live.write({{++live.seq, "workspace.updated", Json::object(), "", encode_state_image(stale)}});
  Store untouched = Store::from_snapshot(snapshot, fixed_clock()).value();
  replay_journal(live.capture(), live.seq, untouched);
  EXPECT_EQ((*untouched.find_workspace(ids.ws))->name, "api");
  EXPECT_FALSE((*untouched.find_pane(ids.pane))->name.has_value());
}

TEST(JournalReplay, ARecordWhosePaneHasNoTabIsSkippedAndTheRestApplied) {
  TempDir dir;
  JournaledStore live(dir);
  Ids ids;
  live.run([&](Store& s, Txn& t) { ids.ws = s.create_workspace(t, "api", "/").value().id; });
  Pane orphan = pane_draft(ids.ws);
  orphan.tab_id = "tab_missing";
  StateImage image;
  image.panes.push_back(orphan);
  live.write({{++live.seq, "pane.updated", Json{{"pane_id", orphan.id}}, "", encode_state_image(image)}});
  live.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.rename_workspace(t, ids.ws, "after").ok()); });

  Store restored(fixed_clock());
  JournalReplayReport report = replay_journal(live.capture(), 0, restored);
  EXPECT_EQ(report.skipped, 1u);
  EXPECT_EQ(report.applied, 2u);
  EXPECT_FALSE(restored.find_pane(orphan.id).ok());
  EXPECT_EQ((*restored.find_workspace(ids.ws))->name, "after");
}

TEST(JournalReplay, AnImageThatDoesNotDecodeIsSkipped) {
  TempDir dir;
  JournaledStore live(dir);
  live.write({{++live.seq, "pane.updated", Json::object(), "", R"({"panes":[{"id":7}]})"}});
  Store restored(fixed_clock());
  JournalReplayReport report = replay_journal(live.capture(), 0, restored);
  EXPECT_EQ(report.skipped, 1u);
  EXPECT_EQ(report.applied, 0u);
}

TEST(JournalReplay, GarbageLinesAndATornTailAreSkippedAndTheRecordsApplied) {
  TempDir dir;
  std::string ws;
  {
    JournaledStore live(dir);
    live.run([&](Store& s, Txn& t) { ws = s.create_workspace(t, "api", "/").value().id; });
    std::ofstream(dir.file("audit.jsonl"), std::ios::app) << "not a record\n";
  }
  {
    JournaledStore live(dir);
    live.seq = 1;
    live.run([&](Store& s, Txn& t) {
      ASSERT_TRUE(s.create_workspace(t, "second", "/").ok());
    });
    std::ofstream(dir.file("audit.jsonl"), std::ios::app) << R"({"seq":9,"event":"tab.upd)";
  }
  JournaledStore reopened(dir);  // open() ends the torn line
  Store restored(fixed_clock());
  JournalReplayReport report = replay_journal(reopened.capture(), 0, restored);
  EXPECT_EQ(report.applied, 2u);
  EXPECT_EQ(report.not_records, 2u);
  EXPECT_EQ(restored.workspace_count(), 2u);
  EXPECT_TRUE(restored.find_workspace(ws).ok());
}

TEST(JournalReplay, ARemovedPaneIsGoneWithItsTransitionNumbers) {
  TempDir dir;
  JournaledStore live(dir);
  Ids ids;
  live.run([&](Store& s, Txn& t) { ids.ws = s.create_workspace(t, "api", "/").value().id; });
  live.run([&](Store& s, Txn& t) { ids.pane = s.add_pane(t, pane_draft(ids.ws)).value().id; });
  live.run([&](Store& s, Txn& t) {
    ASSERT_TRUE(s.set_pane_lifecycle(t, ids.pane, protocol::Lifecycle::Done,
                                     LifecycleSource::Hook).ok());
  });
  live.run([&](Store& s, Txn& t) { ASSERT_TRUE(s.remove_pane(t, ids.pane).ok()); });
  Store restored(fixed_clock());
  replay_journal(live.capture(), 0, restored);
  EXPECT_FALSE(restored.find_pane(ids.pane).ok());
  EXPECT_EQ(restored.transitions_of(ids.pane).counter, 0u);
  EXPECT_EQ(model_of(restored), model_of(live.store));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
