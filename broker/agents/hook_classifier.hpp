// broker/agents/hook_classifier.hpp: what one agent hook means for its pane
// (docs/rules.md "Hook classification"): the adapters' transition table as
// one pure function from (agent kind, hook name, payload, the pane's current
// lifecycle) to the changes the store should make.
// Runs in: broker (any thread; no state). Never: touches the store, throws
// on any payload, reads a payload field whose type is not the expected one,
// or assigns a decision id (the store does).
//
// Usage:
//   HookInput in{AgentKind::Claude, "Stop", &payload, pane.lifecycle, pane.session_id};
//   HookClassification out = classify_hook(in);
//   record out.session_id (even when dropped);
//   if (out.dropped) reply {dropped:true, reason:drop_reason_name(*out.dropped)};
//   else apply out.last_message, out.lifecycle, out.clear_attention / out.raise, out.decision.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/methods/agent.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::broker::agents {

using protocol::AgentKind;
using protocol::Attention;
using protocol::Json;
using protocol::Lifecycle;

// Why a hook changed nothing (the hook-event reply's `reason`).
enum class DropReason {
  UnrecognizedHook,  // no row of the table, or a payload that is not an object
  HarnessMismatch,   // the payload's `agent`/`harness` names another kind
  ForeignThread,     // Codex notify for a thread other than the pane's session
};
std::string_view drop_reason_name(DropReason reason);

// Our cap on the last_message a hook sets, in bytes (cut at a UTF-8
// boundary); a notification body's cap (docs/rules.md "Notifications").
inline constexpr std::size_t kHookMessageMaxBytes = 2000;

struct HookInput {
  AgentKind agent = AgentKind::Generic;
  std::string_view event;
  // The hook's stdin JSON; null or absent means the hook sent none.
  const Json* payload = nullptr;
  Lifecycle current = Lifecycle::Unknown;
  // The pane's recorded agent session id, if any (filters Codex notify).
  std::optional<std::string_view> pane_session_id;
};

// A decision as the hook implies it; the store adds id, answerable and
// received_at (docs/rules.md "Decision").
struct HookDecisionDraft {
  std::string prompt;
  std::vector<protocol::DecisionOption> options;
  // A native Claude/Codex PermissionRequest: answered through the waiting
  // reporter as hookSpecificOutput.decision.behavior.
  bool native_permission = false;
  bool operator==(const HookDecisionDraft&) const = default;
};

struct HookClassification {
  std::optional<Lifecycle> lifecycle;
  // At most one of these: lower to none, or raise (max) to this level.
  bool clear_attention = false;
  std::optional<Attention> raise;
  std::optional<std::string> last_message;
  // Recorded even when the hook is dropped for no table row or changes nothing.
  std::optional<std::string> session_id;
  std::optional<HookDecisionDraft> decision;
  std::optional<DropReason> dropped;
  // PreToolUse and kin: may move idle/done to working, never leave blocked.
  bool tool_hook = false;
};

HookClassification classify_hook(const HookInput& input);

// The same for payload bytes as a hook wrote them: text that is not JSON,
// or nests past the protocol's depth bound, is dropped unrecognized_hook.
HookClassification classify_hook_text(AgentKind agent, std::string_view event,
                                      std::string_view payload_text, Lifecycle current);

// The native PermissionRequest decision for a payload with a non-empty
// string session_id and tool_name and an object tool_input; else nullopt.
std::optional<HookDecisionDraft> native_permission_decision(const Json& payload);

}  // namespace signaltty::broker::agents
