// broker/agents/hook_classifier.cpp: the hook transition table
// (docs/rules.md "Hook classification"), one function per adapter family.
// Runs in: broker. Never: throws on a payload (every field is read through
// a type-checked accessor), or keeps state between calls.
#include "broker/agents/hook_classifier.hpp"

#include <algorithm>
#include <array>

#include "broker/ptyhost_text.hpp"
#include "common/limits.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::broker::agents {
namespace {

// ---- payload access: a wrong type reads as absent ---------------------------

const Json* member(const Json* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

std::optional<std::string> text_at(const Json* object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  const auto& text = value->get_ref<const std::string&>();
  if (text.empty()) return std::nullopt;
  return text;
}

std::optional<std::string> message_text(std::optional<std::string> text) {
  if (!text) return std::nullopt;
  return std::string(utf8_prefix(*text, kHookMessageMaxBytes));
}

// A session id we record: non-empty, short, no control characters.
std::optional<std::string> session_id_value(std::optional<std::string> id) {
  if (!id || id->size() > limits::kRecordStringMaxChars) return std::nullopt;
  const bool has_control = std::any_of(id->begin(), id->end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
  if (has_control) return std::nullopt;
  return id;
}

// ---- one table row ----------------------------------------------------------

enum class AttentionOp { Keep, Clear, Raise };

struct Row {
  std::optional<Lifecycle> lifecycle;
  AttentionOp attention = AttentionOp::Keep;
  Attention level = Attention::None;
  std::optional<std::string> message;
  bool tool_hook = false;
  bool session_end = false;
};

Row row(Lifecycle lifecycle, AttentionOp op = AttentionOp::Keep, Attention level = Attention::None,
        std::optional<std::string> message = std::nullopt) {
  return Row{lifecycle, op, level, message_text(std::move(message))};
}
Row tool_row() { return Row{.tool_hook = true}; }
Row done_unread(std::optional<std::string> message) {
  return row(Lifecycle::Done, AttentionOp::Raise, Attention::Unread, std::move(message));
}
Row session_ended() {
  Row r = done_unread("session ended");
  r.session_end = true;
  return r;
}
Row working_clear() { return row(Lifecycle::Working, AttentionOp::Clear); }

bool one_of(std::string_view event, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), event) != names.end();
}

// ---- Claude Code and Codex --------------------------------------------------

Row permission_row(AgentKind agent, const Json* payload) {
  std::optional<std::string> message = text_at(payload, "message");
  if (!message && agent == AgentKind::Codex) message = "approval requested";
  if (!message) {
    auto tool = text_at(payload, "tool_name");
    message = tool ? "Allow " + *tool + "?" : std::string("permission requested");
  }
  return row(Lifecycle::Blocked, AttentionOp::Raise, Attention::PermissionRequired,
             std::move(message));
}

// docs/rules.md "Hook classification": `idle_prompt` is Claude's reminder
// that an idle prompt waits (it fires a minute after a finished turn, on
// the same idle screen): a nudge, not a question, so no `blocked`.
Row claude_notification(const Json* payload) {
  auto type = text_at(payload, "notification_type");
  if (type == std::optional<std::string>("idle_prompt"))
    return Row{std::nullopt, AttentionOp::Raise, Attention::Unread,
               message_text(text_at(payload, "message"))};
  const bool permission = type && type->find("permission") != std::string::npos;
  return row(Lifecycle::Blocked, AttentionOp::Raise,
             permission ? Attention::PermissionRequired : Attention::InputRequired,
             text_at(payload, "message"));
}

// Codex `notify` (agent-turn-complete); the payload is the JSON Codex puts
// in argv. Other notify types have no row.
std::optional<Row> codex_notify(const Json* payload) {
  if (text_at(payload, "type") != std::optional<std::string>("agent-turn-complete"))
    return std::nullopt;
  auto message = text_at(payload, "last-assistant-message");
  return done_unread(message ? message : std::optional<std::string>("turn complete"));
}

std::optional<Row> claude_codex_row(AgentKind agent, std::string_view event, const Json* payload) {
  if (event == "SessionStart") return row(Lifecycle::Idle, AttentionOp::Keep, {}, "session started");
  if (event == "UserPromptSubmit") return working_clear();
  if (event == "PermissionRequest") return permission_row(agent, payload);
  if (event == "Stop") {
    auto message = text_at(payload, "last_assistant_message");
    return done_unread(message ? message : std::optional<std::string>("turn complete"));
  }
  if (event == "SessionEnd") return session_ended();
  if (one_of(event, {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PreCompact",
                     "PostCompact", "SubagentStop"}))
    return tool_row();
  if (agent == AgentKind::Claude && event == "Notification") return claude_notification(payload);
  if (agent == AgentKind::Codex && (event == "notify" || event == "agent-turn-complete"))
    return codex_notify(payload);
  // Esc at Codex's approval prompt: the turn ends without Stop, the human
  // is at the prompt, so the pane is idle and nothing waits on them.
  if (agent == AgentKind::Codex && event == "Interrupt")
    return row(Lifecycle::Idle, AttentionOp::Clear, {}, "interrupted");
  return std::nullopt;
}

// ---- Cursor -------------------------------------------------------------------

std::optional<Row> cursor_row(std::string_view event) {
  if (event == "sessionStart") return row(Lifecycle::Idle);
  if (event == "beforeSubmitPrompt") return working_clear();
  if (event == "stop") return done_unread(std::nullopt);
  if (event == "sessionEnd") return session_ended();
  if (event == "preToolUse" || event == "postToolUse") {
    Row r = tool_row();
    r.lifecycle = Lifecycle::Working;
    return r;
  }
  return std::nullopt;
}

// ---- OpenCode -------------------------------------------------------------------

// session.status carries `properties.status` as {type:"busy"|"idle"|…} or,
// in older plugins, the bare string.
std::optional<std::string> opencode_status(const Json* properties) {
  if (auto bare = text_at(properties, "status")) return bare;
  return text_at(member(properties, "status"), "type");
}

// The most specific error text: nested provider message first.
std::optional<std::string> opencode_error(const Json* properties) {
  const Json* error = member(properties, "error");
  if (auto nested = text_at(member(error, "data"), "message")) return nested;
  if (auto direct = text_at(error, "message")) return direct;
  if (auto name = text_at(error, "name")) return name;
  return std::string("session error");
}

std::optional<Row> opencode_row(std::string_view event, const Json* payload) {
  const Json* properties = member(payload, "properties");
  if (event == "session.created") return row(Lifecycle::Idle, AttentionOp::Keep, {}, "session started");
  if (event == "session.idle") return done_unread(std::nullopt);
  if (event == "session.error" || event == "session.execution.failed")
    return row(Lifecycle::Failed, AttentionOp::Raise, Attention::Error, opencode_error(properties));
  if (event == "session.status") {
    auto status = opencode_status(properties);
    if (status == std::optional<std::string>("busy")) return working_clear();
    if (status == std::optional<std::string>("idle")) return done_unread(std::nullopt);
  }
  return std::nullopt;
}

// OpenCode's generic `event` hook names the event in the payload's `type`.
std::string_view effective_event(AgentKind agent, std::string_view event, const Json* payload) {
  if (agent != AgentKind::Opencode || event != "event") return event;
  const Json* type = member(payload, "type");
  if (type == nullptr || !type->is_string()) return event;
  return type->get_ref<const std::string&>();
}

std::optional<Row> table_row(AgentKind agent, std::string_view event, const Json* payload) {
  switch (agent) {
    case AgentKind::Claude:
    case AgentKind::Codex: return claude_codex_row(agent, event, payload);
    case AgentKind::Cursor: return cursor_row(event);
    case AgentKind::Opencode: return opencode_row(event, payload);
    case AgentKind::Pi:
    case AgentKind::Generic:
    case AgentKind::None: return std::nullopt;
  }
  return std::nullopt;
}

// ---- identity -------------------------------------------------------------------

std::optional<std::string> session_id_of(AgentKind agent, const Json* payload) {
  if (agent == AgentKind::Opencode) {
    const Json* properties = member(payload, "properties");
    if (auto id = text_at(properties, "sessionID")) return session_id_value(id);
    if (auto id = text_at(member(properties, "info"), "id")) return session_id_value(id);
    return session_id_value(text_at(payload, "sessionID"));
  }
  if (auto id = text_at(payload, "session_id")) return session_id_value(id);
  if (agent == AgentKind::Cursor) return session_id_value(text_at(payload, "conversation_id"));
  return std::nullopt;
}

// The payload names a specific agent kind other than the reporting one.
bool names_other_harness(AgentKind agent, const Json* payload) {
  for (std::string_view key : {"agent", "harness"}) {
    const Json* value = member(payload, key);
    if (value == nullptr || !value->is_string()) continue;
    auto named = protocol::Codec<AgentKind>::decode(*value, key);
    if (!named.ok()) continue;
    if (*named == AgentKind::Generic || *named == AgentKind::None) continue;
    if (*named != agent) return true;
  }
  return false;
}

// A Codex notify for another thread (its title generator) is not the pane's turn.
bool foreign_codex_thread(const HookInput& input, std::string_view event) {
  if (input.agent != AgentKind::Codex || (event != "notify" && event != "agent-turn-complete"))
    return false;
  auto thread = text_at(input.payload, "thread-id");
  return thread && input.pane_session_id && *thread != *input.pane_session_id;
}

HookClassification dropped(DropReason reason, std::optional<std::string> session_id = {}) {
  HookClassification out;
  out.dropped = reason;
  out.session_id = std::move(session_id);
  return out;
}

// Applies the pane-state rules to a row (docs/rules.md, decision 13 and
// "Hook classification"): a tool hook never leaves blocked and moves only
// idle/done (or unknown) to working; SessionEnd on a done/failed pane only
// restates the outcome.
HookClassification apply_row(const HookInput& input, Row r, std::optional<std::string> session_id) {
  HookClassification out;
  out.session_id = std::move(session_id);
  out.tool_hook = r.tool_hook;
  if (r.session_end && (input.current == Lifecycle::Done || input.current == Lifecycle::Failed))
    return out;
  if (r.tool_hook) {
    if (input.current == Lifecycle::Blocked) return out;
    const bool resting = input.current == Lifecycle::Idle || input.current == Lifecycle::Done ||
                         input.current == Lifecycle::Unknown;
    if (resting || r.lifecycle) out.lifecycle = Lifecycle::Working;
    if (out.lifecycle == input.current) out.lifecycle.reset();
    return out;
  }
  out.lifecycle = r.lifecycle;
  out.last_message = std::move(r.message);
  out.clear_attention = r.attention == AttentionOp::Clear;
  if (r.attention == AttentionOp::Raise) out.raise = r.level;
  return out;
}

}  // namespace

