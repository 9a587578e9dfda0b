// broker/child_env.cpp: building a pane program's environment.
// Runs in: broker (io thread).
#include "broker/child_env.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "common/integrations/codex_runtime.hpp"
#include "common/integrations/launch_setup.hpp"

extern char** environ;

namespace signaltty::broker {
namespace {

// docs/rules.md "Agent integrations": replaces $HOME for the broker's setup.
constexpr const char* kIntegrationHomeVariable = "SIGNALTTY_INTEGRATION_HOME";

// docs/rules.md, "Environment of the child".
// The pane's own token (broker/pane_tokens.hpp): only ever the broker's.
constexpr std::string_view kTokenVariable = "SIGNALTTY_TOKEN";
constexpr std::string_view kDefaultTerm = "TERM=xterm-256color";
constexpr std::array<std::string_view, 10> kAllowedEnvKeys{
    "TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "EDITOR", "VISUAL", "PAGER", "SHELL",
    "SIGNALTTY_PANE"};
constexpr std::array<std::string_view, 5> kAllowedEnvPrefixes{"SIGNALTTY_", "CLAUDE_", "CODEX_",
                                                              "OPENCODE_", "CURSOR_"};

std::string_view env_key(std::string_view entry) { return entry.substr(0, entry.find('=')); }

void set_env(std::vector<std::string>& env, std::string_view key, std::string_view value) {
  std::erase_if(env, [key](const std::string& e) { return env_key(e) == key; });
  env.push_back(std::string(key) + "=" + std::string(value));
}

}  // namespace

bool env_key_allowed(std::string_view key) {
  for (std::string_view allowed : kAllowedEnvKeys)
    if (key == allowed) return true;
  for (std::string_view prefix : kAllowedEnvPrefixes)
    if (key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::vector<std::string> child_environment(const ChildEnvRequest& request) {
  std::vector<std::string> env;
  for (const std::string& entry : request.broker_env) {
    const std::string_view key = env_key(entry);
    if (entry.find('=') == std::string::npos || key.substr(0, 3) == "LD_" ||
        key == "SIGNALTTY_SOCKET" || key == kTokenVariable)
      continue;
    env.push_back(entry);
  }
  for (const auto& [key, value] : request.requested) {
    if (!env_key_allowed(key) || key.find('\0') != std::string::npos) continue;
    if (key == "SIGNALTTY_SOCKET" || key == kTokenVariable) continue;
    set_env(env, key, value);
  }
  const bool has_term =
      std::any_of(env.begin(), env.end(), [](const std::string& e) { return env_key(e) == "TERM"; });
  if (!has_term) env.emplace_back(kDefaultTerm);
  set_env(env, "SIGNALTTY_PANE", request.pane_id);
  set_env(env, "SIGNALTTY_SOCKET", request.socket_path);
  if (request.parent_pane_id) set_env(env, "SIGNALTTY_PARENT_PANE", *request.parent_pane_id);
  if (request.task_id) set_env(env, "SIGNALTTY_TASK", *request.task_id);
  if (request.token) set_env(env, kTokenVariable, *request.token);
  return env;
}

std::vector<std::string> broker_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

std::optional<protocol::Integration> launch_integration(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& requested,
    const std::string& cwd) {
  auto env = [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  std::optional<std::string> home = env(kIntegrationHomeVariable);
  if (home && home->empty()) home.reset();
  return integrations::prepare_launch_integration({argv, requested, cwd, home, env, std::nullopt});
}

std::optional<protocol::ptyhost::ExecProbe> launch_probe(const std::vector<std::string>& argv) {
  auto plan = integrations::no_daemon_plan(argv);
  if (!plan) return std::nullopt;
  return protocol::ptyhost::ExecProbe{std::move(plan->probe), std::move(plan->argv),
                                      integrations::kCodexProbeTimeoutMs};
}

std::optional<protocol::Integration> after_probe(std::optional<protocol::Integration> integration,
                                                 std::optional<bool> probe_passed) {
  if (!integration || probe_passed.value_or(true)) return integration;
  return integrations::codex_disabled(std::move(*integration),
                                      integrations::codex_without_no_daemon_notice());
}

}  // namespace signaltty::broker
