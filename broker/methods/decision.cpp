// broker/methods/decision.cpp: decision.answer and report-session
// (docs/rules.md "Decision", "Agent sessions"): an answer goes to the
// decision's waiting native reporter, or through the adapter's own channel
// (Codex: the option's 1-based index and a newline typed into the pane),
// and consumes the id; a reporter names the pane's agent session and may
// replace its resume command.
// Runs in: broker (io thread). Never: delivers to a decision that is not
// the pane's pending one (NO_SUCH_DECISION), or types into a pane whose
// decision has no channel.
#include <algorithm>

#include "broker/event_pipeline.hpp"
#include "broker/handlers.hpp"
#include "broker/native_decisions.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

// docs/rules.md "Decision": the reason a failed delivery drops the decision with.
constexpr std::string_view kPaneExitedReason = "pane_exited";
// Our bound: how long typing an answer into a pane may take.
constexpr std::chrono::seconds kAnswerInputBudget{2};

Error no_channel(const std::string& decision_id, std::string why) {
  Error e = bad_params("decision " + decision_id + " cannot be answered here: " + std::move(why));
  e.details = {{"decision_id", decision_id}, {"answerable", false}};
  return e;
}

p::DecisionAnswerResult answered(const p::Pane& pane) {
  return p::DecisionAnswerResult{true, pane.lifecycle, pane.attention};
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
}

// docs/rules.md "Agent sessions": <=64 args, <=8 KiB, no control
// characters, the first a plain command name (no '/', not an option).
Status check_resume_argv(const std::vector<std::string>& argv) {
  auto error = [](std::string why) {
    Error e = bad_params("resume_argv: " + std::move(why));
    e.details = {{"field", "resume_argv"}};
    return e;
  };
  if (argv.empty()) return error("must not be empty");
  if (argv.size() > limits::kArgvMaxArgs) return error("more than 64 arguments");
  std::size_t bytes = 0;
  for (const std::string& arg : argv) {
    bytes += arg.size();
    if (has_control(arg)) return error("an argument holds a control character");
  }
  if (bytes > limits::kArgvMaxBytes) return error("more than 8 KiB");
  const std::string& command = argv.front();
  if (command.empty() || command.front() == '-' || command.find('/') != std::string::npos)
    return error("the first argument must be a plain command name");
  return {};
}

}  // namespace

void handle(p::DecisionAnswer, Ctx& ctx, p::DecisionAnswerParams&& params,
            Reply<p::DecisionAnswerResult> reply) {
  Store& store = ctx.services.store;
  auto index = store.check_answer(params.pane_id, params.decision_id, params.option_id);
  if (!index.ok()) return reply(std::move(index).error());
  const p::Pane& pane = **store.find_pane(params.pane_id);
  const std::string pane_id = pane.id;
  const p::Decision& decision = *pane.pending_decision;
  if (p::is_native_decision_id(decision.id)) {
    auto route = ctx.services.routes.find(decision.id);
    if (!route) return reply(no_channel(decision.id, "its reporter is not waiting (yet)"));
    auto done = store.answer_decision(ctx.txn, pane_id, params.decision_id, params.option_id);
    if (!done.ok()) return reply(std::move(done).error());
    route->answer(native_verdict(params.option_id));
    return reply(answered(*done));
  }
  if (!decision.answerable) return reply(no_channel(decision.id, "the agent has no answer channel"));
  // The adapter's channel: the option's 1-based index and a newline.
  std::string keys = std::to_string(*index + 1) + "\n";
  const auto deadline = std::chrono::steady_clock::now() + kAnswerInputBudget;
  ctx.services.supervisor.input(
      pane_id, std::move(keys), deadline,
      [&services = ctx.services, &txn = ctx.txn, pane_id, params = std::move(params),
       reply = std::move(reply)](Result<p::PaneInputResult> typed) {
        if (!typed.ok()) {
          // An error reply commits nothing: the drop is committed on its own.
          Txn dropped;
          if (services.store.clear_pending_decision(dropped, pane_id, kPaneExitedReason,
                                                    params.decision_id))
            services.pipeline.commit(std::move(dropped), [] {});
          return reply(std::move(typed).error());
        }
        auto done = services.store.answer_decision(txn, pane_id, params.decision_id, params.option_id);
        if (!done.ok()) return reply(std::move(done).error());
        reply(answered(*done));
      });
}

Result<p::PaneResult> handle(p::ReportSession, Ctx& ctx, p::ReportSessionParams&& params) {
  const std::string& sid = params.agent_session_id;
  if (sid.empty() || sid.size() > limits::kRecordStringMaxChars || has_control(sid)) {
    Error e = bad_params("agent_session_id: must be 1-256 bytes without control characters");
    e.details = {{"field", "agent_session_id"}};
    return e;
  }
  if (params.resume_argv) SIGNALTTY_RETURN_IF_ERROR(check_resume_argv(*params.resume_argv));
  SIGNALTTY_TRY(const p::Pane* pane, ctx.services.store.find_pane(params.pane_id));
  const p::AgentKind kind = params.agent.value_or(pane->agent.kind);
  SIGNALTTY_TRY(p::Pane recorded, ctx.services.store.record_agent_session(
                                      ctx.txn, pane->id, kind, sid, params.resume_argv));
  return p::PaneResult{std::move(recorded)};
}

}  // namespace signaltty::broker
