// hookrelay/args.hpp: the command line of signaltty-hookrelay
// (docs/rules.md "Hook relay"):
//   signaltty-hookrelay --agent KIND --event NAME [--pane ID] [--wait-for-answer] [PAYLOAD]
// PAYLOAD is for hooks that pass their JSON as an argument (Codex `notify`);
// without it the payload is read from stdin.
// Runs in: signaltty-hookrelay. Never: reads the environment (the caller
// passes SIGNALTTY_PANE in) or exits.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/protocol/model.hpp"

namespace signaltty::hookrelay {

struct RelayArgs {
  protocol::AgentKind agent = protocol::AgentKind::Generic;
  std::string event;
  std::optional<std::string> pane_id;
  std::optional<std::string> payload_arg;
  // A native PermissionRequest: wait for the answer and print the verdict.
  bool wait_for_answer = false;
};
struct ShowVersion {};
struct ShowHelp {};
// What is wrong with the command line, one line for stderr.
struct UsageError {
  std::string message;
};

using Parsed = std::variant<RelayArgs, ShowVersion, ShowHelp, UsageError>;

// `args` without argv[0]; `env_pane` is $SIGNALTTY_PANE (default of --pane).
Parsed parse_args(const std::vector<std::string>& args, const std::optional<std::string>& env_pane);

inline constexpr const char* kUsage =
    "usage: signaltty-hookrelay --agent KIND --event NAME [--pane ID] [--wait-for-answer] "
    "[PAYLOAD]";

}  // namespace signaltty::hookrelay
