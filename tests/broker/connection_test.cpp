// tests/broker/connection_test.cpp: a client connection's bounded out-queue
// and when its close handler runs (docs/architecture.md, "Closing a
// connection"), over a real socketpair.
#include "broker/connection.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/read.hpp>

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::size_t kTestQueueCapBytes = 4096;

class ConnectionTest : public ::testing::Test {
 protected:
  std::shared_ptr<Connection> open() {
    Connection::Socket ours(io_);
    asio::local::connect_pair(ours, peer_);
    auto conn = std::make_shared<Connection>(
        std::move(ours), 7, kTestQueueCapBytes, nullptr,
        [](const std::shared_ptr<Connection>&, std::string_view) {},
        [this](std::uint64_t id) { closed_ids_.push_back(id); });
    conn->start();
    return conn;
  }
  // Everything the connection wrote, up to its close.
  std::string peer_reads_to_eof() {
    std::string got;
    boost::system::error_code ec;
    asio::read(peer_, asio::dynamic_buffer(got), ec);
    return got;
  }

  asio::io_context io_;
  Connection::Socket peer_{io_};
  std::vector<std::uint64_t> closed_ids_;
};

TEST_F(ConnectionTest, LinesWithinTheCapAreWrittenInOrder) {
  auto conn = open();
  conn->send("one\n");
  conn->send("two\n");
  conn->close_after_flush();
  io_.run_for(5s);
  EXPECT_EQ(peer_reads_to_eof(), "one\ntwo\n");
  EXPECT_EQ(closed_ids_, std::vector<std::uint64_t>{7});
}

// A send that overflows closes at once but must not run the close handler
// inside itself: the caller may be walking a container the handler edits.
TEST_F(ConnectionTest, OverflowClosesAtOnceButRunsTheCloseHandlerOnALaterTurn) {
  auto conn = open();
  conn->send(std::string(kTestQueueCapBytes + 1, 'x'));
  EXPECT_TRUE(conn->closed());
  EXPECT_TRUE(closed_ids_.empty());
  io_.run_for(5s);
  EXPECT_EQ(closed_ids_, std::vector<std::uint64_t>{7});
  EXPECT_EQ(peer_reads_to_eof(), "");
}

TEST_F(ConnectionTest, CloseNowRunsTheCloseHandlerOnceOnALaterTurn) {
  auto conn = open();
  conn->close_now();
  conn->close_now();
  EXPECT_TRUE(closed_ids_.empty());
  io_.run_for(5s);
  EXPECT_EQ(closed_ids_, std::vector<std::uint64_t>{7});
}

// Connections sharing an OutputBudget, each to a peer that never reads.
class BudgetTest : public ::testing::Test {
 protected:
  static constexpr std::size_t kBudgetBytes = 6000;  // below two connections' caps

  std::shared_ptr<Connection> open(std::uint64_t id) {
    Connection::Socket ours(io_);
    peers_.emplace_back(io_);
    asio::local::connect_pair(ours, peers_.back());
    auto conn = std::make_shared<Connection>(
        std::move(ours), id, kTestQueueCapBytes, budget_,
        [](const std::shared_ptr<Connection>&, std::string_view) {},
        [this](std::uint64_t closed) { closed_ids_.push_back(closed); });
    conn->start();
    return conn;
  }

  asio::io_context io_;
  std::shared_ptr<OutputBudget> budget_ = std::make_shared<OutputBudget>(kBudgetBytes);
  std::deque<Connection::Socket> peers_;
  std::vector<std::uint64_t> closed_ids_;
};

// No write completes until the io loop runs, so every byte sent stays queued.
TEST_F(BudgetTest, PastTheBudgetTheClientHoldingTheMostIsDropped) {
  auto a = open(1);
  auto b = open(2);
  a->send(std::string(3500, 'a'));
  b->send(std::string(2000, 'b'));
  EXPECT_EQ(budget_->total_bytes(), 5500u);
  // b's send takes the clients past the budget; a holds more, and goes.
  b->send(std::string(600, 'b'));
  EXPECT_TRUE(a->closed());
  EXPECT_FALSE(b->closed());
  EXPECT_EQ(budget_->total_bytes(), 2600u);
  // Now b holds the most: its own send past the budget drops it.
  auto c = open(3);
  c->send(std::string(2000, 'c'));
  b->send(std::string(1450, 'b'));  // 4,050 bytes: within its own cap
  EXPECT_TRUE(b->closed());
  EXPECT_FALSE(c->closed());
  EXPECT_EQ(budget_->total_bytes(), 2000u);
  io_.run_for(1s);
  EXPECT_EQ(closed_ids_, (std::vector<std::uint64_t>{1, 2}));
}

TEST_F(BudgetTest, WrittenAndClosedQueuesLeaveTheBudget) {
  auto a = open(1);
  a->send(std::string(2000, 'a'));
  auto b = open(2);
  b->send(std::string(1000, 'b'));
  io_.run_for(1s);  // both fit in their sockets' buffers: written
  EXPECT_EQ(budget_->total_bytes(), 0u);
  a->send(std::string(1500, 'a'));
  a->close_now();
  EXPECT_EQ(budget_->total_bytes(), 0u);
  b->send(std::string(3900, 'b'));  // within its cap and the budget
  EXPECT_FALSE(b->closed());
  b.reset();  // the connection lives on in its pending write
  io_.run_for(1s);
  EXPECT_EQ(budget_->total_bytes(), 0u);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
