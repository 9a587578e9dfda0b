// hookrelay/relay.hpp: one agent hook to the broker as one `hook-event`
// request (docs/rules.md "Hook relay", decision 21).
// Runs in: signaltty-hookrelay. Never: writes to stdout, retries a request,
// or reports a failure any other way than as the one feedback line.
//
// Usage:
//   RelayOutcome out = relay_hook(args, stdin_fd, socket_path, deadline);
//   if (out.feedback) write it to stderr;   // exit 0 either way
//
// The waiting mode (wait_for_answer: print the native verdict on stdout)
// is a later step: it adds a request flag and a printer for
// RelayOutcome::result; nothing here needs to change shape for it.
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

// Reads the payload, sends the request, waits for the reply until `deadline`.
RelayOutcome relay_hook(const RelayArgs& args, int stdin_fd, const std::string& socket_path,
                        Clock::time_point deadline);

}  // namespace signaltty::hookrelay
