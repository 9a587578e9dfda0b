// tests/broker/event_pipeline_test.cpp: numbering, group commit, publication
// only after durability and in seq order, completion order, the
// after_durable barrier, and the fatal stop on a write failure.
#include "broker/event_pipeline.hpp"

#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/limits.hpp"
#include "common/protocol/events.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
using namespace std::chrono_literals;
// Every wait in these tests is bounded by this; none is expected to near it.
constexpr auto kDeadline = 20s;

// A directory of this test's own (tests/broker/temp_dir.hpp).
struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("signaltty-pipeline") {}
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<PendingEvent> pending(int count, int tag = 0) {
  Txn txn;
  for (int i = 0; i < count; ++i)
    txn.emit<protocol::ev::NotificationCreated>(protocol::Json{{"tag", tag}, {"i", i}});
  return std::move(txn.events());
}

// Replaces a file by a non-empty directory: renaming onto it fails.
void make_unwritable(const std::string& path) {
  stdfs::remove(path);
  stdfs::create_directory(path);
  std::ofstream(path + "/occupied") << "x";
}

// Regular-file writes of this process past `bytes` fail with EFBIG (no
// SIGXFSZ) until the end of the scope: a disk that takes nothing more.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit limited{bytes, saved_.rlim_max};
    ::setrlimit(RLIMIT_FSIZE, &limited);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = SIG_DFL;
};

class EventPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto journal = AuditJournal::open(dir_.path());
    ASSERT_TRUE(journal.ok());
    journal_ = std::move(journal).value();
    auto seq = SequenceReservation::open(dir_.path(), journal_->max_seq());
    ASSERT_TRUE(seq.ok());
    seq_.emplace(std::move(seq).value());
  }

  void start(GroupCommit mode = GroupCommit::On,
             std::function<void(const StateEvent&)> also = nullptr) {
    pipeline_.emplace(
        io_, *journal_, *seq_,
        [this, also](const StateEvent& ev) {
          published_.push_back(ev);
          if (also) also(ev);
        },
        mode, [this](const Error& e) { fatal_.set_value(e); });
  }

  // Runs the io thread until every commit has completed.
  void drain() { io_.run_for(kDeadline); }

  std::vector<std::uint64_t> published_seqs() const {
    std::vector<std::uint64_t> out;
    for (const auto& ev : published_) out.push_back(ev.seq);
    return out;
  }

  TempDir dir_;
  std::unique_ptr<AuditJournal> journal_;
  std::optional<SequenceReservation> seq_;
  boost::asio::io_context io_;
  std::vector<StateEvent> published_;
  std::promise<Error> fatal_;
  std::optional<EventPipeline> pipeline_;
};

TEST_F(EventPipelineTest, PublishesOnlyAfterTheRecordIsSyncedAndRecorded) {
  int checked = 0;
  start(GroupCommit::On, [&](const StateEvent& ev) {
    // At publication the record is in the file and inside the recorded length.
    const std::string text = slurp(dir_.file("audit.jsonl"));
    const std::string needle = "{\"seq\":" + std::to_string(ev.seq) + ",";
    auto at = text.find(needle);
    ASSERT_NE(at, std::string::npos);
    auto end = text.find('\n', at);
    auto retention = protocol::Json::parse(slurp(dir_.file("audit-retention.json")));
    EXPECT_GE(retention["current_bytes"].get<std::uint64_t>(), end + 1);
    EXPECT_GE(journal_->capture().files.back().second, end + 1);
    ++checked;
  });
  for (int t = 0; t < 5; ++t) pipeline_->commit(pending(2, t), nullptr);
  EXPECT_TRUE(published_.empty()) << "nothing is published before the io thread runs";
  drain();
  EXPECT_EQ(checked, 10);
}

