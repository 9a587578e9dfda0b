// tests/broker/snapshot_store_test.cpp: snapshot.json round trip, corrupt
// files set aside, unknown versions refused, and the debounced scheduler.
#include "broker/snapshot_store.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
using namespace std::chrono_literals;
using protocol::Layout;
using protocol::SplitDir;
// Every wait in these tests is bounded by this; none is expected to near it.
constexpr auto kDeadline = 20s;
constexpr auto kShortDebounce = 50ms;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (stdfs::temp_directory_path() / "signaltty-snapshot-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    stdfs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string snapshot() const { return path_ + "/snapshot.json"; }

  std::vector<std::string> corrupt_copies() const {
    std::vector<std::string> out;
    for (const auto& entry : stdfs::directory_iterator(path_))
      if (entry.path().filename().string().rfind("snapshot.corrupt-", 0) == 0)
        out.push_back(entry.path().string());
    return out;
  }

 private:
  std::string path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

protocol::Workspace workspace(const std::string& id, const std::string& name) {
  protocol::Workspace ws;
  ws.id = id;
  ws.name = name;
  ws.handle = name;
  ws.cwd = "/home/user/" + name;
  ws.git.root = ws.cwd;
  ws.git.branch = "main";
  ws.git.dirty = true;
  ws.tabs = {"tab_1", "tab_2"};
  ws.active_tab_id = "tab_2";
  ws.redact = true;
  ws.created_at = "2026-01-01T00:00:00.000Z";
  ws.updated_at = "2026-01-02T00:00:00.000Z";
  return ws;
}

SnapshotDoc sample_doc() {
  SnapshotDoc doc;
  doc.workspaces = {workspace("ws_1", "api"), workspace("ws_2", "web")};
  protocol::Tab split;
  split.id = "tab_1";
  split.workspace_id = "ws_1";
  split.title = "main";
  split.layout = Layout::split(SplitDir::Right, 0.3, Layout::leaf("pane_a"),
                               Layout::split(SplitDir::Down, 0.7, Layout::leaf("pane_b"),
                                             Layout::leaf("pane_c")));
  split.active_pane_id = "pane_b";
  split.created_at = "2026-01-01T00:00:00.000Z";
  protocol::Tab empty;
  empty.id = "tab_2";
  empty.workspace_id = "ws_1";
  empty.title = "empty";
  doc.tabs = {split, empty};
  doc.notifications = {protocol::Json{{"id", "n_1"}, {"text", "hello"}}};
  return doc;
}

TEST(SnapshotStore, MissingSnapshotLoadsAsNothing) {
  TempDir dir;
  auto doc = load_snapshot(dir.path());
  ASSERT_TRUE(doc.ok());
  EXPECT_FALSE(doc->has_value());
}

TEST(SnapshotStore, RoundTripRestoresWorkspacesAndTabsExactly) {
  TempDir dir;
  const SnapshotDoc saved = sample_doc();
  ASSERT_TRUE(save_snapshot(dir.path(), saved).ok());
  struct stat st {};
  ASSERT_EQ(::stat(dir.snapshot().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  auto loaded = load_snapshot(dir.path());
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->has_value());
  const SnapshotDoc& doc = **loaded;
  EXPECT_EQ(doc.version, kSnapshotVersion);
  EXPECT_FALSE(doc.saved_at.empty());
  EXPECT_EQ(doc.workspaces, saved.workspaces);
  EXPECT_EQ(doc.tabs, saved.tabs);
  EXPECT_FALSE(doc.tabs[1].layout.has_value()) << "an empty tab keeps layout null";
  EXPECT_EQ(doc.notifications, saved.notifications);
}

TEST(SnapshotStore, UnparsableSnapshotIsSetAsideAndLoadsEmpty) {
  TempDir dir;
  put(dir.snapshot(), "{\"version\":1,\"workspaces\":[");
  auto doc = load_snapshot(dir.path());
  ASSERT_TRUE(doc.ok());
  EXPECT_FALSE(doc->has_value());
  EXPECT_FALSE(stdfs::exists(dir.snapshot()));
  auto copies = dir.corrupt_copies();
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(slurp(copies[0]), "{\"version\":1,\"workspaces\":[");

  // A second corrupt snapshot in the same second never replaces the first.
  put(dir.snapshot(), "not json either");
  ASSERT_TRUE(load_snapshot(dir.path()).ok());
  EXPECT_EQ(dir.corrupt_copies().size(), 2u);
}

TEST(SnapshotStore, SnapshotThatDoesNotDecodeIsSetAside) {
  TempDir dir;
  put(dir.snapshot(), R"({"version":1,"workspaces":"not a list"})");
  auto doc = load_snapshot(dir.path());
  ASSERT_TRUE(doc.ok());
  EXPECT_FALSE(doc->has_value());
  EXPECT_EQ(dir.corrupt_copies().size(), 1u);
}

TEST(SnapshotStore, UnknownVersionRefusesToStartAndKeepsTheFile) {
  TempDir dir;
  const std::string text = R"({"version":2,"workspaces":[]})";
  put(dir.snapshot(), text);
  auto doc = load_snapshot(dir.path());
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::IoError);
  EXPECT_NE(doc.error().message.find("version 2"), std::string::npos) << doc.error().message;
  EXPECT_EQ(slurp(dir.snapshot()), text);
  EXPECT_TRUE(dir.corrupt_copies().empty());
}

// A model stand-in: its name and revision change together.
struct FakeModel {
  std::string name = "first";
  std::uint64_t revision = 1;
  int built = 0;
  std::vector<std::chrono::steady_clock::time_point> built_at;
  SnapshotDoc build() {
    ++built;
    built_at.push_back(std::chrono::steady_clock::now());
    SnapshotDoc doc;
    doc.workspaces = {workspace("ws_1", name)};
    return doc;
  }
  void change(const std::string& n) {
    name = n;
    ++revision;
  }
};

class SnapshotSchedulerTest : public ::testing::Test {
 protected:
  std::string saved_name() {
    auto doc = load_snapshot(dir_.path());
    if (!doc.ok() || !doc->has_value() || (*doc)->workspaces.empty()) return {};
    return (*doc)->workspaces[0].name;
  }

  TempDir dir_;
  boost::asio::io_context io_;
  FakeModel model_;
};

TEST_F(SnapshotSchedulerTest, CoalescesMarksIntoOneSaveOfTheLatestState) {
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  const auto marked_at = std::chrono::steady_clock::now();
  scheduler.mark_dirty();
  model_.change("second");
  scheduler.mark_dirty();
  model_.change("third");
  scheduler.mark_dirty();
  EXPECT_FALSE(stdfs::exists(dir_.snapshot())) << "nothing is written before the interval";
  io_.run_for(kDeadline);  // returns once the save has completed
  EXPECT_EQ(scheduler.saves_completed(), 1u);
  EXPECT_EQ(model_.built, 1);
  EXPECT_GE(model_.built_at[0] - marked_at, kShortDebounce);
  EXPECT_EQ(saved_name(), "third");
}

TEST_F(SnapshotSchedulerTest, SavesAtMostOncePerInterval) {
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  scheduler.mark_dirty();
  io_.run_for(kDeadline);
  io_.restart();
  model_.change("later");
  const auto marked_again_at = std::chrono::steady_clock::now();
  scheduler.mark_dirty();
  io_.run_for(kDeadline);
  ASSERT_EQ(model_.built, 2);
  EXPECT_GE(model_.built_at[1] - model_.built_at[0], kShortDebounce);
  EXPECT_GE(model_.built_at[1] - marked_again_at, kShortDebounce);
  EXPECT_EQ(saved_name(), "later");
}

TEST_F(SnapshotSchedulerTest, UnchangedRevisionIsNotSavedAgain) {
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  scheduler.mark_dirty();
  io_.run_for(kDeadline);
  io_.restart();
  scheduler.mark_dirty();
  io_.run_for(kDeadline);
  EXPECT_EQ(model_.built, 1);
  EXPECT_EQ(scheduler.saves_completed(), 1u);
}

TEST_F(SnapshotSchedulerTest, SaveNowWritesAtOnceAndCancelsThePendingSave) {
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  scheduler.mark_dirty();
  model_.change("final");
  ASSERT_TRUE(scheduler.save_now().ok());
  EXPECT_EQ(saved_name(), "final");
  io_.run_for(kDeadline);  // the cancelled timer completes without a save
  EXPECT_EQ(model_.built, 1);
  EXPECT_EQ(scheduler.saves_completed(), 1u);
}

// Runs the loop until `done` holds or the deadline passes.
template <class Pred>
bool run_until(boost::asio::io_context& io, Pred done) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!done() && std::chrono::steady_clock::now() < deadline) io.run_one_until(deadline);
  return done();
}

