// tests/integration/slow_client_test.cpp: clients that stop reading while
// the broker has output for them (viewers of a pane in a burst, a
// subscriber while events flow) are dropped at their queue cap, and the
// broker stays up, answers everyone else promptly, keeps its memory bounded
// and keeps the pane attachable.
// Runs in: the integration test binary, against the real broker and panes.
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/limits.hpp"
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using namespace std::chrono_literals;

// Small caps so that a stuck client overflows early in a burst.
constexpr std::size_t kViewerQueueCapBytes = 1u << 20;
constexpr std::size_t kSubscriberQueueCapBytes = 64u << 10;
// What one burst pane prints: far past every stuck viewer's cap and socket
// buffer, and past kPeakGrowthMaxKib had the broker kept it all.
constexpr std::size_t kBurstBytes = 24u << 20;
// The receive buffer a stuck client asks for.
constexpr int kStuckReceiveBufferBytes = 4096;
// Another client's server.status is answered within this throughout.
constexpr auto kStatusLatencyMax = 100ms;
// How much the broker's peak resident size may grow during a test: a few
// queue caps and buffers, nowhere near one burst.
constexpr std::uint64_t kPeakGrowthMaxKib = 32u << 10;
// Renames sent between status probes while events flow.
constexpr int kRenameWindow = 32;
// The burst (or event flow) fills every stuck client's queue well within this.
constexpr auto kDropTimeout = 30s;

