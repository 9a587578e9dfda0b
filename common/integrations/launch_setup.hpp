// common/integrations/launch_setup.hpp: the hook setup the broker does
// before it starts a supported agent directly (pane.spawn, pane.split,
// pane.resume; docs/rules.md "Agent integrations").
// The executable's basename alone decides: `claude`, `codex`, `opencode`
// or `cursor-agent`; anything else (a shell, the ambiguous `agent`) gets
// no integration. Then:
//   - Claude with --bare, or --setting-sources without `user`, and
//     OpenCode with --pure: `disabled`, nothing written;
//   - otherwise the provider's hooks are installed: `configured` (Codex,
//     when newly written, with a notice to trust them in /hooks), except
//     that a Codex with an explicit remote endpoint is `disabled` with a
//     notice (codex_runtime.hpp);
//   - a setup failure: `error`, with a notice that the terminal stays
//     usable. The launch goes ahead in every case.
// Runs in: broker (pane launches). Never: fails a launch, or writes for a
// program it did not recognise.
//
// Usage (broker, before starting the pane's program):
//   LaunchSetupRequest request{argv, request_env, cwd, home, broker_env};
//   if (auto integration = prepare_launch_integration(request))
//     result.integration = *integration;
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/integrations/config_paths.hpp"
#include "common/integrations/provider.hpp"
#include "common/protocol/methods/pane.hpp"

namespace signaltty::integrations {

struct LaunchSetupRequest {
  std::vector<std::string> argv;                  // as the pane will run it
  std::map<std::string, std::string> spawn_env;   // the launch request's env entries; they win
  std::string cwd;                                // absolute launch directory
  std::optional<std::string> explicit_home;       // $SIGNALTTY_INTEGRATION_HOME of the broker
  EnvLookup broker_env;                           // HOME, XDG_CONFIG_HOME, PATH, overrides
  std::optional<std::string> reporter;            // default: find_reporter(broker_env)
};

// The provider a launch of `argv` configures, from argv[0]'s basename.
std::optional<Provider> launch_provider(const std::vector<std::string>& argv);

// nullopt when the program is not a supported agent; else what was done.
// A Codex with `--remote` is `disabled` with a notice (its hooks are
// written all the same).
std::optional<protocol::Integration> prepare_launch_integration(const LaunchSetupRequest& request);

// A Codex integration turned `disabled` with `notice` (file and changed
// kept): the remote case above, and a Codex whose --no-daemon probe failed
// (codex_runtime.hpp), known only once its ptyhost has run the probe.
protocol::Integration codex_disabled(protocol::Integration integration, std::string notice);

}  // namespace signaltty::integrations
