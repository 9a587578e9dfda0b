// common/integrations/codex_runtime.cpp: reading a Codex command line
// (docs/rules.md "Agent integrations", Codex).
// Runs in: broker. Never: guesses a subcommand from an option's value.
#include "common/integrations/codex_runtime.hpp"

#include <algorithm>
#include <array>

namespace signaltty::integrations {
namespace {

using namespace std::string_view_literals;

constexpr std::string_view kProgram = "codex";
constexpr std::string_view kRemote = "--remote";
constexpr std::string_view kVersionFlag = "--version";

// Codex's global options that take a value as the next word, so that word
// is not read as a subcommand or a prompt.
constexpr std::array kOptionsWithValue{
    "-c"sv,         "--config"sv,   "-m"sv,          "--model"sv,
    "-p"sv,         "--profile"sv,  "-s"sv,          "--sandbox"sv,
    "-a"sv,         "--ask-for-approval"sv,          "-C"sv,
    "--cd"sv,       "-i"sv,         "--image"sv,     "--add-dir"sv,
    "--enable"sv,   "--disable"sv,  "--local-provider"sv,
    "--remote"sv,   "--remote-auth-token-env"sv,
};
// Flags that print something and exit: no session starts.
constexpr std::array kExitingFlags{"-h"sv, "--help"sv, "-V"sv, "--version"sv};
// Words Codex reads as a subcommand that starts no session here; anything
// else in first position (a prompt, `resume`, `fork`) opens the TUI.
constexpr std::array kUtilitySubcommands{
    "exec"sv,      "e"sv,          "review"sv,     "login"sv,      "logout"sv,
    "mcp"sv,       "mcp-server"sv, "app-server"sv, "completion"sv, "sandbox"sv,
    "debug"sv,     "apply"sv,      "a"sv,          "cloud"sv,      "features"sv,
    "help"sv,      "remote-control"sv,             "doctor"sv,     "update"sv,
    "migrate-rollouts"sv,
};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view word) {
  return std::find(names.begin(), names.end(), word) != names.end();
}

bool is_codex(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string_view program = argv.front();
  return program.substr(program.rfind('/') + 1) == kProgram;
}

}  // namespace

CodexLaunch classify_codex_launch(const std::vector<std::string>& argv) {
  if (!is_codex(argv)) return CodexLaunch::NotCodex;
  bool remote = false;
  bool no_daemon = false;
  bool exits = false;
  std::optional<std::string_view> first_word;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string_view word = argv[i];
    if (word == "--") {
      if (i + 1 < argv.size()) first_word = "";  // a prompt, never a subcommand
      break;
    }
    if (word == kRemote || word.starts_with(std::string(kRemote) + "=")) remote = true;
    if (word == kCodexNoDaemon) no_daemon = true;
    if (listed(kExitingFlags, word)) exits = true;
    if (listed(kOptionsWithValue, word)) {
      ++i;
      continue;
    }
    if (word.starts_with("-")) continue;
    first_word = word;
    break;
  }
  if (exits) return CodexLaunch::Utility;
  if (first_word && listed(kUtilitySubcommands, *first_word)) return CodexLaunch::Utility;
  if (remote) return CodexLaunch::Remote;
  if (no_daemon) return CodexLaunch::HasNoDaemon;
  return CodexLaunch::Interactive;
}

std::optional<NoDaemonPlan> no_daemon_plan(const std::vector<std::string>& argv) {
  if (classify_codex_launch(argv) != CodexLaunch::Interactive) return std::nullopt;
  NoDaemonPlan plan;
  plan.probe = {argv.front(), std::string(kCodexNoDaemon), std::string(kVersionFlag)};
  plan.argv = argv;
  plan.argv.insert(plan.argv.begin() + 1, std::string(kCodexNoDaemon));
  return plan;
}

std::string codex_remote_notice() {
  return "codex was started against an explicit remote endpoint (--remote): its hooks run "
         "where that server runs and cannot report to this pane, so its state comes from the "
         "screen only. The command was kept as given";
}

std::string codex_without_no_daemon_notice() {
  return "this codex has no --no-daemon (its version probe failed): a shared Codex daemon "
         "could run this pane's hooks with another terminal's environment, so its state comes "
         "from the screen only. The command was kept as given; update Codex to get its hooks";
}

}  // namespace signaltty::integrations
