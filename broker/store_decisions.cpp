// broker/store_decisions.cpp: what hooks and reporters record on a pane
// besides its two axes (docs/rules.md "Agent sessions", "Decision"): the
// agent session and its resume command, a hook's summary, the explicit
// clear, and the pending decision's whole life (set, supersede, answer,
// drop).
// Runs in: broker (io thread). Never: delivers an answer (the method does,
// after this has consumed the id) or classifies a hook.
#include <set>

#include "broker/agents/detect.hpp"
#include "broker/handle.hpp"
#include "broker/ptyhost_text.hpp"
#include "broker/store.hpp"
#include "common/limits.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

namespace ev = protocol::ev;
using protocol::AgentKind;
using protocol::Attention;
using protocol::Decision;
using protocol::Lifecycle;
using protocol::Pane;

namespace {

// docs/rules.md "Clearing (mark seen)": the reason a delivered answer clears with.
constexpr std::string_view kAnswerSeenReason = "decision_answer";
// docs/rules.md "Decision": why a hook's clear drops the decision.
constexpr std::string_view kAttentionClearedReason = "attention_cleared";

Error decision_error(const std::string& field, const std::string& why) {
  Error e = bad_params("decision." + field + ": " + why);
  e.details = {{"field", "decision." + field}};
  return e;
}

bool specific(AgentKind kind) { return kind != AgentKind::Generic && kind != AgentKind::None; }

}  // namespace

// docs/rules.md "Decision": non-blank prompt, 1..16 options with non-empty
// unique ids and non-empty labels; text cleaned and capped.
Result<Decision> Store::validated_decision(Decision d) {
  if (d.id.empty() || d.id.size() > limits::kDecisionIdMaxBytes || clean_text(d.id, d.id.size()) != d.id)
    return decision_error("id", "must be 1-128 bytes without control characters");
  d.prompt = clean_text(d.prompt, limits::kDecisionPromptMaxChars);
  if (d.prompt.find_first_not_of(" \t\n") == std::string::npos)
    return decision_error("prompt", "must not be blank");
  if (d.options.empty() || d.options.size() > limits::kDecisionOptionsMax)
    return decision_error("options", "must hold 1-16 options");
  std::set<std::string> ids;
  for (auto& option : d.options) {
    if (option.id.empty() || option.id.size() > limits::kDecisionOptionIdMaxBytes ||
        clean_text(option.id, option.id.size()) != option.id)
      return decision_error("options", "an option id must be 1-64 bytes without control characters");
    if (!ids.insert(option.id).second) return decision_error("options", "duplicate option id '" + option.id + "'");
    option.label = clean_text(option.label, limits::kDecisionLabelMaxChars);
    if (option.label.find_first_not_of(" \t\n") == std::string::npos)
      return decision_error("options", "option '" + option.id + "' has a blank label");
  }
  return d;
}

Result<Pane> Store::record_agent_session(Txn& txn, std::string_view pane_id, AgentKind kind,
                                         const std::string& session_id,
                                         const std::optional<std::vector<std::string>>& resume_argv) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane next = *found;
  if (specific(kind)) next.agent.kind = kind;
  const bool replaced = next.agent.agent_session_id != session_id;
  if (replaced) {
    next.agent.agent_session_id = session_id;
    ++next.session_generation;
  }
  const std::string launched = next.argv.empty() ? std::string() : next.argv.front();
  if (resume_argv)
    next.agent.resume_argv = resume_argv;
  else if (replaced || !next.agent.resume_argv)
    next.agent.resume_argv = agents::resume_argv(next.agent.kind, session_id, launched);
  if (next == *found) return next;
  Pane& pane = pane_at(found->id);
  pane = std::move(next);
  txn.emit<ev::PaneUpdated>({pane, std::nullopt});
  changed();
  return pane;
}

Status Store::note_hook_message(Txn& txn, std::string_view pane_id, std::string_view message) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane& pane = pane_at(found->id);
  txn.touch(EntityKind::Pane, pane.id);
  pane.last_message = sanitize_notification_text(message, limits::kNotificationBodyMaxChars);
  pane.last_activity_at = clock_();
  changed();
  return {};
}

