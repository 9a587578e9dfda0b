// hookrelay/main.cpp: signaltty-hookrelay, the program an agent hook runs
// (docs/rules.md "Hook relay", decision 21): never breaks the hook. Exit 0
// whatever the broker does (one stderr line when the event was not
// taken), 2 only for a usage error; stdout stays empty but for the
// waiting mode's verdict.
// Runs in: signaltty-hookrelay. Never: prints to stdout except --version,
// --help and a verdict, or outlives kWatchdog (kAnswerWatchdog waiting).
#include <sys/time.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "cli/socket_path.hpp"
#include "common/version.hpp"
#include "hookrelay/args.hpp"
#include "hookrelay/relay.hpp"

namespace {

using namespace signaltty::hookrelay;

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr char kWatchdogLine[] =
    "signaltty-hookrelay: the broker took too long; the hook goes on without it\n";

// SIGALRM at kWatchdog: whatever blocks (a send to a broker that stopped
// reading), the hook still gets exit 0 in time. Async-signal-safe only.
void on_watchdog(int) {
  (void)!::write(STDERR_FILENO, kWatchdogLine, sizeof kWatchdogLine - 1);
  ::_exit(kExitOk);
}

void arm_watchdog(std::chrono::milliseconds after) {
  struct sigaction action {};
  action.sa_handler = on_watchdog;
  ::sigaction(SIGALRM, &action, nullptr);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(after).count();
  itimerval timer{};
  timer.it_value.tv_sec = static_cast<time_t>(us / 1000000);
  timer.it_value.tv_usec = static_cast<suseconds_t>(us % 1000000);
  ::setitimer(ITIMER_REAL, &timer, nullptr);
}

void say(std::FILE* to, const std::string& line) {
  std::fputs(line.c_str(), to);
  std::fputc('\n', to);
}

int run(const RelayArgs& args, Clock::time_point started_at) {
  arm_watchdog(args.wait_for_answer ? kAnswerWatchdog : kWatchdog);
  const std::string socket_path = signaltty::cli::resolve_socket_path(
      "", signaltty::cli::process_env, ::getuid());
  RelayOutcome outcome =
      relay_hook(args, STDIN_FILENO, socket_path, started_at + kIoBudget, started_at);
  if (auto verdict = verdict_line(outcome)) {
    say(stdout, *verdict);
    std::fflush(stdout);
  }
  if (outcome.feedback) say(stderr, *outcome.feedback);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const auto started_at = Clock::now();
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  Parsed parsed = parse_args(args, signaltty::cli::process_env("SIGNALTTY_PANE"));
  if (std::holds_alternative<ShowVersion>(parsed)) {
    say(stdout, signaltty::version_line("signaltty-hookrelay"));
    return kExitOk;
  }
  if (std::holds_alternative<ShowHelp>(parsed)) {
    say(stdout, kUsage);
    return kExitOk;
  }
  if (auto* error = std::get_if<UsageError>(&parsed)) {
    say(stderr, std::string("signaltty-hookrelay: ") + error->message + "\n" + kUsage);
    return kExitUsage;
  }
  return run(std::get<RelayArgs>(parsed), started_at);
}
