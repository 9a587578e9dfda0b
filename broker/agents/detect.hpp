// broker/agents/detect.hpp: which agent a pane runs, from what it was
// spawned with, and the official command that resumes an agent session
// (docs/rules.md "Agent detection and resume").
// Runs in: broker. Never: reads /proc (the 10 s refresh does), runs a
// resume command (restore only offers it), or demotes a known kind.
//
// Usage:
//   AgentKind kind = detect_agent_kind(argv, params.agent_hint);
//   std::optional<std::vector<std::string>> argv = resume_argv(kind, session_id, argv.front());
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/model.hpp"

namespace signaltty::broker::agents {

using protocol::AgentKind;

// The program a path or runtime invocation names: the basename of
// argv[0], or for a node/nodejs/bun/deno/python runtime the basename of
// the script it runs, without a .js/.mjs/.cjs/.ts/.py suffix. "" for an
// empty argv.
std::string program_name(const std::vector<std::string>& argv);

// The kind of a program name: codex, claude, opencode, cursor-agent
// (cursor), pi; anything else (the ambiguous `agent` included) is generic.
AgentKind kind_of_program(std::string_view program);

// At spawn: a given `agent_hint` wins (an unknown hint is `none`); else the
// program's kind; an empty argv is generic.
AgentKind detect_agent_kind(const std::vector<std::string>& argv,
                            const std::optional<std::string>& agent_hint);

// The adapter's official resume argv for `session_id`, or nullopt when the
// kind has none or the id is empty, over 256 bytes, has a control character
// or starts with '-' (it must not read as an option). `launched` is the
// argv[0] the pane was started with: a path-qualified executable whose
// basename is the adapter's program is kept as the command.
std::optional<std::vector<std::string>> resume_argv(AgentKind kind, std::string_view session_id,
                                                    std::string_view launched = {});

}  // namespace signaltty::broker::agents
