// tests/ptyhost/ptyhost_flow_process_test.cpp: flow control between the
// ptyhost and a streaming broker (broker_service.hpp). A broker that reads
// late holds the program back and then gets every byte in order; one that
// takes in nothing is dropped after the stall limit and the program goes on.
// Runs in: the ptyhost process tests; each test starts its own ptyhost.
#include <sys/stat.h>

#include <thread>

#include <gtest/gtest.h>

#include "ptyhost/broker_service.hpp"
#include "ptyhost_harness.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

// Far more than the high-water mark, the socket's and the PTY's buffers
// together: a program writing this much cannot finish unless it is read.
// Under ThreadSanitizer the ptyhost moves output about ten times slower,
// and a smaller flood, still several times those buffers, keeps within the
// harness's deadlines.
#if defined(__SANITIZE_THREAD__)
constexpr std::size_t kFloodBytes = 12u << 20;
#else
constexpr std::size_t kFloodBytes = 40u << 20;
#endif
// How long the broker of the first test leaves the flood unread.
constexpr std::chrono::seconds kUnreadWindow{2};

// A program that writes the flood, says so on its terminal and in `flag`,
// then `rest`.
std::vector<std::string> flood(const std::string& flag, const std::string& rest) {
  return {"sh", "-c",
          "head -c " + std::to_string(kFloodBytes) + " /dev/zero | tr '\\0' x; echo; " +
              "echo flood-done; : > " + flag + "; " + rest};
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

TEST(PtyhostFlow, BrokerThatReadsLateHoldsTheProgramBackThenGetsEveryByteInOrder) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  const std::string flag = pane.dir.file("flood-done");
  ASSERT_TRUE(pane.spawn(flood(flag, "read x")).ok);
  // Nothing is read for a while: the program must still be writing. Being
  // held back is a property over time, so the window is the measure; the
  // flag's creation would end the wait at once.
  EXPECT_FALSE(wait_file(flag, Clock::now() + kUnreadWindow))
      << "the program finished while the broker read nothing";
  ASSERT_TRUE(pane.broker.await_output("flood-done"));
  EXPECT_TRUE(pane.broker.connected());
  EXPECT_EQ(pane.broker.first_output_start(), std::optional<std::uint64_t>(0));
  EXPECT_TRUE(pane.broker.offsets_contiguous());
  const std::string& out = pane.broker.output();
  EXPECT_EQ(out.find_first_not_of('x'), kFloodBytes) << "every byte of the flood, in order";
  EXPECT_TRUE(exists(flag));
}

TEST(PtyhostFlow, BrokerThatTakesInNothingIsDroppedAndTheProgramGoesOn) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  const std::string flag = pane.dir.file("flood-done");
  const auto t0 = Clock::now();
  ASSERT_TRUE(pane.spawn(flood(flag, "exit 0")).ok);
  const pid_t child = static_cast<pid_t>(pane.child_pid);
  ASSERT_TRUE(wait_process_gone(child, Clock::now() + kStreamStallLimit + kDeadline));
  EXPECT_GE(Clock::now() - t0, kStreamStallLimit - std::chrono::seconds(1))
      << "held back until the stall limit";
  EXPECT_TRUE(pane.broker.await_disconnect());
  TestBroker later(pane.host.socket_path());
  later.handshake();
  // The program is gone, but its last bytes may still be on their way
  // through the PTY and the ptyhost: the tail shows them once they are in.
  const auto deadline = Clock::now() + kDeadline;
  std::string text;
  for (;;) {
    Reply tail = later.request("read", {{"mode", "tail"}, {"lines", 5}});
    ASSERT_TRUE(tail.ok);
    text = tail.result["text"].get<std::string>();
    if (text.find("flood-done") != std::string::npos || Clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(text.find("flood-done"), std::string::npos) << text;
  // Every byte of the flood went through the ptyhost.
  Reply stream = later.request("stream", {{"on", true}});
  ASSERT_TRUE(stream.ok);
  EXPECT_GE(stream.result["output_offset"].get<std::uint64_t>(), kFloodBytes);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost::testing