std::string_view drop_reason_name(DropReason reason) {
  switch (reason) {
    case DropReason::UnrecognizedHook: return "unrecognized_hook";
    case DropReason::HarnessMismatch: return "harness_mismatch";
    case DropReason::ForeignThread: return "foreign_thread";
  }
  return "unrecognized_hook";
}

std::optional<HookDecisionDraft> native_permission_decision(const Json& payload) {
  auto session = text_at(&payload, "session_id");
  auto tool = text_at(&payload, "tool_name");
  const Json* tool_input = member(&payload, "tool_input");
  if (!session || !tool || tool_input == nullptr || !tool_input->is_object()) return std::nullopt;
  HookDecisionDraft draft;
  // dump() never throws here: invalid UTF-8 is replaced, not rejected.
  draft.prompt = "Allow " + *tool + "?\n" + tool_input->dump(2, ' ', false, Json::error_handler_t::replace);
  draft.options = {{"once", "Allow once"}, {"deny", "Deny"}};
  draft.native_permission = true;
  return draft;
}

HookClassification classify_hook(const HookInput& input) {
  const Json* payload = input.payload;
  if (payload != nullptr && payload->is_null()) payload = nullptr;
  if (payload != nullptr && !payload->is_object()) return dropped(DropReason::UnrecognizedHook);
  if (names_other_harness(input.agent, payload)) return dropped(DropReason::HarnessMismatch);
  auto session_id = session_id_of(input.agent, payload);
  const std::string_view event = effective_event(input.agent, input.event, payload);
  if (foreign_codex_thread(input, event)) return dropped(DropReason::ForeignThread);
  auto r = table_row(input.agent, event, payload);
  if (!r) return dropped(DropReason::UnrecognizedHook, std::move(session_id));
  HookClassification out = apply_row(input, std::move(*r), std::move(session_id));
  const bool permission = event == "PermissionRequest" &&
                          (input.agent == AgentKind::Claude || input.agent == AgentKind::Codex);
  if (permission && payload != nullptr) out.decision = native_permission_decision(*payload);
  return out;
}

HookClassification classify_hook_text(AgentKind agent, std::string_view event,
                                      std::string_view payload_text, Lifecycle current) {
  auto parsed = protocol::parse_json(payload_text);
  if (!parsed.ok()) return dropped(DropReason::UnrecognizedHook);
  return classify_hook(HookInput{agent, event, &*parsed, current, std::nullopt});
}

}  // namespace signaltty::broker::agents
