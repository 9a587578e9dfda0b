// broker/config.hpp: the broker's resolved paths and switches
// (docs/rules.md, Paths and environment). Runs in: broker.
#pragma once

#include <cstddef>
#include <string>

#include "common/limits.hpp"
#include "common/log.hpp"

namespace signaltty::broker {

enum class GroupCommit { On, Off };

struct Config {
  std::string socket_path;  // $XDG_RUNTIME_DIR/signaltty/signaltty.sock
  std::string runtime_dir;  // dirname(socket_path)
  std::string state_dir;    // $XDG_STATE_HOME/signaltty
  std::string config_dir;   // $XDG_CONFIG_HOME/signaltty
  std::string agents_dir;   // agent manifests: --agents-dir, $SIGNALTTY_AGENTS_DIR, config_dir/agents
  std::string plugin_dir;   // executable plugins: --plugin-dir, $SIGNALTTY_PLUGIN_DIR, config_dir/plugins
  log::Level log_level = log::Level::Info;
  // Off = one fsync per event: only for measuring what group commit buys.
  GroupCommit group_commit = GroupCommit::On;
  std::size_t client_queue_cap_bytes = limits::kClientQueueCapBytes;
};

}  // namespace signaltty::broker
