// cli/events_command.cpp: `signaltty events` → subscribe + the event stream.
// Runs in: CLI. Never: reformats an event line; stdout gets the broker's
// event objects as received, only with DEL and C1 controls \u-escaped
// (the same JSON, safe on a terminal).
#include "cli/events_command.hpp"

#include "cli/exit_codes.hpp"
#include "cli/terminal_text.hpp"

namespace signaltty::cli {
namespace {

std::string replay_refusal(const protocol::ReplayInfo& replay) {
  std::string line = "error: replay " +
                     protocol::encode(replay.status).get<std::string>() +
                     ": requested_after " + std::to_string(replay.requested_after) +
                     ", retained_after " + std::to_string(replay.retained_after) +
                     ", through " + std::to_string(replay.through);
  if (replay.recovery) line += "; recovery: " + printable(*replay.recovery);
  return line;
}

int copy_events(Client& client, std::ostream& out, std::ostream& err) {
  for (;;) {
    auto line = client.next_line();
    if (!line.ok()) {
      err << error_line(line.error()) << '\n';
      return exit_code_for(line.error());
    }
    if (!*line) return kExitOk;  // the broker ended the stream
    if (std::holds_alternative<protocol::EventMessage>((*line)->message))
      out << json_for_terminal((*line)->text) << '\n' << std::flush;
  }
}

}  // namespace

EventsCommand::EventsCommand(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "events", "Stream events as JSON lines (subscribe), optionally replaying from a seq");
  from_seq_option_ = app_->add_option("--from-seq,--from_seq", from_seq_,
                                      "replay state events with seq > N first, then live ones");
  app_->add_option("--events", events_, "event name or glob (`agent.*`); repeat for more")
      ->allow_extra_args(false);
  app_->add_option("--task-id,--task_id", task_ids_,
                   "only events whose payload task_id matches; repeat for more")
      ->allow_extra_args(false);
}

protocol::SubscribeParams EventsCommand::params() const {
  protocol::SubscribeParams p;
  if (from_seq_option_->count() > 0) p.from_seq = from_seq_;
  if (!events_.empty()) p.events = events_;
  if (!task_ids_.empty()) p.task_ids = task_ids_;
  return p;
}

int stream_events(Client& client, const protocol::SubscribeParams& params, std::ostream& out,
                  std::ostream& err) {
  auto reply = client.call(protocol::Subscribe::name, protocol::encode(params));
  if (!reply.ok()) {
    err << error_line(reply.error()) << '\n';
    return exit_code_for(reply.error());
  }
  auto result = protocol::decode<protocol::SubscribeResult>(*reply);
  if (!result.ok()) {
    err << error_line(Error{ErrorCode::BadProtocol,
                            "unexpected subscribe reply: " + result.error().message})
        << '\n';
    return kExitError;
  }
  if (!result->subscribed) {
    if (result->replay)
      err << replay_refusal(*result->replay) << '\n';
    else
      err << "error: the broker refused the subscription\n";
    return kExitReplayIncomplete;
  }
  return copy_events(client, out, err);
}

}  // namespace signaltty::cli
