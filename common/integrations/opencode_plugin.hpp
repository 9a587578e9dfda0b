// common/integrations/opencode_plugin.hpp: the OpenCode plugin file that is
// wholly ours, `<root>/plugins/signaltty.js` (docs/rules.md "Agent
// integrations"). In OpenCode it does nothing unless SIGNALTTY_PANE is
// set; then it runs the relay (`--agent opencode --event <name>`, the JSON
// on stdin, output ignored, errors swallowed, 8 s bound) for
// session.created, session.status (busy/idle), session.idle and
// session.error (session.execution.failed too).
// Runs in: CLI and broker. Never: touches a file.
#pragma once

#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::integrations {

// The first line of every plugin file we write; a file without it is not ours.
inline constexpr std::string_view kOpencodeHeader =
    "// signaltty hook-event shim for OpenCode (managed by `signaltty integration`).";

// The whole plugin text for `reporter` (absolute; BAD_PARAMS otherwise).
Result<std::string> opencode_plugin_text(std::string_view reporter);

// True when `text` is a plugin we wrote (it starts with the header line).
bool is_our_opencode_plugin(std::string_view text);

}  // namespace signaltty::integrations
