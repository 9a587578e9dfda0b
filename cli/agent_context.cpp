// cli/agent_context.cpp: see agent_context.hpp.
// Runs in: CLI.
#include "cli/agent_context.hpp"

#include <unistd.h>

#include "cli/stdin_read.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;

}  // namespace

AgentContext::AgentContext(const CommandBinding& notify, const CommandBinding& hook_event)
    : notify_(notify), hook_event_(hook_event) {
  hook_event.app().add_flag("--payload-stdin", payload_stdin_,
                            "read the hook's JSON payload from stdin");
}

Result<Json> AgentContext::complete(const CommandBinding& command, Json params,
                                    const CliIo& io) const {
  if (&command != &notify_ && &command != &hook_event_) return params;
  if (!params.contains("pane_id"))
    if (auto pane = io.env("SIGNALTTY_PANE"); pane && !pane->empty()) params["pane_id"] = *pane;
  if (&command != &hook_event_) return params;
  if (!params.contains("client_pid")) params["client_pid"] = static_cast<std::int64_t>(::getpid());
  if (!payload_stdin_) return params;
  if (params.contains("payload")) return bad_params("give --payload or --payload-stdin, not both");
  SIGNALTTY_TRY(std::string text, read_to_end_bounded(io.in_fd, kHookPayloadMaxBytes,
                                                     "--payload-stdin: the payload is over 1 MiB"));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return params;
  auto payload = protocol::parse_json(text);
  if (!payload.ok()) return bad_params("--payload-stdin: " + payload.error().message);
  params["payload"] = std::move(*payload);
  return params;
}

std::optional<std::string> AgentContext::verdict_of(const Json& result) {
  auto it = result.find("native_verdict");
  if (!result.is_object() || it == result.end() || !it->is_object()) return std::nullopt;
  return it->dump();
}

}  // namespace signaltty::cli
