// tests/broker/snapshot_rotation_test.cpp: the rotating copies in
// snapshots/: taken when the snapshot is saved and the newest copy is at
// least 15 min old, at most 48 kept (oldest removed), never of an empty
// model, files 0600 in a 0700 directory; dated by an injected clock.
#include "broker/snapshot_rotation.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "broker/snapshot_store.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
using namespace std::chrono_literals;
using std::chrono::system_clock;

class SnapshotRotationTest : public ::testing::Test {
 protected:
  SnapshotRotationTest() {
    std::string tmpl = (stdfs::temp_directory_path() / "signaltty-rotation-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
    dir_ = tmpl;
  }
  ~SnapshotRotationTest() override {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }
  std::string copies_dir() const { return dir_ + "/snapshots"; }
  std::vector<std::string> copies() const {
    if (!stdfs::exists(copies_dir())) return {};
    auto listed = list_snapshot_copies(copies_dir());
    return listed.ok() ? *listed : std::vector<std::string>{};
  }
  void save_at(system_clock::time_point t, const SnapshotDoc& doc) {
    ASSERT_TRUE(save_snapshot(dir_, doc, t).ok());
  }
  static SnapshotDoc session(const std::string& name) {
    SnapshotDoc doc;
    protocol::Workspace ws;
    ws.id = "ws_1";
    ws.name = name;
    doc.workspaces = {ws};
    return doc;
  }

  std::string dir_;
  // 2026-01-01T00:00:00Z, a fixed wall clock.
  const system_clock::time_point t0_ = system_clock::from_time_t(1767225600);
};

TEST_F(SnapshotRotationTest, FirstSaveOfASessionTakesADatedCopy) {
  save_at(t0_, session("api"));
  ASSERT_EQ(copies(), std::vector<std::string>{"snapshot-20260101T000000.json"});
  std::ifstream in(copies_dir() + "/" + copies()[0]);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"api\""), std::string::npos) << text;
}

TEST_F(SnapshotRotationTest, NoSecondCopyWithinFifteenMinutes) {
  save_at(t0_, session("a"));
  save_at(t0_ + 1min, session("b"));
  save_at(t0_ + 14min + 59s, session("c"));
  EXPECT_EQ(copies().size(), 1u);
}

TEST_F(SnapshotRotationTest, NextCopyOnceTheNewestIsFifteenMinutesOld) {
  save_at(t0_, session("a"));
  save_at(t0_ + 15min, session("b"));
  EXPECT_EQ(copies(), (std::vector<std::string>{"snapshot-20260101T000000.json",
                                                "snapshot-20260101T001500.json"}));
}

TEST_F(SnapshotRotationTest, KeepsAtMostFortyEightRemovingTheOldest) {
  const int saves = static_cast<int>(limits::kSnapshotCopiesKept) + 3;
  for (int i = 0; i < saves; ++i) save_at(t0_ + i * 15min, session("s" + std::to_string(i)));
  const auto kept = copies();
  ASSERT_EQ(kept.size(), limits::kSnapshotCopiesKept);
  EXPECT_EQ(kept.front(), "snapshot-20260101T004500.json") << "the three oldest are gone";
}

TEST_F(SnapshotRotationTest, EmptyModelIsNeverCopied) {
  save_at(t0_, SnapshotDoc{});
  EXPECT_TRUE(copies().empty());
  save_at(t0_ + 1h, session("a"));
  save_at(t0_ + 2h, SnapshotDoc{});
  EXPECT_EQ(copies().size(), 1u);
}

TEST_F(SnapshotRotationTest, CopiesArePrivateFilesInAPrivateDirectory) {
  save_at(t0_, session("a"));
  struct stat st {};
  ASSERT_EQ(::stat(copies_dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(::stat((copies_dir() + "/" + copies()[0]).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(SnapshotRotationTest, ForeignFilesInTheDirectoryAreLeftAlone) {
  stdfs::create_directory(copies_dir());
  ::chmod(copies_dir().c_str(), 0700);
  std::ofstream(copies_dir() + "/notes.txt") << "mine";
  for (int i = 0; i < static_cast<int>(limits::kSnapshotCopiesKept) + 1; ++i)
    save_at(t0_ + i * 15min, session("s"));
  EXPECT_TRUE(stdfs::exists(copies_dir() + "/notes.txt"));
}

TEST_F(SnapshotRotationTest, SchedulerDatesCopiesByItsInjectedClock) {
  boost::asio::io_context io;
  system_clock::time_point now = t0_;
  SnapshotScheduler scheduler(
      io, dir_, [] { return session("a"); }, [] { return std::uint64_t{1}; },
      limits::kSnapshotDebounce, [&now] { return now; });
  ASSERT_TRUE(scheduler.save_now().ok());
  now += 15min;
  ASSERT_TRUE(scheduler.save_now().ok());
  EXPECT_EQ(copies(), (std::vector<std::string>{"snapshot-20260101T000000.json",
                                                "snapshot-20260101T001500.json"}));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
