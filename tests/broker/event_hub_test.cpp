// tests/broker/event_hub_test.cpp: the event hub's live fan-out, filters,
// ring, and every replay status of docs/rules.md "Replay", against a real
// audit journal in a temporary state dir.
#include "broker/event_hub.hpp"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include "broker/audit_journal.hpp"
#include "common/limits.hpp"
#include "common/protocol/envelope.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace p = protocol;
using p::ReplayStatus;

// A real Session: records every line it is given, and when a close was asked.
class RecordingSession : public Session {
 public:
  explicit RecordingSession(std::uint64_t id, std::size_t cap_lines = SIZE_MAX)
      : id_(id), cap_lines_(cap_lines) {}

  void send(std::string line) override {
    if (closed_) return;
    if (lines_.size() >= cap_lines_) {  // like a connection past its queue cap
      closed_ = true;
      return;
    }
    lines_.push_back(std::move(line));
  }
  void close_after_flush() override {
    if (!close_requested_) lines_at_close_ = lines_.size();
    close_requested_ = true;
  }
  bool closed() const override { return closed_; }
  std::uint64_t session_id() const override { return id_; }
  pid_t peer_pid() const override { return 0; }

  void disconnect() { closed_ = true; }
  const std::vector<std::string>& lines() const { return lines_; }
  bool close_requested() const { return close_requested_; }
  std::size_t lines_at_close() const { return lines_at_close_; }

 private:
  std::uint64_t id_;
  std::size_t cap_lines_;
  std::vector<std::string> lines_;
  bool close_requested_ = false;
  std::size_t lines_at_close_ = 0;
  bool closed_ = false;
};

// What one session saw, decoded: the reply (first line) and event seqs.
struct Seen {
  std::optional<p::Response> reply;  // the last one
  std::size_t replies = 0;
  std::vector<std::uint64_t> seqs;
  std::vector<std::string> names;
  bool events_before_reply = false;
};

Seen decode_lines(const RecordingSession& session) {
  Seen seen;
  for (const auto& line : session.lines()) {
    auto msg = p::decode_server_line(std::string_view(line).substr(0, line.size() - 1));
    EXPECT_TRUE(msg.ok()) << line;
    if (!msg.ok()) continue;
    if (auto* r = std::get_if<p::Response>(&*msg)) {
      seen.reply = *r;
      ++seen.replies;
      continue;
    }
    auto& ev = std::get<p::EventMessage>(*msg);
    if (!seen.reply) seen.events_before_reply = true;
    seen.seqs.push_back(ev.seq);
    seen.names.push_back(ev.event);
  }
  return seen;
}

p::SubscribeResult result_of(const Seen& seen) {
  EXPECT_EQ(seen.replies, 1u);
  EXPECT_TRUE(seen.reply && seen.reply->ok) << (seen.reply ? seen.reply->error.message : "");
  auto r = p::decode<p::SubscribeResult>(seen.reply ? seen.reply->result : p::Json::object());
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : p::SubscribeResult{};
}

std::vector<std::uint64_t> range(std::uint64_t first, std::uint64_t last) {
  std::vector<std::uint64_t> out;
  for (auto s = first; s <= last; ++s) out.push_back(s);
  return out;
}

StateEvent event(std::uint64_t seq, std::string name = "pane.closed",
                 p::Json payload = {{"pane_id", "pane_x"}}) {
  return StateEvent{seq, std::move(name), std::move(payload), "2024-01-01T00:00:00Z"};
}