TEST_F(EventPipelineTest, PublishesInSeqOrderThenCompletesInCommitOrder) {
  std::vector<std::string> trace;
  start(GroupCommit::On, [&](const StateEvent& ev) { trace.push_back("pub" + std::to_string(ev.seq)); });
  for (int t = 0; t < 6; ++t)
    pipeline_->commit(pending(2, t), [&trace, t] { trace.push_back("done" + std::to_string(t)); });
  drain();
  ASSERT_EQ(published_.size(), 12u);
  for (std::size_t i = 0; i < published_.size(); ++i) {
    EXPECT_EQ(published_[i].seq, i + 1);
    EXPECT_EQ(published_[i].name, protocol::ev::NotificationCreated::name);
    EXPECT_FALSE(published_[i].at.empty());
  }
  auto pos = [&](const std::string& s) { return std::find(trace.begin(), trace.end(), s) - trace.begin(); };
  for (int t = 0; t < 6; ++t) {
    EXPECT_GT(pos("done" + std::to_string(t)), pos("pub" + std::to_string(2 * t + 2)));
    if (t > 0) {
      EXPECT_GT(pos("done" + std::to_string(t)), pos("done" + std::to_string(t - 1)));
    }
  }
}

TEST_F(EventPipelineTest, StateImageRidesOnTheLastRecordAndATouchOnlyChangeIsNeverPublished) {
  start();
  pipeline_->set_state_source(
      [](const std::vector<PendingEvent>& events, const std::vector<EntityRef>& touched) {
        return "{\"named\":" + std::to_string(events.size() + touched.size()) + "}";
      });
  pipeline_->commit(pending(2), nullptr);
  Txn touch_only;
  touch_only.touch(EntityKind::Pane, "pane_a");
  pipeline_->commit(std::move(touch_only), nullptr);
  drain();
  EXPECT_EQ(published_seqs(), (std::vector<std::uint64_t>{1, 2}));
  for (const auto& ev : published_) EXPECT_TRUE(ev.state.empty()) << "published without its image";

  std::vector<protocol::Json> records;
  std::stringstream lines(slurp(dir_.file("audit.jsonl")));
  for (std::string line; std::getline(lines, line);) records.push_back(protocol::Json::parse(line));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_FALSE(records[0].contains("state"));
  EXPECT_EQ(records[1]["state"], (protocol::Json{{"named", 2}}));
  EXPECT_EQ(records[2]["event"], std::string(kStateOnlyRecord));
  EXPECT_EQ(records[2]["state"], (protocol::Json{{"named", 1}}));
  JournalCapture capture = journal_->capture();
  auto replayed = AuditJournal::read_records(capture, 0, 3);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(replayed->size(), 2u) << "a state-only record is no event to replay";
}

TEST_F(EventPipelineTest, ConcurrentCommitsShareOneFsync) {
  start(GroupCommit::On);
  constexpr int kCommits = 2000;
  int done = 0;
  for (int t = 0; t < kCommits; ++t) pipeline_->commit(pending(1, t), [&done] { ++done; });
  drain();
  EXPECT_EQ(done, kCommits);
  EXPECT_EQ(pipeline_->events_journaled(), static_cast<std::uint64_t>(kCommits));
  EXPECT_LT(pipeline_->fsync_count(), static_cast<std::uint64_t>(kCommits))
      << "commits made while a group was being synced share the next sync";
  EXPECT_EQ(published_.size(), static_cast<std::size_t>(kCommits));
}

TEST_F(EventPipelineTest, GroupCommitOffSyncsEveryEvent) {
  start(GroupCommit::Off);
  for (int t = 0; t < 10; ++t) pipeline_->commit(pending(2, t), nullptr);
  drain();
  EXPECT_EQ(pipeline_->events_journaled(), 20u);
  EXPECT_EQ(pipeline_->fsync_count(), 20u);
  EXPECT_EQ(published_.size(), 20u);
}

TEST_F(EventPipelineTest, AfterDurableRunsAtOnceWhenNothingIsInFlight) {
  start();
  bool ran = false;
  pipeline_->after_durable([&] { ran = true; });
  EXPECT_TRUE(ran);
  bool empty_commit_ran = false;
  pipeline_->commit(Txn{}, [&] { empty_commit_ran = true; });
  EXPECT_TRUE(empty_commit_ran);
}

