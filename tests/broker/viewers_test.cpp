// tests/broker/viewers_test.cpp: the attach registry's fan-out of pty.data:
// held viewers wait for their reply, and a send that closes its session
// (a client past its queue cap) never disturbs the walk over the viewers.
#include "broker/viewers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

// A session that closes after `cap_lines` lines, and runs `on_close` right
// inside the send that closed it: the worst a close handler could do.
class ClosingSession : public Session {
 public:
  ClosingSession(std::uint64_t id, std::size_t cap_lines) : id_(id), cap_lines_(cap_lines) {}

  void send(std::string line) override {
    if (closed_) return;
    if (lines_.size() >= cap_lines_) return close();
    lines_.push_back(std::move(line));
  }
  void close_after_flush() override { close(); }
  bool closed() const override { return closed_; }
  std::uint64_t session_id() const override { return id_; }
  pid_t peer_pid() const override { return 0; }

  std::function<void(std::uint64_t)> on_close;
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  void close() {
    if (closed_) return;
    closed_ = true;
    if (on_close) on_close(id_);
  }
  std::uint64_t id_;
  std::size_t cap_lines_;
  std::vector<std::string> lines_;
  bool closed_ = false;
};

class ViewersTest : public ::testing::Test {
 protected:
  std::shared_ptr<ClosingSession> viewer(const std::string& pane_id, std::size_t cap_lines) {
    auto s = std::make_shared<ClosingSession>(next_id_++, cap_lines);
    s->on_close = [this](std::uint64_t id) {
      for (auto& pane : viewers_.drop_session(id)) dropped_panes_.push_back(pane);
    };
    viewers_.hold(s, pane_id);
    viewers_.release(s->session_id(), pane_id, 0);
    sessions_.push_back(s);
    return s;
  }

  std::uint64_t seq_ = 0;
  Viewers viewers_{[this] { return ++seq_; }};
  std::uint64_t next_id_ = 1;
  std::vector<std::shared_ptr<ClosingSession>> sessions_;
  std::vector<std::string> dropped_panes_;
};

TEST_F(ViewersTest, ViewersClosedBySendDuringFanOutAreDroppedAndOthersStillServed) {
  auto first = viewer("pane_a", 0);
  auto second = viewer("pane_a", 5);
  auto third = viewer("pane_a", 0);
  viewers_.publish("pane_a", 3, "abc");
  EXPECT_TRUE(first->closed());
  EXPECT_TRUE(third->closed());
  EXPECT_EQ(second->lines().size(), 1u);
  EXPECT_EQ(dropped_panes_, (std::vector<std::string>{"pane_a", "pane_a"}));
  viewers_.publish("pane_a", 6, "def");
  EXPECT_EQ(second->lines().size(), 2u);
}

TEST_F(ViewersTest, EveryViewerOfAPaneClosedBySendLeavesNoRegistration) {
  auto only = viewer("pane_a", 0);
  viewers_.publish("pane_a", 3, "abc");
  EXPECT_TRUE(only->closed());
  EXPECT_FALSE(viewers_.has_viewers("pane_a"));
  EXPECT_EQ(dropped_panes_, (std::vector<std::string>{"pane_a"}));
}

// Until the connection's close handler runs, a closed session keeps its
// registration, so drop_session() still names the panes it viewed.
TEST_F(ViewersTest, ClosedSessionIsSkippedUntilDropSessionForgetsIt) {
  auto s = viewer("pane_a", 0);
  s->on_close = nullptr;
  viewers_.publish("pane_a", 3, "abc");
  ASSERT_TRUE(s->closed());
  viewers_.publish("pane_a", 6, "def");
  EXPECT_TRUE(s->lines().empty());
  EXPECT_EQ(viewers_.drop_session(s->session_id()), (std::vector<std::string>{"pane_a"}));
}

TEST_F(ViewersTest, HeldViewerGetsOnlyChunksPastItsSnapshotAfterRelease) {
  auto s = std::make_shared<ClosingSession>(next_id_++, 100);
  viewers_.hold(s, "pane_a");
  viewers_.publish("pane_a", 3, "abc");
  viewers_.publish("pane_a", 6, "def");
  EXPECT_TRUE(s->lines().empty());
  viewers_.release(s->session_id(), "pane_a", 3);
  ASSERT_EQ(s->lines().size(), 1u);
  EXPECT_NE(s->lines()[0].find("\"output_offset\":6"), std::string::npos) << s->lines()[0];
}

TEST_F(ViewersTest, HeldViewerPastTheHeldCapIsDisconnected) {
  auto s = std::make_shared<ClosingSession>(next_id_++, 100);
  s->on_close = [this](std::uint64_t id) { viewers_.drop_session(id); };
  viewers_.hold(s, "pane_a");
  const std::string chunk(1u << 20, 'x');
  std::uint64_t offset = 0;
  while (!s->closed() && offset < 2 * kHeldOutputCapBytes) {
    offset += chunk.size();
    viewers_.publish("pane_a", offset, chunk);
  }
  EXPECT_TRUE(s->closed());
  EXPECT_LT(offset, 2 * kHeldOutputCapBytes);
  EXPECT_FALSE(viewers_.has_viewers("pane_a"));
  EXPECT_TRUE(s->lines().empty());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
