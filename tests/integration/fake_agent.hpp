// tests/integration/fake_agent.hpp: a fake coding agent for tests: a shell
// script that calls signaltty-hookrelay the way Claude Code's installed
// hooks do. SessionStart at launch; for each prompt line, UserPromptSubmit,
// a native PermissionRequest that waits for its verdict (printed as
// `verdict:<json>`), then Stop with "all done".
// Runs in: the integration test binary (the script runs in a pane).
#pragma once

#include <string>

namespace signaltty::itest {

inline std::string fake_agent_script(const std::string& relay) {
  return "R='" + relay + "'\n"
         "printf '%s' '{\"session_id\":\"fake-1\"}' | \"$R\" --agent claude --event SessionStart\n"
         "while IFS= read -r line; do\n"
         "  printf '%s' '{\"session_id\":\"fake-1\"}' | \"$R\" --agent claude --event UserPromptSubmit\n"
         "  v=$(printf '%s' '{\"session_id\":\"fake-1\",\"tool_name\":\"Bash\",\"tool_input\":"
         "{\"command\":\"ls\"}}' | \"$R\" --agent claude --event PermissionRequest --wait-for-answer)\n"
         "  echo \"verdict:$v\"\n"
         "  printf '%s' '{\"session_id\":\"fake-1\",\"last_assistant_message\":\"all done\"}' | "
         "\"$R\" --agent claude --event Stop\n"
         "done\n";
}

}  // namespace signaltty::itest