std::vector<StateEvent> events(std::uint64_t first, std::uint64_t last) {
  std::vector<StateEvent> out;
  for (auto s = first; s <= last; ++s) out.push_back(event(s));
  return out;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "/event_hub_test.XXXXXX";
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class EventHubTest : public ::testing::Test {
 protected:
  // Opens the journal (after `prepare` wrote whatever the dir should hold).
  void open_journal(const std::function<void(const std::string&)>& prepare = {}) {
    if (prepare) prepare(dir_.path());
    auto j = AuditJournal::open(dir_.path());
    ASSERT_TRUE(j.ok()) << j.error().message;
    journal_ = std::move(j).value();
  }
  void make_hub(std::uint64_t start_head) {
    if (!journal_) open_journal();
    hub_ = std::make_unique<EventHub>(io_, *journal_, start_head);
  }
  // What the pipeline does for one group: journal, sync, then publish.
  void journal_only(const std::vector<StateEvent>& evs) {
    ASSERT_TRUE(journal_->write_batch(evs).ok());
    ASSERT_TRUE(journal_->sync().ok());
    journal_->publish_view(journal_->durable_view());
  }
  void commit(const std::vector<StateEvent>& evs) {
    journal_only(evs);
    for (const auto& ev : evs) hub_->publish(ev);
  }
  std::shared_ptr<RecordingSession> session(std::size_t cap_lines = SIZE_MAX) {
    return std::make_shared<RecordingSession>(next_session_id_++, cap_lines);
  }
  // Subscribes the way the router does: an error goes out at once, a
  // result through the pipeline's barrier (here: now, or at flush_barrier()).
  void subscribe(const std::shared_ptr<RecordingSession>& s, p::SubscribeParams params) {
    auto filter = make_event_filter(params);
    ASSERT_TRUE(filter.ok()) << filter.error().message;
    auto reply = [this, s](Result<p::SubscribeResult> r) {
      if (!r.ok()) return s->send(p::encode_error("sub", r.error()));
      after_barrier([s, line = p::encode_ok("sub", p::encode(*r))] { s->send(line); });
    };
    hub_->subscribe(s, std::move(filter).value(), params.from_seq,
                    std::max(issued_head_, hub_->published_head()), reply,
                    [this](std::function<void()> then) { after_barrier(std::move(then)); });
  }
  // The pipeline's after_durable: FIFO, deferred while a commit is in flight.
  void after_barrier(std::function<void()> then) {
    if (!commit_in_flight_) return then();
    barrier_.push_back(std::move(then));
  }
  void finish_commit_in_flight() {
    commit_in_flight_ = false;
    for (auto& then : std::exchange(barrier_, {})) then();
  }
  void subscribe_from(const std::shared_ptr<RecordingSession>& s, std::uint64_t from_seq) {
    p::SubscribeParams params;
    params.from_seq = from_seq;
    subscribe(s, params);
  }
  // Runs io handlers until `done` holds; fails after a generous deadline.
  void run_until(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done() && std::chrono::steady_clock::now() < deadline)
      io_.run_one_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(done()) << "condition not reached before the deadline";
  }
  void run_until_replied(const std::shared_ptr<RecordingSession>& s) {
    run_until([&] { return decode_lines(*s).reply.has_value(); });
  }
  void expect_refused(const std::shared_ptr<RecordingSession>& s, ReplayStatus status) {
    Seen seen = decode_lines(*s);
    auto r = result_of(seen);
    EXPECT_FALSE(r.subscribed);
    ASSERT_TRUE(r.replay.has_value());
    EXPECT_EQ(r.replay->status, status);
    EXPECT_EQ(r.replay->returned, 0u);
    EXPECT_EQ(r.replay->recovery, std::string(p::kRecoverySnapshotThenResubscribe));
    EXPECT_TRUE(seen.seqs.empty());
    EXPECT_TRUE(s->close_requested());
    EXPECT_EQ(s->lines_at_close(), 1u);
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  TempDir dir_;
  std::unique_ptr<AuditJournal> journal_;
  std::unique_ptr<EventHub> hub_;
  std::uint64_t next_session_id_ = 1;
  // The highest number the pipeline issued, when pty.data took some past
  // the published head.
  std::uint64_t issued_head_ = 0;
  bool commit_in_flight_ = false;
  std::vector<std::function<void()>> barrier_;
};

// Writes a journal from before the retention file existed.
void write_legacy_journal(const std::string& dir, std::uint64_t last_seq) {
  std::ofstream out(dir + "/audit.jsonl");
  for (std::uint64_t s = 1; s <= last_seq; ++s)
    out << AuditJournal::encode_record(event(s)) << "\n";
}

// ---- filters ---------------------------------------------------------------

TEST(EventFilter, UnknownSelectorIsBadParamsNamingItsIndex) {
  p::SubscribeParams params;
  params.events = std::vector<std::string>{"agent.*", "pane.created", "agent.bogus"};
  auto r = make_event_filter(params);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  EXPECT_EQ(r.error().details["field"], "events[2]");
  EXPECT_NE(r.error().message.find("events[2]"), std::string::npos);
}

TEST(EventFilter, GlobsAndNamesSelectTheirEvents) {
  p::SubscribeParams params;
  params.events = std::vector<std::string>{"agent.*", "tab.created"};
  auto filter = make_event_filter(params);
  ASSERT_TRUE(filter.ok());
  EXPECT_TRUE(filter->selects(event(1, "agent.done")));
  EXPECT_TRUE(filter->selects(event(1, "tab.created")));
  EXPECT_FALSE(filter->selects(event(1, "tab.closed")));
  EXPECT_FALSE(filter->selects(event(1, "attention.created")));
}

TEST(EventFilter, AbsentOrEmptyEventsSelectEverything) {
  auto absent = make_event_filter(p::SubscribeParams{});
  ASSERT_TRUE(absent.ok());
  EXPECT_TRUE(absent->selects(event(1, "server.will_shutdown")));
  p::SubscribeParams empty;
  empty.events = std::vector<std::string>{};
  auto none = make_event_filter(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->selects(event(1, "workspace.created")));
}

TEST(EventFilter, TaskIdsFilterEventsNamingATaskAndPassOthers) {
  EventFilter filter{{}, {"task_a"}};
  EXPECT_TRUE(filter.selects(event(1, "task.updated", {{"task", {{"id", "task_a"}}}})));
  EXPECT_FALSE(filter.selects(event(1, "task.updated", {{"task", {{"id", "task_b"}}}})));
  EXPECT_TRUE(filter.selects(event(1, "task.result", {{"task_id", "task_a"}})));
  EXPECT_FALSE(filter.selects(event(1, "task.result", {{"task_id", "task_b"}})));
  EXPECT_TRUE(filter.selects(event(1, "pane.closed", {{"pane_id", "pane_x"}})));
}

TEST(EventFilter, TaskIdsAndGlobsMustBothPass) {
  EventFilter filter{{"agent.*"}, {"task_a"}};
  EXPECT_FALSE(filter.selects(event(1, "task.result", {{"task_id", "task_a"}})));
  EXPECT_TRUE(filter.selects(event(1, "agent.done", {{"pane_id", "pane_x"}})));
  EXPECT_FALSE(filter.selects(event(1, "agent.done", {{"task_id", "task_b"}})));
}

// ---- live stream -------------------------------------------------------------

TEST_F(EventHubTest, SubscribeWithoutFromSeqRepliesFenceAndStreamsLaterEvents) {
  make_hub(0);
  commit(events(1, 3));
  auto s = session();
  subscribe(s, {});
  commit(events(4, 6));
  Seen seen = decode_lines(*s);
  auto r = result_of(seen);
  EXPECT_TRUE(r.subscribed);
  EXPECT_EQ(r.seq, 3u);
  EXPECT_FALSE(r.replay.has_value());
  EXPECT_EQ(seen.seqs, range(4, 6));
  EXPECT_FALSE(seen.events_before_reply);
}

TEST_F(EventHubTest, LiveStreamDeliversOnlySelectedEvents) {
  make_hub(0);
  auto s = session();
  p::SubscribeParams params;
  params.events = std::vector<std::string>{"agent.*"};
  params.task_ids = std::vector<std::string>{"task_a"};
  subscribe(s, params);
  commit({event(1, "pane.closed"), event(2, "agent.done", {{"pane_id", "pane_x"}}),
          event(3, "agent.working", {{"task_id", "task_b"}}),
          event(4, "agent.blocked", {{"task_id", "task_a"}})});
  EXPECT_EQ(decode_lines(*s).seqs, (std::vector<std::uint64_t>{2, 4}));
}

TEST_F(EventHubTest, SecondSubscribeReplacesFilterAndFence) {
  make_hub(0);
  auto s = session();
  p::SubscribeParams tabs;
  tabs.events = std::vector<std::string>{"tab.*"};
  subscribe(s, tabs);
  commit({event(1, "tab.created"), event(2, "agent.done")});
  p::SubscribeParams agents;
  agents.events = std::vector<std::string>{"agent.*"};
  subscribe(s, agents);
  commit({event(3, "tab.created"), event(4, "agent.done")});
  EXPECT_EQ(hub_->subscriber_count(), 1u);
  EXPECT_EQ(decode_lines(*s).seqs, (std::vector<std::uint64_t>{1, 4}));
}

TEST_F(EventHubTest, DropSessionForgetsItsSubscription) {
  make_hub(0);
  auto s = session();
  subscribe(s, {});
  hub_->drop_session(s->session_id());
  commit(events(1, 2));
  EXPECT_EQ(hub_->subscriber_count(), 0u);
  EXPECT_TRUE(decode_lines(*s).seqs.empty());
}

TEST_F(EventHubTest, ClosedSessionIsSkippedAndForgotten) {
  make_hub(0);
  auto open = session();
  auto gone = session();
  subscribe(open, {});
  subscribe(gone, {});
  gone->disconnect();
  commit(events(1, 2));
  EXPECT_EQ(hub_->subscriber_count(), 1u);
  EXPECT_EQ(decode_lines(*open).seqs, range(1, 2));
}

TEST_F(EventHubTest, LaggingSessionIsClosedByItsQueueAndDropped) {
  make_hub(0);
  auto slow = session(/*cap_lines=*/3);
  subscribe(slow, {});
  commit(events(1, 5));
  EXPECT_TRUE(slow->closed());
  commit(events(6, 6));
  EXPECT_EQ(hub_->subscriber_count(), 0u);
}

TEST_F(EventHubTest, EventNotAboveHeadIsNotPublished) {
  make_hub(10);
  auto s = session();
  subscribe(s, {});
  hub_->publish(event(10));
  hub_->publish(event(11));
  hub_->publish(event(11));
  EXPECT_EQ(hub_->published_head(), 11u);
  EXPECT_EQ(decode_lines(*s).seqs, (std::vector<std::uint64_t>{11}));
}

// ---- replies that wait for the pipeline's barrier ------------------------------

TEST_F(EventHubTest, LiveEventsWaitBehindADeferredReply) {
  make_hub(0);
  commit(events(1, 2));
  commit_in_flight_ = true;
  auto s = session();
  subscribe(s, {});
  hub_->publish(event(3));  // the in-flight group is published before its dones run
  EXPECT_TRUE(s->lines().empty());
  finish_commit_in_flight();
  Seen seen = decode_lines(*s);
  EXPECT_EQ(result_of(seen).seq, 2u);
  EXPECT_EQ(seen.seqs, (std::vector<std::uint64_t>{3}));
  EXPECT_FALSE(seen.events_before_reply);
}

TEST_F(EventHubTest, ReplayFramesAndLiveEventsWaitBehindADeferredReply) {
  make_hub(0);
  commit(events(1, 5));
  commit_in_flight_ = true;
  auto s = session();
  subscribe_from(s, 2);
  hub_->publish(event(6));
  hub_->publish(event(7));
  EXPECT_TRUE(s->lines().empty());
  finish_commit_in_flight();
  Seen seen = decode_lines(*s);
  auto r = result_of(seen);
  EXPECT_EQ(r.seq, 5u);
  EXPECT_EQ(r.replay->returned, 3u);
  EXPECT_EQ(seen.seqs, range(3, 7));
  EXPECT_FALSE(seen.events_before_reply);
}

TEST_F(EventHubTest, RefusedReplayClosesOnlyAfterItsDeferredReply) {
  make_hub(0);
  commit_in_flight_ = true;
  auto s = session();
  subscribe_from(s, 1);
  EXPECT_FALSE(s->close_requested());
  finish_commit_in_flight();
  expect_refused(s, ReplayStatus::CursorAhead);
}

TEST_F(EventHubTest, LiveEventsPilingUpBehindADeferredReplyCloseTheSession) {
  make_hub(0);
  commit_in_flight_ = true;
  auto s = session();
  subscribe(s, {});
  for (const auto& ev : events(1, limits::kReplayMaxEvents + 1)) hub_->publish(ev);
  finish_commit_in_flight();
  Seen seen = decode_lines(*s);
  EXPECT_TRUE(result_of(seen).subscribed);
  EXPECT_TRUE(seen.seqs.empty());
  EXPECT_TRUE(s->close_requested());
  EXPECT_EQ(hub_->subscriber_count(), 0u);
}

// ---- ring ------------------------------------------------------------------

TEST_F(EventHubTest, RingRetainedAfterStartsAtStartHeadAndFollowsEvictions) {
  make_hub(100);
  EXPECT_EQ(hub_->ring_retained_after(), 100u);
  EXPECT_EQ(hub_->published_head(), 100u);
  commit(events(101, 100 + limits::kEventRingSize));
  EXPECT_EQ(hub_->ring_retained_after(), 100u);
  commit(events(101 + limits::kEventRingSize, 110 + limits::kEventRingSize));
  EXPECT_EQ(hub_->ring_retained_after(), 110u);
  EXPECT_EQ(hub_->published_head(), 110 + limits::kEventRingSize);
}

// ---- replay statuses -------------------------------------------------------

TEST_F(EventHubTest, ReplayFromRingIsCompleteAscendingThenLive) {
  make_hub(0);
  commit(events(1, 10));
  auto s = session();
  subscribe_from(s, 4);
  commit(events(11, 12));
  Seen seen = decode_lines(*s);
  auto r = result_of(seen);
  EXPECT_TRUE(r.subscribed);
  EXPECT_EQ(r.seq, 10u);
  ASSERT_TRUE(r.replay.has_value());
  EXPECT_EQ(r.replay->status, ReplayStatus::Complete);
  EXPECT_EQ(r.replay->requested_after, 4u);
  EXPECT_EQ(r.replay->retained_after, 0u);
  EXPECT_EQ(r.replay->through, 10u);
  EXPECT_EQ(r.replay->returned, 6u);
  EXPECT_FALSE(r.replay->recovery.has_value());
  EXPECT_EQ(seen.seqs, range(5, 12));
  EXPECT_FALSE(seen.events_before_reply);
  EXPECT_FALSE(s->close_requested());
}

TEST_F(EventHubTest, ReplayFiltersBeforeCounting) {
  make_hub(0);
  commit({event(1, "tab.created"), event(2, "agent.done"), event(3, "tab.closed")});
  auto s = session();
  p::SubscribeParams params;
  params.events = std::vector<std::string>{"tab.*"};
  params.from_seq = 0;
  subscribe(s, params);
  Seen seen = decode_lines(*s);
  EXPECT_EQ(result_of(seen).replay->returned, 2u);
  EXPECT_EQ(seen.seqs, (std::vector<std::uint64_t>{1, 3}));
}

TEST_F(EventHubTest, ReplayFromHeadIsCompleteAndEmpty) {
  make_hub(7);
  auto s = session();
  subscribe_from(s, 7);
  auto r = result_of(decode_lines(*s));
  EXPECT_TRUE(r.subscribed);
  EXPECT_EQ(r.replay->status, ReplayStatus::Complete);
  EXPECT_EQ(r.replay->returned, 0u);
}

TEST_F(EventHubTest, CursorAheadIsRefusedAndClosed) {
  make_hub(0);
  commit(events(1, 5));
  auto s = session();
  subscribe_from(s, 6);
  expect_refused(s, ReplayStatus::CursorAhead);
  auto r = result_of(decode_lines(*s));
  EXPECT_EQ(r.seq, 5u);
  EXPECT_EQ(r.replay->requested_after, 6u);
  EXPECT_EQ(r.replay->through, 5u);
  commit(events(6, 6));
  EXPECT_EQ(s->lines().size(), 1u);
  EXPECT_EQ(hub_->subscriber_count(), 0u);
}

// pty.data lines consume numbers (docs/rules.md (Panes and PTYs), Output path), so server.status.seq
// runs ahead of the published head; a cursor there is a cursor we issued.
TEST_F(EventHubTest, CursorOnNumbersPtyDataConsumedIsCompleteAndEmptyThenLive) {
  make_hub(0);
  commit(events(1, 5));
  issued_head_ = 9;  // 6..9 went to pty.data
  auto s = session();
  subscribe_from(s, 9);
  auto r = result_of(decode_lines(*s));
  EXPECT_TRUE(r.subscribed);
  ASSERT_TRUE(r.replay.has_value());
  EXPECT_EQ(r.replay->status, ReplayStatus::Complete);
  EXPECT_EQ(r.replay->requested_after, 9u);
  EXPECT_EQ(r.replay->through, 5u);
  EXPECT_EQ(r.replay->returned, 0u);
  EXPECT_FALSE(r.replay->recovery.has_value());
  EXPECT_EQ(r.seq, 5u);
  EXPECT_FALSE(s->close_requested());
  commit(events(10, 12));
  EXPECT_EQ(decode_lines(*s).seqs, range(10, 12));
}

// A state event numbered below the cursor but published after the subscribe
// was never sent to anyone, so the cursor cannot cover it.
TEST_F(EventHubTest, CursorPastTheHeadStillGetsEventsPublishedLaterBelowIt) {
  make_hub(0);
  commit(events(1, 5));
  issued_head_ = 9;  // 6 is a state event still being journaled
  auto s = session();
  subscribe_from(s, 9);
  EXPECT_TRUE(result_of(decode_lines(*s)).subscribed);
  commit(events(6, 6));
  commit(events(10, 10));
  EXPECT_EQ(decode_lines(*s).seqs, (std::vector<std::uint64_t>{6, 10}));
}

TEST_F(EventHubTest, CursorAboveEveryIssuedNumberIsAhead) {
  make_hub(0);
  commit(events(1, 5));
  issued_head_ = 9;
  auto s = session();
  subscribe_from(s, 10);
  expect_refused(s, ReplayStatus::CursorAhead);
  EXPECT_EQ(result_of(decode_lines(*s)).replay->requested_after, 10u);
}

TEST_F(EventHubTest, RefusedReplayEndsThePreviousSubscription) {
  make_hub(0);
  auto s = session();
  subscribe(s, {});
  subscribe_from(s, 99);
  EXPECT_EQ(hub_->subscriber_count(), 0u);
}

TEST_F(EventHubTest, UnprovableJournalBelowRingIsUnavailable) {
  open_journal([](const std::string& dir) { write_legacy_journal(dir, 5); });
  ASSERT_FALSE(journal_->history_provable());
  make_hub(5);
  auto s = session();
  subscribe_from(s, 2);
  expect_refused(s, ReplayStatus::Unavailable);
  EXPECT_EQ(result_of(decode_lines(*s)).replay->retained_after, 5u);
}

TEST_F(EventHubTest, UnprovableJournalStillReplaysWhatTheRingCovers) {
  open_journal([](const std::string& dir) { write_legacy_journal(dir, 5); });
  make_hub(5);
  commit(events(6, 9));
  auto s = session();
  subscribe_from(s, 5);
  Seen seen = decode_lines(*s);
  EXPECT_EQ(result_of(seen).replay->status, ReplayStatus::Complete);
  EXPECT_EQ(seen.seqs, range(6, 9));
}

TEST_F(EventHubTest, ReplayFromProvableJournalAfterRestartIsComplete) {
  open_journal();
  journal_only(events(1, 20));
  make_hub(20);  // a restart: the ring is empty, the journal holds 1..20
  auto s = session();
  subscribe_from(s, 12);
  EXPECT_TRUE(s->lines().empty());  // the journal is read off the io thread
  run_until_replied(s);
  Seen seen = decode_lines(*s);
  auto r = result_of(seen);
  EXPECT_TRUE(r.subscribed);
  EXPECT_EQ(r.replay->status, ReplayStatus::Complete);
  EXPECT_EQ(r.replay->retained_after, 0u);
  EXPECT_EQ(r.replay->returned, 8u);
  EXPECT_EQ(seen.seqs, range(13, 20));
}

TEST_F(EventHubTest, JournalAndRingOverlapIsDeduplicatedAscending) {
  open_journal();
  make_hub(0);
  commit(events(1, 1100));  // ring holds 77..1100; journal 1..1100
  ASSERT_EQ(hub_->ring_retained_after(), 76u);
  auto s = session();
  subscribe_from(s, 10);
  run_until_replied(s);
  Seen seen = decode_lines(*s);
  EXPECT_EQ(result_of(seen).replay->returned, 1090u);
  EXPECT_EQ(seen.seqs, range(11, 1100));
}

TEST_F(EventHubTest, LiveEventsDuringJournalReplayFollowItWithoutDuplicates) {
  open_journal();
  make_hub(0);
  commit(events(1, 1100));
  auto s = session();
  subscribe_from(s, 50);
  commit(events(1101, 1103));
  EXPECT_TRUE(s->lines().empty());  // held until the replay is out
  run_until_replied(s);
  commit(events(1104, 1104));
  Seen seen = decode_lines(*s);
  auto r = result_of(seen);
  EXPECT_EQ(r.seq, 1100u);
  EXPECT_EQ(r.replay->through, 1100u);
  EXPECT_EQ(r.replay->returned, 1050u);
  EXPECT_EQ(seen.seqs, range(51, 1104));
  EXPECT_FALSE(seen.events_before_reply);
}

TEST_F(EventHubTest, MoreThanReplayCapMatchingEventsIsTruncated) {
  open_journal();
  journal_only(events(1, limits::kReplayMaxEvents + 1));
  make_hub(limits::kReplayMaxEvents + 1);
  auto s = session();
  subscribe_from(s, 0);
  run_until_replied(s);
  expect_refused(s, ReplayStatus::Truncated);
  EXPECT_EQ(hub_->subscriber_count(), 0u);
}

TEST_F(EventHubTest, ExactlyReplayCapMatchingEventsIsComplete) {
  open_journal();
  std::vector<StateEvent> evs = events(1, limits::kReplayMaxEvents);
  evs.push_back(event(limits::kReplayMaxEvents + 1, "agent.done"));
  journal_only(evs);
  make_hub(limits::kReplayMaxEvents + 1);
  auto s = session();
  p::SubscribeParams params;
  params.events = std::vector<std::string>{"pane.*"};
  params.from_seq = 0;
  subscribe(s, params);
  run_until_replied(s);
  Seen seen = decode_lines(*s);
  EXPECT_EQ(result_of(seen).replay->returned, limits::kReplayMaxEvents);
  EXPECT_EQ(seen.seqs, range(1, limits::kReplayMaxEvents));
}

// Two rotations of 8 MiB discard the first generation: retained_after moves up.
TEST_F(EventHubTest, ProvableJournalMissingTheRequestedRangeIsHistoryLost) {
  open_journal();
  const std::string big(1u << 20, 'x');
  std::vector<StateEvent> evs;
  for (std::uint64_t s = 1; s <= 20; ++s) evs.push_back(event(s, "pane.closed", {{"pad", big}}));
  journal_only(evs);
  ASSERT_TRUE(journal_->history_provable());
  const std::uint64_t retained = journal_->capture().retained_after;
  ASSERT_GT(retained, 2u);
  make_hub(20);
  auto lost = session();
  subscribe_from(lost, retained - 1);
  expect_refused(lost, ReplayStatus::HistoryLost);
  EXPECT_EQ(result_of(decode_lines(*lost)).replay->retained_after, retained);
  auto ok = session();
  subscribe_from(ok, retained);
  run_until_replied(ok);
  EXPECT_EQ(decode_lines(*ok).seqs, range(retained + 1, 20));
}

TEST_F(EventHubTest, SessionClosedDuringJournalReplayGetsNothing) {
  open_journal();
  journal_only(events(1, 30));
  make_hub(30);
  auto gone = session();
  subscribe_from(gone, 1);
  gone->disconnect();
  auto witness = session();  // replays are read in order: its reply comes later
  subscribe_from(witness, 1);
  run_until_replied(witness);
  EXPECT_TRUE(gone->lines().empty());
  EXPECT_EQ(hub_->subscriber_count(), 1u);
}

TEST_F(EventHubTest, SubscribeDuringJournalReplaySupersedesIt) {
  open_journal();
  journal_only(events(1, 30));
  make_hub(30);
  auto s = session();
  subscribe_from(s, 1);
  subscribe(s, {});
  commit(events(31, 31));
  auto witness = session();
  subscribe_from(witness, 1);
  run_until_replied(witness);
  ASSERT_EQ(s->lines().size(), 3u);  // superseded error, live reply, seq 31
  auto first = p::decode_server_line(s->lines()[0].substr(0, s->lines()[0].size() - 1));
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(std::get<p::Response>(*first).ok);
  Seen seen = decode_lines(*s);
  EXPECT_EQ(seen.replies, 2u);
  EXPECT_TRUE(seen.reply->ok);
  EXPECT_EQ(seen.seqs, (std::vector<std::uint64_t>{31}));
}

TEST_F(EventHubTest, LiveEventsPilingUpDuringJournalReplayRefuseItAsLagging) {
  open_journal();
  journal_only(events(1, 30));
  make_hub(30);
  auto s = session();
  subscribe_from(s, 1);
  for (const auto& ev : events(31, 31 + limits::kReplayMaxEvents)) hub_->publish(ev);
  expect_refused(s, ReplayStatus::Truncated);
  EXPECT_EQ(hub_->subscriber_count(), 0u);
  auto witness = session();
  subscribe_from(witness, 1);
  run_until_replied(witness);
  EXPECT_EQ(s->lines().size(), 1u);  // the late journal read sends nothing
}

TEST_F(EventHubTest, HubDestroyedDuringJournalReplayDropsTheRead) {
  open_journal();
  journal_only(events(1, 30));
  make_hub(30);
  auto s = session();
  subscribe_from(s, 1);
  hub_.reset();  // joins the reader; its completion may already be queued
  io_.poll();
  EXPECT_TRUE(s->lines().empty());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
