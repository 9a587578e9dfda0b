// common/integrations/config_paths.hpp: where each provider's hook file is,
// from the environment, an explicit home and a launch directory
// (docs/rules.md "Agent integrations"):
//   claude   <root>/settings.json           root $CLAUDE_CONFIG_DIR, else ~/.claude
//   codex    <root>/hooks.json              root $CODEX_HOME, else ~/.codex
//   cursor   ~/.cursor/hooks.json
//   opencode <root>/plugins/signaltty.js    root $OPENCODE_CONFIG_DIR, else
//                                           $XDG_CONFIG_HOME/opencode, else ~/.config/opencode
// An explicit home replaces $HOME and ignores the provider overrides of
// this process's environment (OpenCode still follows XDG_CONFIG_HOME);
// overrides set by a launch always win. Relative roots resolve against the
// base directory.
// Runs in: CLI and broker. Never: touches the file system.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/integrations/provider.hpp"

namespace signaltty::integrations {

using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The broker's variable for an explicit integration home (the CLI's --home).
inline constexpr std::string_view kIntegrationHomeEnv = "SIGNALTTY_INTEGRATION_HOME";

struct PathContext {
  EnvLookup env;                                   // this process's environment
  std::map<std::string, std::string> launch_env;   // what a launch sets for its child; wins
  std::optional<std::string> explicit_home;        // --home / SIGNALTTY_INTEGRATION_HOME
  std::string base_dir;                            // absolute: relative roots resolve here
};

// The environment variable that moves a provider's root, if it has one.
std::optional<std::string_view> root_override_variable(Provider provider);

// The absolute path of the provider's hook file. IO_ERROR when no home
// directory is known.
Result<std::string> config_file_path(Provider provider, const PathContext& context);

}  // namespace signaltty::integrations