TEST_F(EventPipelineTest, AfterDurableWaitsForEveryEarlierCommit) {
  start();
  std::vector<std::string> trace;
  pipeline_->commit(pending(3), [&] { trace.push_back("commit"); });
  pipeline_->after_durable([&] {
    trace.push_back("barrier published=" + std::to_string(published_.size()));
  });
  pipeline_->commit(Txn{}, [&] { trace.push_back("empty"); });
  EXPECT_TRUE(trace.empty());
  drain();
  EXPECT_EQ(trace, (std::vector<std::string>{"commit", "barrier published=3", "empty"}));
}

TEST_F(EventPipelineTest, EphemeralSeqsConsumeNumbersButAreNeverJournaled) {
  start();
  EXPECT_EQ(pipeline_->head_seq(), 0u);
  EXPECT_EQ(pipeline_->take_ephemeral_seq(), 1u);
  EXPECT_EQ(pipeline_->take_ephemeral_seq(), 2u);
  pipeline_->commit(pending(1), nullptr);
  EXPECT_EQ(pipeline_->head_seq(), 3u);
  drain();
  EXPECT_EQ(published_seqs(), (std::vector<std::uint64_t>{3}));
  const std::string text = slurp(dir_.file("audit.jsonl"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST_F(EventPipelineTest, JournalWriteFailureIsFatalAndPublishesNothing) {
  start();
  bool done = false;
  auto fatal = fatal_.get_future();
  {
    FileSizeLimit full(0);
    pipeline_->commit(pending(2), [&] { done = true; });
    ASSERT_EQ(fatal.wait_for(kDeadline), std::future_status::ready);
  }
  EXPECT_EQ(fatal.get().code, ErrorCode::IoError);
  pipeline_->commit(pending(1), [&] { done = true; });
  io_.poll();  // runs anything the journal thread posted before it stopped
  EXPECT_TRUE(published_.empty());
  EXPECT_FALSE(done);
}

TEST_F(EventPipelineTest, ReservationWriteFailureIsFatalBeforeAnythingIsJournaled) {
  start();
  for (std::uint64_t i = 0; i < limits::kSeqReservationBlock; ++i) pipeline_->take_ephemeral_seq();
  make_unwritable(dir_.file("event-sequence.json"));
  bool done = false;
  pipeline_->commit(pending(1), [&] { done = true; });
  auto fatal = fatal_.get_future();
  ASSERT_EQ(fatal.wait_for(0s), std::future_status::ready) << "numbering fails on the io thread";
  EXPECT_EQ(fatal.get().code, ErrorCode::IoError);
  pipeline_->shutdown();
  io_.poll();
  EXPECT_TRUE(published_.empty());
  EXPECT_FALSE(done);
  EXPECT_EQ(pipeline_->events_journaled(), 0u);
}

TEST_F(EventPipelineTest, ShutdownWritesEveryQueuedGroupBeforeJoining) {
  start();
  for (int t = 0; t < 50; ++t) pipeline_->commit(pending(1, t), nullptr);
  pipeline_->shutdown();
  EXPECT_EQ(pipeline_->events_journaled(), 50u);
  const std::string text = slurp(dir_.file("audit.jsonl"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 50);
  drain();
  EXPECT_EQ(published_.size(), 50u) << "drained groups still publish while the pipeline lives";
}

TEST_F(EventPipelineTest, RestartNumbersAboveEverythingJournaledBefore) {
  start();
  pipeline_->commit(pending(3), nullptr);
  drain();
  pipeline_.reset();
  const std::uint64_t ceiling = seq_->reserved();
  seq_.reset();
  journal_.reset();

  auto journal = AuditJournal::open(dir_.path());
  ASSERT_TRUE(journal.ok());
  EXPECT_TRUE((*journal)->history_provable());
  EXPECT_EQ((*journal)->max_seq(), 3u);
  auto seq = SequenceReservation::open(dir_.path(), (*journal)->max_seq());
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq->next(), ceiling + 1);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
