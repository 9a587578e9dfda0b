// common/integrations/hook_command.hpp: the shell command a managed hook
// runs, and how a command in someone's config is recognised as ours:
//   '<abs path of signaltty-hookrelay>' --agent <a> --event <E>[ --wait-for-answer] # signaltty hook-event (managed)
// Ours is any command ending with that suffix, or the exact legacy form
// `signaltty|/abs/path/signaltty hook-event --agent <known> --event <known>
// --payload-stdin` (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: runs a command or reads a config file.
#pragma once

#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/integrations/provider.hpp"

namespace signaltty::integrations {

// What every managed command ends with.
inline constexpr std::string_view kManagedSuffix = " # signaltty hook-event (managed)";

// The managed command for one event. BAD_PARAMS when `reporter` is not
// absolute or holds a single quote (it could not be quoted for the shell).
Result<std::string> managed_command(std::string_view reporter, Provider provider,
                                    std::string_view event);

// True for a command we wrote, now or in an older form.
bool is_managed_command(std::string_view command);

}  // namespace signaltty::integrations
