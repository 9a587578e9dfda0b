// broker/child_env.hpp: the environment policy of every pane's program
// (docs/rules.md, "Environment of the child", and decision 16).
// Runs in: broker (io thread), when pane.spawn/pane.split build a launch.
// Never: lets a client set a key outside the allowlist, SIGNALTTY_SOCKET,
// SIGNALTTY_TOKEN or any LD_* variable into a child.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/methods/pane.hpp"
#include "common/protocol/ptyhost_wire.hpp"

namespace signaltty::broker {

// The child's environment (docs/rules.md, "Environment of the child"): the
// broker's own minus every LD_* (docs/rules.md, decision 16) and SIGNALTTY_SOCKET;
// request entries only for allowlisted keys; TERM=xterm-256color unless
// set; then SIGNALTTY_PANE, SIGNALTTY_SOCKET and, when given,
// SIGNALTTY_PARENT_PANE, SIGNALTTY_TASK and SIGNALTTY_TOKEN are forced. A
// SIGNALTTY_TOKEN from the broker's environment or the request never
// passes: a pane gets its own token or none.
struct ChildEnvRequest {
  std::vector<std::string> broker_env;  // KEY=VALUE, e.g. from environ
  std::map<std::string, std::string> requested;
  std::string pane_id;
  std::string socket_path;
  std::optional<std::string> parent_pane_id;
  std::optional<std::string> task_id;
  std::optional<std::string> token;  // SIGNALTTY_TOKEN (broker/pane_tokens.hpp)
};
std::vector<std::string> child_environment(const ChildEnvRequest& request);
// The broker's own environment (environ), KEY=VALUE.
std::vector<std::string> broker_environment();

// docs/rules.md "Agent integrations": before a directly launched supported
// agent starts, its hook integration is prepared (the integration
// library decides by argv[0]'s basename; $SIGNALTTY_INTEGRATION_HOME of the
// broker replaces $HOME); nullopt for any other program. Never fails a
// launch.
std::optional<protocol::Integration> launch_integration(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& requested,
    const std::string& cwd);
// An interactive local Codex (common/integrations/codex_runtime.hpp): the
// ptyhost probes `codex --no-daemon --version` and, when it passes, runs
// argv with --no-daemon; nullopt for anything else.
std::optional<protocol::ptyhost::ExecProbe> launch_probe(const std::vector<std::string>& argv);
// The launch's integration once its probe has run: a Codex whose probe
// failed is `disabled` with a notice.
std::optional<protocol::Integration> after_probe(std::optional<protocol::Integration> integration,
                                                 std::optional<bool> probe_passed);
// True iff pane.spawn's `env` may set `key`.
bool env_key_allowed(std::string_view key);

}  // namespace signaltty::broker
