// tests/broker/logind_watch_test.cpp: the logind watch never blocks its
// caller, and a failing system bus is retried after a doubling delay
// (1, 2, 4 … 60 s in production; scaled down here).
#include "broker/logind_watch.hpp"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>
#include <gtest/gtest.h>

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
using namespace std::chrono_literals;
using Local = boost::asio::local::stream_protocol;
using Clock = std::chrono::steady_clock;

constexpr auto kDeadline = 20s;
constexpr auto kRetryFirst = 40ms;

// A "bus" that accepts each connection and hangs up at once.
class HangingUpBus {
 public:
  explicit HangingUpBus(boost::asio::io_context& io)
      : path_((stdfs::temp_directory_path() / ("signaltty-bus-" + std::to_string(::getpid()) +
                                               ".sock")).string()),
        acceptor_(io) {
    stdfs::remove(path_);
    acceptor_.open(Local());
    acceptor_.bind(Local::endpoint(path_));
    acceptor_.listen();
    accept();
  }
  ~HangingUpBus() { stdfs::remove(path_); }
  std::string address() const { return "unix:path=" + path_; }
  const std::vector<Clock::time_point>& accepted_at() const { return accepted_at_; }

 private:
  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, Local::socket s) {
      if (ec) return;
      accepted_at_.push_back(Clock::now());
      s.close();
      accept();
    });
  }
  std::string path_;
  Local::acceptor acceptor_;
  std::vector<Clock::time_point> accepted_at_;
};

TEST(LogindWatch, StartReturnsAtOnceAndConnectsInTheBackground) {
  boost::asio::io_context io;
  HangingUpBus bus(io);
  LogindWatch watch(io, bus.address(), [](LogindWatch::Release r) { r(); }, kRetryFirst);
  watch.start();
  EXPECT_TRUE(bus.accepted_at().empty()) << "start() only posts the connect";
  const auto deadline = Clock::now() + kDeadline;
  while (bus.accepted_at().empty() && Clock::now() < deadline) io.run_one_until(deadline);
  EXPECT_EQ(bus.accepted_at().size(), 1u);
}

TEST(LogindWatch, FailingBusIsRetriedAfterADoublingDelay) {
  boost::asio::io_context io;
  HangingUpBus bus(io);
  LogindWatch watch(io, bus.address(), [](LogindWatch::Release r) { r(); }, kRetryFirst);
  watch.start();
  const auto deadline = Clock::now() + kDeadline;
  while (bus.accepted_at().size() < 4 && Clock::now() < deadline) io.run_one_until(deadline);
  const auto& at = bus.accepted_at();
  ASSERT_EQ(at.size(), 4u);
  EXPECT_GE(at[1] - at[0], kRetryFirst);
  EXPECT_GE(at[2] - at[1], 2 * kRetryFirst);
  EXPECT_GE(at[3] - at[2], 4 * kRetryFirst);
  EXPECT_FALSE(watch.holding_inhibitor());
}

TEST(LogindWatch, EnvironmentSwitchAndBusAddress) {
  ::setenv("SIGNALTTY_LOGIND", "0", 1);
  EXPECT_FALSE(logind_enabled_from_env());
  ::setenv("SIGNALTTY_LOGIND", "1", 1);
  EXPECT_TRUE(logind_enabled_from_env());
  ::unsetenv("SIGNALTTY_LOGIND");
  EXPECT_TRUE(logind_enabled_from_env());
  ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
  EXPECT_EQ(system_bus_address_from_env(), "unix:path=/run/dbus/system_bus_socket");
  ::setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/tmp/x", 1);
  EXPECT_EQ(system_bus_address_from_env(), "unix:path=/tmp/x");
  ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
