// tests/fuzz/fuzz_hook_payload.cpp: libFuzzer target for the broker's hook
// classifier (broker/agents/hook_classifier): arbitrary bytes as a hook's
// payload, for every agent kind, a choice of hook names and pane states.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp.
// Never: expects a payload to be accepted; it looks for exceptions,
// crashes, unbounded recursion and sanitizer reports.
//
// Input layout: byte 0 picks the agent kind, byte 1 the hook name, byte 2
// the pane's current lifecycle; the rest is the payload text.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "broker/agents/hook_classifier.hpp"

namespace {

namespace agents = signaltty::broker::agents;
using signaltty::protocol::AgentKind;
using signaltty::protocol::Lifecycle;

constexpr std::array<AgentKind, 7> kKinds{AgentKind::Claude,  AgentKind::Codex,
                                          AgentKind::Opencode, AgentKind::Cursor,
                                          AgentKind::Pi,       AgentKind::Generic,
                                          AgentKind::None};
constexpr std::array<std::string_view, 24> kEvents{
    "SessionStart",   "UserPromptSubmit", "PermissionRequest", "Notification",
    "Stop",           "SessionEnd",       "PreToolUse",        "PostToolUse",
    "SubagentStop",   "notify",           "agent-turn-complete", "Interrupt",
    "sessionStart",   "beforeSubmitPrompt", "stop",            "sessionEnd",
    "preToolUse",     "session.created",  "session.status",    "session.idle",
    "session.error",  "event",            "session.execution.failed", "Unknown"};
constexpr std::array<Lifecycle, 7> kStates{Lifecycle::Unknown, Lifecycle::Working,
                                           Lifecycle::Blocked, Lifecycle::Done,
                                           Lifecycle::Idle,    Lifecycle::Failed,
                                           Lifecycle::Exited};

// What the classifier promises whatever the payload.
void check(const agents::HookClassification& out) {
  if (out.clear_attention && out.raise) std::abort();
  if (out.dropped && (out.lifecycle || out.raise || out.clear_attention || out.decision))
    std::abort();
  if (out.last_message && out.last_message->size() > agents::kHookMessageMaxBytes) std::abort();
  if (out.decision && (out.decision->prompt.empty() || out.decision->options.empty()))
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const AgentKind kind = kKinds[data[0] % kKinds.size()];
  const std::string_view event = kEvents[data[1] % kEvents.size()];
  const Lifecycle current = kStates[data[2] % kStates.size()];
  const std::string_view payload(reinterpret_cast<const char*>(data + 3), size - 3);
  check(agents::classify_hook_text(kind, event, payload, current));
  return 0;
}
