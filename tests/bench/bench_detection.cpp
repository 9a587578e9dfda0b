// tests/bench/bench_detection.cpp: what detection without hooks costs
// (docs/rules.md "Detection without hooks"): the broker's and the ptyhosts'
// CPU over a quiet window with 50 idle panes whose screen rules apply
// (kind claude, Claude Code's idle screen), side by side with 50 generic
// panes that have no rules, from one run. Goal: under 1% of one core.
// Runs in: the bench (ctest -L bench).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {

constexpr int kPanes = 50;
constexpr auto kWindow = std::chrono::seconds(20);

// Nanoseconds `pid` has run on a CPU (/proc/<pid>/schedstat's first field,
// exact where utime/stime count 10 ms ticks); 0 when gone.
std::uint64_t cpu_ns(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  std::uint64_t ns = 0;
  in >> ns;
  return ns;
}

struct Load {
  double broker_pct = 0;
  double ptyhosts_pct = 0;
};

// Starts a broker with kPanes panes of `argv` (`hint` as agent_hint),
// waits until they are quiet, then measures kWindow.
Load measure(const std::string& hint, const std::vector<std::string>& argv) {
  TempDirs dirs;
  auto broker = start_broker(dirs);
  Client client(broker->socket_path());
  const std::string ws =
      client.call("workspace.create", {{"name", "bench"}, {"cwd", dirs.home()}})["workspace"]["id"];
  std::vector<pid_t> ptyhosts;
  for (int i = 0; i < kPanes; ++i) {
    // One tab per pane: a spawn fills an empty tab.
    const std::string tab = client.call("tab.create", {{"workspace_id", ws}})["tab"]["id"];
    Json params = {{"workspace_id", ws}, {"tab_id", tab}, {"argv", argv}, {"cols", 120}, {"rows", 40}};
    if (!hint.empty()) params["agent_hint"] = hint;
    ptyhosts.push_back(client.call("pane.spawn", params)["pane"]["ptyhost_pid"].get<pid_t>());
  }
  // Let every pane draw and be read once (a few ticks).
  const auto settle = Clock::now() + std::chrono::seconds(3);
  while (Clock::now() < settle) client.call("server.status");
  auto total = [&] {
    std::uint64_t sum = 0;
    for (pid_t pid : ptyhosts) sum += cpu_ns(pid);
    return sum;
  };
  const std::uint64_t broker0 = cpu_ns(broker->pid()), hosts0 = total();
  const auto start = Clock::now();
  while (Clock::now() - start < kWindow) ::usleep(200 * 1000);
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  Load load;
  load.broker_pct = 100.0 * static_cast<double>(cpu_ns(broker->pid()) - broker0) / ns;
  load.ptyhosts_pct = 100.0 * static_cast<double>(total() - hosts0) / ns;
  client.call("server.shutdown", {{"force", true}});
  return load;
}

int run() {
  const std::string idle = std::string(SIGNALTTY_AGENT_FIXTURES) + "/claude-code-2.1.332/01-idle.ansi";
  const std::vector<std::string> claude = {"/bin/sh", "-c", "head -c -1 '" + idle + "'; exec sleep 1000"};
  const Load with_rules = measure("claude", claude);
  const Load without = measure("", {"/bin/sh", "-c", "head -c -1 '" + idle + "'; exec sleep 1000"});
  std::printf("detection loop, %d idle panes, %lld s window (CPU %% of one core)\n", kPanes,
              static_cast<long long>(kWindow.count()));
  std::printf("%-28s %10s %10s\n", "", "broker", "ptyhosts");
  std::printf("%-28s %9.3f%% %9.3f%%\n", "claude panes (rules apply)", with_rules.broker_pct,
              with_rules.ptyhosts_pct);
  std::printf("%-28s %9.3f%% %9.3f%%\n", "generic panes (no rules)", without.broker_pct,
              without.ptyhosts_pct);
  const double whole = with_rules.broker_pct + with_rules.ptyhosts_pct;
  std::printf("whole loop with rules: %.3f%% of one core (goal < 1%%): %s\n", whole,
              whole < 1.0 ? "met" : "MISSED");
  return 0;
}

}  // namespace
}  // namespace signaltty::itest

int main() {
  try {
    return signaltty::itest::run();
  } catch (const std::exception& e) {
    std::cerr << "bench_detection: " << e.what() << "\n";
    return 1;
  }
}
