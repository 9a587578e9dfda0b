// tests/bench/bench_hook_roundtrip.cpp: what an agent hook costs with the
// real broker. (1) Whole-process time of signaltty-hookrelay reporting to a
// live broker and pane, next to /bin/true spawned the same way in the same
// run (goal: median at most 5 ms above true). (2) The hook round trip: from
// spawning the relay to the agent.* event on a subscriber, p50 and p99 over
// the runs, hooks alternating UserPromptSubmit and Stop so each one is a
// transition (goal: p99 under 10 ms).
// Usage: bench_hook_roundtrip [RUNS]   (default 1000)
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "tests/integration/harness.hpp"

extern char** environ;

namespace signaltty::itest {
namespace {

using Micros = std::chrono::duration<double, std::micro>;

// Spawns argv with `env`, stdin from `stdin_path`, stdout/stderr to
// /dev/null; returns the pid.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& stdin_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw HarnessError("posix_spawn " + argv[0] + " failed");
  return pid;
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

double run_once_us(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const std::string& stdin_path) {
  const auto start = Clock::now();
  reap(spawn(argv, env, stdin_path));
  return Micros(Clock::now() - start).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int run(int runs) {
  TempDirs dirs;
  auto broker = start_broker(dirs);
  Client client(broker->socket_path());
  const std::string ws =
      client.call("workspace.create", {{"name", "bench"}, {"cwd", dirs.home()}})["workspace"]["id"];
  const std::string pane =
      client.call("pane.spawn", {{"workspace_id", ws}, {"argv", Json::array({"cat"})}})["pane"]["id"];
  Client events(broker->socket_path());
  events.call("subscribe", {{"events", Json::array({"agent.*"})}});
  const std::string payload = dirs.scratch("payload.json");
  write_text_file(payload, R"({"session_id":"bench","last_assistant_message":"done"})");
  const std::vector<std::string> env = base_env(dirs);
  const std::string relay = program_path("signaltty-hookrelay");

  std::vector<double> true_us, relay_us, round_us;
  for (int i = 0; i < runs; ++i) {
    true_us.push_back(run_once_us({"/bin/true"}, env, payload));
    const char* event = i % 2 == 0 ? "UserPromptSubmit" : "Stop";
    const auto start = Clock::now();
    const pid_t pid = spawn({relay, "--agent", "claude", "--event", event, "--pane", pane}, env, payload);
    auto seen = events.next_event(deadline_after());
    const double round = Micros(Clock::now() - start).count();
    reap(pid);
    relay_us.push_back(Micros(Clock::now() - start).count());
    if (!seen) throw HarnessError("no agent event for hook " + std::to_string(i));
    round_us.push_back(round);
  }
  const double t = percentile(true_us, 0.5), r = percentile(relay_us, 0.5);
  std::printf("bench_hook_roundtrip (%d hooks, real broker and pane)\n", runs);
  std::printf("%-40s %12s %12s\n", "", "median_us", "p99_us");
  std::printf("%-40s %12.0f %12.0f\n", "/bin/true (posix_spawn + wait)", t, percentile(true_us, 0.99));
  std::printf("%-40s %12.0f %12.0f\n", "signaltty-hookrelay (whole process)", r,
              percentile(relay_us, 0.99));
  std::printf("%-40s %12.0f %12.0f\n", "hook round trip (spawn -> agent.*)",
              percentile(round_us, 0.5), percentile(round_us, 0.99));
  std::printf("relay above true: %.2f ms (goal <= 5), ratio %.2fx; round trip p99 %.2f ms (goal < 10)\n",
              (r - t) / 1000.0, r / t, percentile(round_us, 0.99) / 1000.0);
  return 0;
}

}  // namespace
}  // namespace signaltty::itest

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(10, std::atoi(argv[1])) : 1000;
  try {
    return signaltty::itest::run(runs);
  } catch (const std::exception& e) {
    std::cerr << "bench_hook_roundtrip: " << e.what() << '\n';
    return 1;
  }
}
