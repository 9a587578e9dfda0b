// common/integrations/provider.hpp: the four agents whose config the
// installer writes, and what it manages for each: the hook events, the
// timeout of each managed hook, whether its hook waits for an answer, and
// the shape of its hook file (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: touches a file; config_paths and the
// installer do.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "common/protocol/model.hpp"

namespace signaltty::integrations {

enum class Provider { Claude, Codex, Opencode, Cursor };

// How a provider's hook file holds its command hooks.
enum class HookShape {
  Groups,   // hooks.<Event> = [{"matcher": "", "hooks": [{"type": "command", ...}]}]
  Entries,  // hooks.<event> = [{"command": ..., "timeout": N}] (Cursor)
  Plugin,   // a whole JavaScript file of ours (OpenCode)
};

// Whether a managed hook blocks for the human's answer (the relay's
// --wait-for-answer mode).
enum class HookWait { No, ForAnswer };

inline constexpr std::array<Provider, 4> kProviders{Provider::Claude, Provider::Codex,
                                                    Provider::Opencode, Provider::Cursor};

// "claude", "codex", "opencode", "cursor": the agent kind's wire name.
std::string_view provider_name(Provider provider);
std::optional<Provider> provider_from_name(std::string_view name);
protocol::AgentKind agent_kind(Provider provider);

HookShape hook_shape(Provider provider);
// The events the installer writes a hook for, in the file's order; empty
// for OpenCode, whose plugin forwards its own events.
std::span<const std::string_view> managed_events(Provider provider);
HookWait hook_wait(Provider provider, std::string_view event);
int hook_timeout_secs(Provider provider, std::string_view event);

// Every event name some provider manages (what a legacy command may name).
bool is_known_event(std::string_view event);

}  // namespace signaltty::integrations
