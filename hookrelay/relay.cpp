// hookrelay/relay.cpp: payload in, one hook-event request out, the reply
// turned into at most one feedback line (docs/rules.md "Hook relay").
// Runs in: signaltty-hookrelay. Never: blocks past the deadline on stdin,
// connect or the reply (poll; the one blocking send is bounded by main's
// watchdog), or buffers more than kMaxPayloadBytes + one read of stdin.
#include "hookrelay/relay.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "cli/client.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::hookrelay {
namespace {

using protocol::Json;

constexpr std::size_t kReadChunkBytes = 64u << 10;
constexpr const char* kPrefix = "signaltty-hookrelay: ";

int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 1 << 30));
}

// Reads `fd` to EOF; BAD_PARAMS past the cap, TIMEOUT at the deadline.
Result<std::string> read_bounded(int fd, Clock::time_point deadline) {
  std::string text;
  char chunk[kReadChunkBytes];
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, ms_left(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Error::from_errno(ErrorCode::IoError, "poll(stdin)", errno);
    if (ready == 0) return Error{ErrorCode::Timeout, "the hook's stdin did not end in time"};
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "read(stdin)", errno);
    if (n == 0) return text;
    text.append(chunk, static_cast<std::size_t>(n));
    if (text.size() > kMaxPayloadBytes)
      return Error{ErrorCode::BadParams, "the hook's payload is over 1 MiB"};
  }
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
}

std::string feedback_for(const RelayArgs& args, const std::string& why) {
  return std::string(kPrefix) + args.event + " not reported: " + why;
}

// The reply's verdict: nullopt when the broker took the event.
std::optional<std::string> refusal_in(const Json& result) {
  const bool accepted = !result.is_object() || result.value("accepted", true);
  const bool dropped = result.is_object() && result.value("dropped", false);
  if (accepted && !dropped) return std::nullopt;
  std::string reason = "refused";
  if (result.is_object() && result.contains("reason") && result["reason"].is_string())
    reason = result["reason"].get<std::string>();
  return dropped ? "dropped (" + reason + ")" : reason;
}

}  // namespace

Result<std::optional<Json>> read_payload(const RelayArgs& args, int stdin_fd,
                                         Clock::time_point deadline) {
  std::string text;
  if (args.payload_arg) {
    text = *args.payload_arg;
    if (text.size() > kMaxPayloadBytes)
      return Error{ErrorCode::BadParams, "the hook's payload is over 1 MiB"};
  } else if (stdin_fd >= 0 && ::isatty(stdin_fd) == 0) {
    SIGNALTTY_TRY(text, read_bounded(stdin_fd, deadline));
  }
  if (blank(text)) return std::optional<Json>{};
  SIGNALTTY_TRY(Json doc, protocol::parse_json(text));
  return std::optional<Json>(std::move(doc));
}

Json hook_event_params(const RelayArgs& args, const std::optional<Json>& payload,
                       std::int64_t client_pid) {
  Json params = {{"agent", protocol::Codec<protocol::AgentKind>::encode(args.agent)},
                 {"event", args.event},
                 {"client_pid", client_pid}};
  if (args.pane_id) params["pane_id"] = *args.pane_id;
  if (payload) params["payload"] = *payload;
  return params;
}

RelayOutcome relay_hook(const RelayArgs& args, int stdin_fd, const std::string& socket_path,
                        Clock::time_point deadline) {
  auto payload = read_payload(args, stdin_fd, deadline);
  if (!payload.ok()) return {std::nullopt, feedback_for(args, payload.error().message)};
  auto client = cli::Client::connect(socket_path, ::getuid(), deadline);
  if (!client.ok()) return {std::nullopt, feedback_for(args, client.error().message)};
  Json params = hook_event_params(args, *payload, static_cast<std::int64_t>(::getpid()));
  auto result = client->call("hook-event", params, deadline);
  if (!result.ok()) {
    const Error& e = result.error();
    return {std::nullopt, feedback_for(args, std::string(wire_name(e.code)) + ": " + e.message)};
  }
  auto refusal = refusal_in(*result);
  RelayOutcome out{std::move(*result), std::nullopt};
  if (refusal) out.feedback = feedback_for(args, *refusal);
  return out;
}

}  // namespace signaltty::hookrelay
