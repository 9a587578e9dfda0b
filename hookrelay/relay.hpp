// hookrelay/relay.hpp: one agent hook to the broker as one `hook-event`
// request (docs/rules.md "Hook relay", decision 21).
// The waiting mode (--wait-for-answer on a native Claude/Codex
// PermissionRequest) registers a decision id of its own choosing and holds
// the connection until the broker answers; when the broker goes away
// mid-wait it reconnects and registers the same id again for the rest of
// the wait, so a restarted broker still reaches it.
// Runs in: signaltty-hookrelay. Never: writes to stdout (the caller prints
// a verdict), resubmits a plain report, or reports a failure any other way
// than as the one feedback line.
//
// Usage:
//   RelayOutcome out = relay_hook(args, stdin_fd, socket_path, deadline);
//   if (out.feedback) write it to stderr;   // exit 0 either way
//   if (auto line = verdict_line(out)) print it on stdout;   // waiting mode
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "common/protocol/codec.hpp"
#include "hookrelay/args.hpp"

namespace signaltty::hookrelay {

// docs/rules.md "Hook relay": the most payload bytes read from stdin.
inline constexpr std::size_t kMaxPayloadBytes = 1u << 20;
// docs/rules.md "Hook relay": the whole run, start to exit, stays within
// this; I/O gives up at kIoBudget and a watchdog ends the process at
// kWatchdog should a blocking send hang.
inline constexpr std::chrono::milliseconds kIoBudget{2000};
inline constexpr std::chrono::milliseconds kWatchdog{2500};

// Waiting mode: the broker holds the wait at most kAnswerWait from the
// relay's start; the relay listens kAnswerSlack longer and a watchdog ends
// it at kAnswerWatchdog, before the provider's own 125 s hook timeout.
inline constexpr std::chrono::seconds kAnswerWait{120};
inline constexpr std::chrono::seconds kAnswerSlack{1};
inline constexpr std::chrono::milliseconds kAnswerWatchdog{123000};
// Between attempts to reach a broker that went away mid-wait.
inline constexpr std::chrono::milliseconds kReconnectInterval{100};

using Clock = std::chrono::steady_clock;

struct RelayOutcome {
  // The broker's result object when it answered ok.
  std::optional<protocol::Json> result;
  // One line (no newline) for stderr when the event was not taken.
  std::optional<std::string> feedback;
};

// The payload: args.payload_arg if given, else up to kMaxPayloadBytes from
// `stdin_fd` (a terminal is not read). nullopt for no payload; a Json
// document; or an error when it is too large or not JSON.
Result<std::optional<protocol::Json>> read_payload(const RelayArgs& args, int stdin_fd,
                                                   Clock::time_point deadline);

// The params of the one hook-event request.
protocol::Json hook_event_params(const RelayArgs& args, const std::optional<protocol::Json>& payload,
                                 std::int64_t client_pid);

// --wait-for-answer on a claude/codex PermissionRequest whose payload has a
// string session_id and tool_name and an object tool_input.
bool waits_for_answer(const RelayArgs& args, const std::optional<protocol::Json>& payload);

// Reads the payload, sends the request, waits for the reply until
// `deadline`; in waiting mode (waits_for_answer) until kAnswerWait after
// `started_at`, reconnecting after a lost broker.
RelayOutcome relay_hook(const RelayArgs& args, int stdin_fd, const std::string& socket_path,
                        Clock::time_point deadline, Clock::time_point started_at);

// The waiting mode's verdict line for stdout; nullopt = print nothing.
std::optional<std::string> verdict_line(const RelayOutcome& outcome);

}  // namespace signaltty::hookrelay
