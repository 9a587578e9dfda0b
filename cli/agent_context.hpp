// cli/agent_context.hpp: what `notify` and `hook-event` take from the pane
// they run in (docs/cli.md "Agents"): $SIGNALTTY_PANE as pane_id when none
// was given; for hook-event also the CLI's own pid as client_pid (the
// broker walks its ancestry when there is no pane id) and, with
// --payload-stdin, the hook's JSON from stdin (at most 1 MiB). A hook's
// stdout belongs to the agent: hook-event prints its human line on stderr
// and stdout only with --json or for a native verdict.
// Runs in: CLI. Never: classifies anything or reads stdin without
// --payload-stdin.
#pragma once

#include <string>

#include "cli/app.hpp"
#include "cli/command_binding.hpp"
#include "common/errors.hpp"

namespace signaltty::cli {

// The most payload bytes --payload-stdin reads (the relay's bound too).
inline constexpr std::size_t kHookPayloadMaxBytes = 1u << 20;

class AgentContext {
 public:
  // Adds --payload-stdin to the hook-event command.
  AgentContext(const CommandBinding& notify, const CommandBinding& hook_event);

  // `params` completed for `command` (unchanged for other commands).
  Result<protocol::Json> complete(const CommandBinding& command, protocol::Json params,
                                  const CliIo& io) const;
  // True for hook-event: human output goes to stderr.
  bool quiet_stdout(const CommandBinding& command) const { return &command == &hook_event_; }
  // hook-event's native verdict in a result, as the one line for stdout.
  static std::optional<std::string> verdict_of(const protocol::Json& result);

 private:
  const CommandBinding& notify_;
  const CommandBinding& hook_event_;
  bool payload_stdin_ = false;
};

}  // namespace signaltty::cli
