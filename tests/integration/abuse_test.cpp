// tests/integration/abuse_test.cpp: the broker under many bad peers at once
// (docs/security.md, "Abuse limits"): 1,000 idle connections, 100 clients
// that each write a request a few bytes at a time, and one client sending
// a 1 GiB line with no newline. Throughout, another client's server.status
// answers with p99 under 100 ms, and the broker's peak resident memory
// stays under 256 MiB. All on the local socket, bounded in time.
// Runs in: the integration test binary.
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr int kIdleConnections = 1000;
constexpr int kSlowWriters = 100;
constexpr std::size_t kHugeLineBytes = std::size_t{1} << 30;
constexpr std::uint64_t kRssLimitKiB = 256 * 1024;
constexpr std::chrono::milliseconds kStatusP99Limit{100};
constexpr int kStatusSamples = 300;

using AbuseLimits = BrokerTest;

// This test holds more than 1,100 descriptors itself.
bool raise_own_fd_limit(rlim_t want) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
  if (lim.rlim_cur >= want) return true;
  lim.rlim_cur = std::min(want, lim.rlim_max);
  return ::setrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur >= want;
}

TEST_F(AbuseLimits, IdleSlowAndHugeClientsAtOnceLeaveTheBrokerSmallAndPrompt) {
  if (!raise_own_fd_limit(4096)) GTEST_SKIP() << "this test needs 4096 descriptors";
  // The broker starts with the soft limit a user session gives (1024) and
  // must raise its own to hold 1,000 clients.
  rlimit lim{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lim), 0);
  const rlimit ours = lim;
  lim.rlim_cur = 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lim), 0);
  start();
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &ours), 0);

  std::vector<Client> idle;
  idle.reserve(kIdleConnections);
  for (int i = 0; i < kIdleConnections; ++i) idle.push_back(connect());

  // Slow writers: each has half a request sent; a byte more each round.
  const std::string request =
      Json{{"protocol", "signaltty/1"}, {"id", 1}, {"method", "server.status"}}.dump() + "\n";
  std::vector<Client> slow;
  for (int i = 0; i < kSlowWriters; ++i) {
    slow.push_back(connect());
    slow.back().send_raw(request.substr(0, request.size() / 2));
  }

  // The huge line, from its own thread: the broker cuts it off at its line
  // limit and closes; the writer stops there.
  std::size_t huge_accepted = 0;
  Client huge = connect();
  std::thread huge_writer([&huge, &huge_accepted] {
    const std::string chunk(1 << 20, 'a');
    for (std::size_t sent = 0; sent < kHugeLineBytes; sent += chunk.size()) {
      const std::size_t n = huge.send_raw(chunk, deadline_after(std::chrono::seconds(5)));
      huge_accepted += n;
      if (n < chunk.size()) break;
    }
  });

  Client probe = connect();
  std::vector<std::chrono::microseconds> took;
  std::size_t next_byte = request.size() / 2;
  for (int i = 0; i < kStatusSamples; ++i) {
    if (next_byte < request.size() - 1 && i % 3 == 0) {
      for (Client& c : slow) c.send_raw(request.substr(next_byte, 1));
      ++next_byte;
    }
    const auto t0 = Clock::now();
    const Json reply = probe.request("server.status");
    took.push_back(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0));
    ASSERT_TRUE(is_ok(reply)) << reply.dump();
  }
  huge_writer.join();

  std::sort(took.begin(), took.end());
  const auto p50 = took[took.size() / 2];
  const auto p99 = took[took.size() * 99 / 100];
  const std::uint64_t peak = vm_hwm_kib(broker().pid());
  std::cout << "[ INFO     ] server.status p50 " << p50.count() << " us, p99 " << p99.count()
            << " us; broker peak RSS " << peak << " KiB; the 1 GiB line was cut after "
            << huge_accepted / (1 << 20) << " MiB\n";
  EXPECT_LT(p99, kStatusP99Limit);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // AddressSanitizer keeps up to 256 MiB of freed memory in quarantine and
  // ThreadSanitizer shadows every byte touched several times over, so the
  // broker's peak says nothing about ours here; the release build checks it.
  (void)kRssLimitKiB;
#else
  EXPECT_LT(peak, kRssLimitKiB);
#endif
  EXPECT_LT(huge_accepted, kHugeLineBytes) << "the broker took the whole line";

  // Every idle client is still served, and the slow writers' requests,
  // finished now, are answered.
  for (Client& c : slow) c.send_raw(request.substr(next_byte));
  for (Client& c : slow) {
    auto reply = c.read_message(deadline_after());
    ASSERT_TRUE(reply.has_value());
    EXPECT_TRUE(is_ok(*reply)) << reply->dump();
  }
  EXPECT_TRUE(is_ok(idle.front().request("server.status")));
  EXPECT_TRUE(is_ok(idle.back().request("server.status")));
}

// A client that sent one request line near the 16 MiB limit and then went
// quiet keeps its connection, but not a buffer that size: 24 such clients
// would otherwise hold 24 x 16 MiB or more between them.
TEST_F(AbuseLimits, ClientsThatSentOneHugeLineDoNotKeepItsBuffer) {
  constexpr int kClients = 24;
  constexpr std::size_t kLineBytes = 15u << 20;
  start();
  Client probe = connect();
  ASSERT_TRUE(is_ok(probe.request("server.status")));
  const std::uint64_t before = vm_rss_kib(broker().pid());
  // A well-formed request with a field the method ignores: answered, and
  // the connection stays open.
  Json request{{"protocol", "signaltty/1"}, {"id", 1}, {"method", "server.status"}};
  request["params"] = Json{{"padding", std::string(kLineBytes, 'p')}};
  const std::string line = request.dump() + "\n";
  std::vector<Client> quiet;
  for (int i = 0; i < kClients; ++i) {
    quiet.push_back(connect());
    ASSERT_EQ(quiet.back().send_raw(line, deadline_after(std::chrono::seconds(20))), line.size());
    const auto reply = quiet.back().read_message(deadline_after(std::chrono::seconds(20)));
    ASSERT_TRUE(reply.has_value());
    EXPECT_TRUE(is_ok(*reply)) << reply->dump().substr(0, 200);
  }
  // The broker gives the room back once it has handled the line, just
  // after answering: a round trip on another connection follows that.
  ASSERT_TRUE(is_ok(probe.request("server.status")));
  std::uint64_t after = vm_rss_kib(broker().pid());
  for (const Deadline until = deadline_after(std::chrono::seconds(5));
       after >= before + 64 * 1024 && Clock::now() < until;
       after = vm_rss_kib(broker().pid()))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::cout << "[ INFO     ] broker RSS " << before << " KiB before, " << after << " KiB after "
            << kClients << " clients each sent a " << (kLineBytes >> 20) << " MiB line\n";
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_LT(after, before + 64 * 1024) << "the quiet clients' buffers are still held";
#endif
  for (Client& c : quiet) EXPECT_TRUE(is_ok(c.request("server.status")));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
