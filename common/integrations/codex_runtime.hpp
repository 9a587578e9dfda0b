// common/integrations/codex_runtime.hpp: how a directly launched Codex runs
// in a pane (docs/rules.md "Agent integrations", Codex). A Codex client may
// attach to a shared Codex daemon started from another terminal; its hooks
// then run with that terminal's SIGNALTTY_PANE and report to the wrong
// pane. An interactive local Codex therefore runs with `--no-daemon` when a
// bounded `codex --no-daemon --version` probe says it has the flag; the
// stored argv and resume argv stay as given. A Codex pointed at an explicit
// remote endpoint (`--remote`) or one without the flag keeps its command
// and gets a `disabled` integration with a notice; utility commands
// (`codex exec`, `codex login`, `--help`, …) are left alone.
// Runs in: broker (pane launches). Never: changes the argv it is given.
//
// Usage:
//   if (auto plan = no_daemon_plan(argv))   // run plan->probe; if it passes,
//     ...                                   // start plan->argv instead of argv
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace signaltty::integrations {

enum class CodexLaunch {
  NotCodex,      // argv[0]'s basename is not `codex`
  Interactive,   // the TUI (a prompt, `resume`, `fork`): wants --no-daemon
  HasNoDaemon,   // already given --no-daemon
  Remote,        // --remote <endpoint>: hooks run elsewhere
  Utility,       // a subcommand or flag that starts no session in this pane
};

CodexLaunch classify_codex_launch(const std::vector<std::string>& argv);

inline constexpr std::string_view kCodexNoDaemon = "--no-daemon";
// The probe's time limit: a Codex that cannot print its version by then
// is treated as one without the flag.
inline constexpr int kCodexProbeTimeoutMs = 3000;

struct NoDaemonPlan {
  std::vector<std::string> probe;  // argv[0] --no-daemon --version
  std::vector<std::string> argv;   // argv[0] --no-daemon argv[1..]
};

// The plan for an Interactive Codex, else nullopt.
std::optional<NoDaemonPlan> no_daemon_plan(const std::vector<std::string>& argv);

// The notices of a `disabled` Codex integration.
std::string codex_remote_notice();
std::string codex_without_no_daemon_notice();

}  // namespace signaltty::integrations
