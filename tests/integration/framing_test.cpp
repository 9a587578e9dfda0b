// tests/integration/framing_test.cpp: the wire rules of the envelope
// (docs/rules.md, Envelope and rules): the 16 MiB line cap, malformed
// lines, protocol mismatch, unknown methods, typed params, and a client that
// stops reading.
// Runs in: the integration test binary.
#include <algorithm>
#include <iostream>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr std::size_t kMiB = 1u << 20;
// A line past the 16 MiB cap, sent without its newline.
constexpr std::size_t kOverlongLineBytes = 17 * kMiB;
// How far the broker's peak resident memory may rise over its resident size
// before the overlong line: the cap plus room for one copy and the rest.
constexpr std::uint64_t kOverlongLineRssBudgetKiB = 64 * 1024;
// The write-queue cap the slow-reader test starts the broker with.
constexpr std::size_t kSmallQueueCapBytes = 1 * kMiB;
// Responses the slow reader asks for, in bytes: far past the cap plus what
// the kernel's socket buffers can absorb.
constexpr std::size_t kSlowReaderAskBytes = 8 * kMiB;
// What another client's round trip may take while one client is stuck.
constexpr std::chrono::milliseconds kResponsiveRoundTrip{1000};

using BrokerFraming = BrokerTest;

TEST_F(BrokerFraming, OverlongLineGetsAnErrorThenCloseWithoutGrowingMemory) {
  start();
  const std::uint64_t rss_before = vm_rss_kib(broker().pid());
  Client client = connect();
  client.send_raw(std::string(kOverlongLineBytes, 'a'), deadline_after());
  auto reply = client.read_message(deadline_after());
  ASSERT_TRUE(reply.has_value()) << "no error line before the close";
  EXPECT_FALSE(is_ok(*reply)) << reply->dump();
  EXPECT_TRUE(reply->at("id").is_null()) << reply->dump();
  EXPECT_TRUE(client.wait_closed(deadline_after()));
  const std::uint64_t peak = vm_hwm_kib(broker().pid());
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer shadows every byte touched several times over: the
  // broker's peak says nothing about ours; the other builds check it.
  (void)peak;
  (void)rss_before;
#else
  EXPECT_LT(peak, rss_before + kOverlongLineRssBudgetKiB)
      << "resident before " << rss_before << " KiB, peak " << peak << " KiB";
#endif
  EXPECT_TRUE(is_ok(connect().request("server.status"))) << "the broker keeps serving others";
}

TEST_F(BrokerFraming, MalformedJsonGetsAnErrorWithNullIdAndTheConnectionStaysOpen) {
  start();
  Client client = connect();
  client.send_raw("{\"protocol\":\"signaltty/1\",\"id\":\"x\",\"method\":\n");
  auto reply = client.read_message(deadline_after());
  ASSERT_TRUE(reply.has_value());
  EXPECT_FALSE(is_ok(*reply)) << reply->dump();
  EXPECT_TRUE(reply->at("id").is_null()) << reply->dump();
  EXPECT_EQ(reply->value("protocol", ""), "signaltty/1");
  EXPECT_TRUE(is_ok(client.request("server.status")));
}

TEST_F(BrokerFraming, ProtocolMismatchIsBadProtocolAndTheConnectionStaysOpen) {
  start();
  Client client = connect();
  client.send_raw(R"({"protocol":"signaltty/2","id":"p1","method":"server.status","params":{}})"
                  "\n");
  auto reply = client.read_message(deadline_after());
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(error_code(*reply), "BAD_PROTOCOL") << reply->dump();
  EXPECT_EQ(reply->value("id", Json()), "p1");
  EXPECT_TRUE(is_ok(client.request("server.status")));
}

