// common/integrations/provider.cpp: the per-provider tables of managed hook
// events and timeouts (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: touches a file.
#include "common/integrations/provider.hpp"

#include <algorithm>
#include <array>

#include "common/limits.hpp"

namespace signaltty::integrations {
namespace {

constexpr std::array<std::string_view, 6> kClaudeEvents{
    "SessionStart", "UserPromptSubmit", "Notification", "PermissionRequest", "Stop", "SessionEnd"};
constexpr std::array<std::string_view, 5> kCodexEvents{"SessionStart", "UserPromptSubmit",
                                                       "PermissionRequest", "Stop", "SessionEnd"};
constexpr std::array<std::string_view, 4> kCursorEvents{"sessionStart", "beforeSubmitPrompt", "stop",
                                                        "sessionEnd"};
// The one event whose managed hook waits for the human's answer.
constexpr std::string_view kPermissionRequest = "PermissionRequest";

constexpr std::array<std::pair<Provider, std::string_view>, 4> kNames{{
    {Provider::Claude, "claude"},
    {Provider::Codex, "codex"},
    {Provider::Opencode, "opencode"},
    {Provider::Cursor, "cursor"},
}};

}  // namespace

std::string_view provider_name(Provider provider) {
  for (const auto& [p, name] : kNames)
    if (p == provider) return name;
  return "unknown";
}

std::optional<Provider> provider_from_name(std::string_view name) {
  for (const auto& [p, n] : kNames)
    if (n == name) return p;
  return std::nullopt;
}

protocol::AgentKind agent_kind(Provider provider) {
  switch (provider) {
    case Provider::Claude: return protocol::AgentKind::Claude;
    case Provider::Codex: return protocol::AgentKind::Codex;
    case Provider::Opencode: return protocol::AgentKind::Opencode;
    case Provider::Cursor: return protocol::AgentKind::Cursor;
  }
  return protocol::AgentKind::None;
}

HookShape hook_shape(Provider provider) {
  switch (provider) {
    case Provider::Claude:
    case Provider::Codex: return HookShape::Groups;
    case Provider::Cursor: return HookShape::Entries;
    case Provider::Opencode: return HookShape::Plugin;
  }
  return HookShape::Plugin;
}

std::span<const std::string_view> managed_events(Provider provider) {
  switch (provider) {
    case Provider::Claude: return kClaudeEvents;
    case Provider::Codex: return kCodexEvents;
    case Provider::Cursor: return kCursorEvents;
    case Provider::Opencode: return {};
  }
  return {};
}

HookWait hook_wait(Provider provider, std::string_view event) {
  const bool answers = provider == Provider::Claude || provider == Provider::Codex;
  return answers && event == kPermissionRequest ? HookWait::ForAnswer : HookWait::No;
}

int hook_timeout_secs(Provider provider, std::string_view event) {
  if (hook_wait(provider, event) == HookWait::ForAnswer) return limits::kHookTimeoutWaitingSecs;
  if (provider == Provider::Codex) return limits::kHookTimeoutCodexSecs;
  return limits::kHookTimeoutDefaultSecs;
}

bool is_known_event(std::string_view event) {
  auto in = [event](const auto& events) {
    return std::find(events.begin(), events.end(), event) != events.end();
  };
  return in(kClaudeEvents) || in(kCodexEvents) || in(kCursorEvents);
}

}  // namespace signaltty::integrations
