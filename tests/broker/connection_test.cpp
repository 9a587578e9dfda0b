// tests/broker/connection_test.cpp: a client connection's bounded out-queue
// and when its close handler runs (docs/architecture.md, "Closing a
// connection"), over a real socketpair.
#include "broker/connection.hpp"

#include <gtest/gtest.h>

#include <chrono>
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
        std::move(ours), 7, kTestQueueCapBytes,
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

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