TEST_F(SnapshotSchedulerTest, FailedSaveIsCountedAndTheSchedulerCarriesOn) {
  const std::string missing_dir = dir_.path() + "/missing";
  SnapshotScheduler scheduler(io_, missing_dir, [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  scheduler.mark_dirty();
  ASSERT_TRUE(run_until(io_, [&] { return scheduler.saves_failed() >= 1; }));
  EXPECT_EQ(scheduler.saves_completed(), 0u);
  EXPECT_FALSE(scheduler.save_now().ok());
}

TEST_F(SnapshotSchedulerTest, FailedDebouncedSaveStaysPendingAndIsRetriedWithoutAnotherMark) {
  stdfs::create_directory(dir_.snapshot());  // rename onto a directory fails
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  scheduler.mark_dirty();
  ASSERT_TRUE(run_until(io_, [&] { return scheduler.saves_failed() >= 1; }));
  stdfs::remove(dir_.snapshot());
  ASSERT_TRUE(run_until(io_, [&] { return scheduler.saves_completed() == 1; }));
  EXPECT_EQ(saved_name(), "first");
}

TEST_F(SnapshotSchedulerTest, FailedSaveNowOrRetryStaysPendingAndIsRetried) {
  stdfs::create_directory(dir_.snapshot());
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  testing::internal::CaptureStderr();
  scheduler.save_now_or_retry();
  const std::string logged = testing::internal::GetCapturedStderr();
  EXPECT_EQ(scheduler.saves_failed(), 1u);
  EXPECT_NE(logged.find("snapshot: save failed"), std::string::npos) << logged;
  EXPECT_NE(logged.find("snapshot.json"), std::string::npos) << "the error is named: " << logged;
  stdfs::remove(dir_.snapshot());
  ASSERT_TRUE(run_until(io_, [&] { return scheduler.saves_completed() == 1; }));
  EXPECT_EQ(saved_name(), "first");
}

TEST_F(SnapshotSchedulerTest, ChangeWithoutAMarkIsSavedWhenAnyoneAsksIfChanged) {
  SnapshotScheduler scheduler(io_, dir_.path(), [this] { return model_.build(); },
                              [this] { return model_.revision; }, kShortDebounce);
  ASSERT_TRUE(scheduler.save_now().ok());
  scheduler.mark_if_changed();  // same revision: nothing armed, the loop has no work
  EXPECT_EQ(io_.run_for(kDeadline), 0u);
  io_.restart();
  EXPECT_EQ(model_.built, 1);
  model_.change("seen");  // a change that emitted no event
  scheduler.mark_if_changed();
  ASSERT_TRUE(run_until(io_, [&] { return scheduler.saves_completed() == 2; }));
  EXPECT_EQ(saved_name(), "seen");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
