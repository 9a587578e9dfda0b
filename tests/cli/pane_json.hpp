// tests/cli/pane_json.hpp: a pane record as a broker would send it, for
// the CLI tests' scripted brokers.
#pragma once

#include <string>

#include "common/protocol/codec.hpp"

namespace signaltty::cli::testing {

inline protocol::Json pane_json(const std::string& id, const std::string& workspace_id) {
  return {{"id", id},          {"workspace_id", workspace_id}, {"tab_id", "tab_1"},
          {"argv", {"bash"}},  {"pty_size", {{"cols", 100}, {"rows", 30}}},
          {"lifecycle", "idle"}, {"live", {{"state", "live"}}}};
}

}  // namespace signaltty::cli::testing