Status Store::clear_pane_attention(Txn& txn, std::string_view pane_id, std::string_view reason) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  const std::string id = found->id;
  clear_pending_decision(txn, id, kAttentionClearedReason);
  Pane& pane = pane_at(id);
  if (pane.attention == Attention::None) return {};
  set_attention(txn, pane, Attention::None);
  txn.emit<ev::AttentionCleared>({pane.id, std::string(reason)});
  changed();
  return {};
}

Result<Decision> Store::set_pending_decision(Txn& txn, std::string_view pane_id, Decision decision) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  SIGNALTTY_TRY(Decision next, validated_decision(std::move(decision)));
  Pane& pane = pane_at(found->id);
  const std::optional<Decision>& pending = pane.pending_decision;
  if (pending && pending->id == next.id) {
    // The same decision again (its reporter came back): keep when it arrived.
    next.received_at = pending->received_at;
    if (*pending == next) return next;
  } else {
    next.received_at = clock_();
  }
  protocol::Nullable<std::string> prev;
  if (pending) prev = pending->id;
  pane.pending_decision = next;
  pane.last_activity_at = clock_();
  txn.emit<ev::DecisionCreated>({pane.id, next, prev});
  changed();
  return next;
}

bool Store::clear_pending_decision(Txn& txn, std::string_view pane_id, std::string_view reason,
                                   std::optional<std::string_view> only_id) {
  auto found = find_pane(pane_id);
  if (!found.ok() || !(*found)->pending_decision) return false;
  Pane& pane = pane_at((*found)->id);
  const std::string decision_id = pane.pending_decision->id;
  if (only_id && *only_id != decision_id) return false;
  pane.pending_decision.reset();
  txn.emit<ev::DecisionCleared>({pane.id, decision_id, std::string(reason)});
  changed();
  return true;
}

void Store::mark_decision_unanswerable(std::string_view pane_id, std::string_view decision_id) {
  auto found = find_pane(pane_id);
  if (!found.ok()) return;
  Pane& pane = pane_at((*found)->id);
  if (!pane.pending_decision || pane.pending_decision->id != decision_id ||
      !pane.pending_decision->answerable)
    return;
  pane.pending_decision->answerable = false;
  changed();
}

Result<std::size_t> Store::check_answer(std::string_view pane_id, std::string_view decision_id,
                                        std::string_view option_id) const {
  SIGNALTTY_TRY(const Pane* pane, find_pane(pane_id));
  if (!pane->pending_decision || pane->pending_decision->id != decision_id) {
    Error e{ErrorCode::NoSuchDecision,
            "decision '" + std::string(decision_id) + "' is not pending on this pane"};
    e.details = {{"pane_id", pane->id}, {"decision_id", std::string(decision_id)}};
    return e;
  }
  const auto& options = pane->pending_decision->options;
  for (std::size_t i = 0; i < options.size(); ++i)
    if (options[i].id == option_id) return i;
  Error e = bad_params("option_id: the decision offers no option '" + std::string(option_id) + "'");
  e.details = {{"field", "option_id"}, {"decision_id", std::string(decision_id)}};
  return e;
}

Result<Pane> Store::answer_decision(Txn& txn, std::string_view pane_id,
                                    std::string_view decision_id, std::string_view option_id) {
  if (auto checked = check_answer(pane_id, decision_id, option_id); !checked.ok())
    return std::move(checked).error();
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  const std::string id = found->id;
  pane_at(id).pending_decision.reset();
  txn.emit<ev::DecisionAnswered>({id, std::string(decision_id), std::string(option_id)});
  SIGNALTTY_RETURN_IF_ERROR(mark_pane_seen(txn, id, kAnswerSeenReason));
  if (pane_at(id).lifecycle == Lifecycle::Blocked) {
    auto resumed = set_pane_lifecycle(txn, id, Lifecycle::Working, LifecycleSource::User);
    if (!resumed.ok()) return std::move(resumed).error();
  }
  changed();
  return pane_at(id);
}

}  // namespace signaltty::broker