TEST_F(BrokerFraming, UnknownMethodIsUnknownMethod) {
  start();
  Client client = connect();
  Json reply = client.request("workspace.teleport", {{"workspace_id", "x"}});
  EXPECT_EQ(error_code(reply), "UNKNOWN_METHOD") << reply.dump();
  EXPECT_TRUE(is_ok(client.request("server.status")));
}

TEST_F(BrokerFraming, MistypedFieldIsBadParamsNamingTheField) {
  start();
  Json error = connect().call_error("workspace.create", {{"name", 42}});
  EXPECT_EQ(error.value("code", ""), "BAD_PARAMS") << error.dump();
  EXPECT_NE(error.value("message", "").find("name"), std::string::npos) << error.dump();
}

TEST_F(BrokerFraming, MistypedParamsObjectIsBadParams) {
  start();
  Client client = connect();
  client.send_raw(R"({"protocol":"signaltty/1","id":"q","method":"workspace.list","params":[1]})"
                  "\n");
  auto reply = client.read_message(deadline_after());
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(error_code(*reply), "BAD_PARAMS") << reply->dump();
}

TEST_F(BrokerFraming, UnknownFieldsAreIgnored) {
  start();
  Json result =
      connect().call("workspace.create", {{"name", "later"}, {"from_the_future", {{"a", 1}}}});
  EXPECT_EQ(result["workspace"]["name"], "later");
}

TEST_F(BrokerFraming, MissingAndNullOptionalsAreBothAbsent) {
  start();
  Client client = connect();
  Json missing = client.call("workspace.create")["workspace"];
  Json nulls = client.call("workspace.create", {{"name", nullptr}, {"cwd", nullptr}})["workspace"];
  EXPECT_EQ(missing["name"], "workspace");
  EXPECT_EQ(nulls["name"], "workspace");
  EXPECT_EQ(nulls["cwd"], missing["cwd"]);
}

// Sends the slow client's pipelined requests a slice at a time, timing one
// server.status round trip of `other` after each slice. Returns the slowest.
Clock::duration feed_slow_client(Client& slow, const std::string& requests, Client& other) {
  Clock::duration slowest{};
  std::size_t offset = 0;
  for (int slice = 0; offset < requests.size() && slice < 400; ++slice) {
    std::size_t sent = slow.send_raw(std::string_view(requests).substr(offset),
                                     deadline_after(std::chrono::milliseconds(20)));
    offset += sent;
    const auto t0 = Clock::now();
    EXPECT_TRUE(is_ok(other.request("server.status")));
    slowest = std::max(slowest, Clock::now() - t0);
    if (sent == 0 && slice > 50) break;  // the broker has stopped taking them
  }
  return slowest;
}

TEST_F(BrokerFraming, ClientThatStopsReadingIsDroppedWhileOthersStayResponsive) {
  start({.args = {"--client-queue-cap-bytes", std::to_string(kSmallQueueCapBytes)}});
  Client other = connect();
  const std::size_t schema_bytes = other.request("server.schema").dump().size();
  const std::size_t count = std::clamp<std::size_t>(kSlowReaderAskBytes / schema_bytes + 64, 64, 20000);
  std::string requests;
  for (std::size_t i = 0; i < count; ++i)
    requests += Json({{"protocol", "signaltty/1"}, {"id", i}, {"method", "server.schema"}}).dump() +
                "\n";

  Client slow = connect();
  const auto slowest = feed_slow_client(slow, requests, other);
  std::size_t answered = 0;
  while (slow.read_line(deadline_after())) ++answered;
  EXPECT_TRUE(slow.eof()) << "the stuck client should have been disconnected";
  EXPECT_LT(answered, count) << "every response fit, so the cap was never reached";
  EXPECT_LT(slowest, kResponsiveRoundTrip);
  std::cout << "[ INFO     ] " << count << " requests of a " << schema_bytes
            << "-byte response; the stuck client read " << answered
            << " before the close; slowest other round trip "
            << std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count() << " ms\n";
  EXPECT_TRUE(is_ok(other.request("server.status")));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