void shrink_receive_buffer(const Client& client) {
  const int bytes = kStuckReceiveBufferBytes;
  if (::setsockopt(client.fd(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0)
    throw HarnessError("setsockopt SO_RCVBUF failed");
}

// True once the broker has closed its end (nothing is read to find out).
bool hung_up(const Client& client) {
  pollfd p{client.fd(), 0, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR)) != 0;
}

bool all_hung_up(const std::vector<Client>& clients) {
  return std::all_of(clients.begin(), clients.end(), hung_up);
}

std::string burst_command() {
  return "read go; yes | head -c " + std::to_string(kBurstBytes) + "; exec cat";
}

class SlowClients : public PaneTest {
 protected:
  void start_with_queue_cap(std::size_t cap_bytes) {
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer keeps freed memory in a quarantine of up to 256 MiB,
    // so the peak would count every burst buffer ever freed; with a small
    // one it measures what the broker holds, as without sanitizers.
    const char* had = std::getenv("ASAN_OPTIONS");
    const std::string before = had ? had : "";
    ::setenv("ASAN_OPTIONS", (before + ":quarantine_size_mb=1").c_str(), 1);
#endif
    start({.args = {"--client-queue-cap-bytes", std::to_string(cap_bytes)}});
#if defined(__SANITIZE_ADDRESS__)
    if (had) ::setenv("ASAN_OPTIONS", before.c_str(), 1); else ::unsetenv("ASAN_OPTIONS");
#endif
    peak_before_kib_ = vm_hwm_kib(broker().pid());
  }

  // A pane that prints kBurstBytes once it reads a line, then echoes input.
  std::string burst_pane(Client& control, const std::string& workspace_id) {
    return spawn(control, workspace_id, {"/bin/sh", "-c", burst_command()})["id"];
  }

  // Attaches `pane_id`, reads the reply, and never reads again.
  Client stuck_viewer(const std::string& pane_id) {
    Client viewer = connect();
    shrink_receive_buffer(viewer);
    viewer.call("pane.attach", {{"pane_id", pane_id}, {"mark_seen", false}});
    return viewer;
  }

  // Probes server.status until every stuck client is dropped.
  void expect_dropped_while_others_answered(Client& prober, const std::vector<Client>& stuck) {
    const Deadline deadline = Clock::now() + kDropTimeout;
    Clock::duration slowest{};
    while (!all_hung_up(stuck)) {
      ASSERT_LT(Clock::now(), deadline) << "a stuck client was never dropped";
      slowest = std::max(slowest, timed_status(prober));
    }
    slowest = std::max(slowest, timed_status(prober));
    EXPECT_LT(slowest, kStatusLatencyMax)
        << std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count() << " ms";
  }

  Clock::duration timed_status(Client& prober) {
    const auto sent = Clock::now();
    prober.call("server.status");
    return Clock::now() - sent;
  }

  // The broker lives, its peak memory grew by a few caps at most, and
  // every pane can still be attached.
  void expect_broker_healthy(const std::vector<std::string>& pane_ids) {
    ASSERT_TRUE(broker().running()) << all_stderr();
    EXPECT_LT(vm_hwm_kib(broker().pid()) - peak_before_kib_, kPeakGrowthMaxKib);
    for (const auto& id : pane_ids) {
      Client viewer = connect();
      Json attached = viewer.call("pane.attach", {{"pane_id", id}, {"mark_seen", false}});
      EXPECT_TRUE(attached.contains("snapshot_b64"));
    }
    EXPECT_TRUE(broker().running()) << all_stderr();
  }

  // Stuck viewers (per_pane on each of `panes` burst panes), then the burst.
  void run_stuck_viewers(int panes, int per_pane) {
    start_with_queue_cap(kViewerQueueCapBytes);
    Client control = connect();
    Client prober = connect();
    std::vector<std::string> pane_ids;
    std::vector<Client> stuck;
    for (int p = 0; p < panes; ++p) {
      const std::string workspace_id = make_workspace(control, "w" + std::to_string(p))["id"];
      pane_ids.push_back(burst_pane(control, workspace_id));
      for (int v = 0; v < per_pane; ++v) stuck.push_back(stuck_viewer(pane_ids.back()));
    }
    for (const auto& id : pane_ids) input(control, id, "go\n");
    expect_dropped_while_others_answered(prober, stuck);
    expect_broker_healthy(pane_ids);
  }

  std::uint64_t peak_before_kib_ = 0;
};

TEST_F(SlowClients, StuckViewerIsDroppedWhileOthersAreAnswered) { run_stuck_viewers(1, 1); }

TEST_F(SlowClients, ThreeStuckViewersOfOnePaneAreDroppedWhileOthersAreAnswered) {
  run_stuck_viewers(1, 3);
}

TEST_F(SlowClients, StuckViewersOfTwoPanesAreDroppedWhileOthersAreAnswered) {
  run_stuck_viewers(2, 1);
}

// Many stuck viewers, each within its own cap, would hold many caps between
// them: the clients' budget (kClientQueueBudgetFactor caps) drops the one
// holding the most as soon as they pass it together.
TEST_F(SlowClients, ManyStuckViewersTogetherHoldNoMoreThanTheClientsBudget) {
  constexpr std::size_t kCap = 8u << 20;
  constexpr int kStuck = 24;  // 192 MiB of queues at their caps; the budget is 32 MiB
  start_with_queue_cap(kCap);
  Client control = connect();
  Client prober = connect();
  const std::string workspace_id = make_workspace(control)["id"];
  const std::string pane_id = burst_pane(control, workspace_id);
  std::vector<Client> stuck;
  for (int v = 0; v < kStuck; ++v) stuck.push_back(stuck_viewer(pane_id));
  input(control, pane_id, "go\n");
  expect_dropped_while_others_answered(prober, stuck);
  ASSERT_TRUE(broker().running()) << all_stderr();
  const std::uint64_t growth = vm_hwm_kib(broker().pid()) - peak_before_kib_;
  std::cout << "[ INFO     ] broker peak grew " << (growth >> 10) << " MiB with " << kStuck
            << " stuck viewers of " << (kCap >> 20) << " MiB caps\n";
#if !defined(__SANITIZE_THREAD__)
  // The budget, and room for the lines being encoded and written.
  EXPECT_LT(growth, std::uint64_t{limits::kClientQueueBudgetFactor * kCap / 1024 + (32u << 10)});
#endif
  EXPECT_NE(broker().stderr_text().find("past the budget"), std::string::npos);
  Client viewer = connect();
  EXPECT_TRUE(viewer.call("pane.attach", {{"pane_id", pane_id}, {"mark_seen", false}})
                  .contains("snapshot_b64"));
  EXPECT_TRUE(broker().running()) << all_stderr();
}

TEST_F(SlowClients, StuckSubscriberIsDroppedWhileOthersAreAnswered) {
  start_with_queue_cap(kSubscriberQueueCapBytes);
  Client control = connect();
  Client prober = connect();
  const std::string workspace_id = make_workspace(control)["id"];
  const std::string pane_id = spawn(control, workspace_id, {"/bin/cat"})["id"];
  std::vector<Client> stuck;
  stuck.push_back(connect());
  shrink_receive_buffer(stuck.back());
  stuck.back().call("subscribe");
  const Deadline deadline = Clock::now() + kDropTimeout;
  Clock::duration slowest{};
  for (int round = 0; !hung_up(stuck.back()); ++round) {
    ASSERT_LT(Clock::now(), deadline) << "the stuck subscriber was never dropped";
    std::vector<Json> ids;
    for (int i = 0; i < kRenameWindow; ++i) {
      const std::string name = "renamed-" + std::to_string(round) + "-" + std::to_string(i);
      ids.push_back(
          control.send_request("workspace.rename", {{"workspace_id", workspace_id}, {"name", name}}));
    }
    for (const auto& id : ids) ASSERT_TRUE(is_ok(control.await_response(id)));
    // Probed between windows: every reply waits for the journal writes
    // before it, and disk latency is not what this test is about.
    slowest = std::max(slowest, timed_status(prober));
  }
  EXPECT_LT(slowest, kStatusLatencyMax)
      << std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count() << " ms";
  expect_broker_healthy({pane_id});
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
