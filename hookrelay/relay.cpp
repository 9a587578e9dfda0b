// hookrelay/relay.cpp: payload in, one hook-event request out, the reply
// turned into at most one feedback line (docs/rules.md "Hook relay").
// Runs in: signaltty-hookrelay. Never: blocks past the deadline on stdin,
// connect or the reply (poll; the one blocking send is bounded by main's
// watchdog), or buffers more than kMaxPayloadBytes + one read of stdin.
#include "hookrelay/relay.hpp"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "cli/client.hpp"
#include "common/ids.hpp"
#include "common/protocol/json_parse.hpp"
#include "common/protocol/methods/agent.hpp"

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

// A wait whose connection this is can be taken up again elsewhere: the
// broker closed it (crash, restart) or is not listening right now.
bool broker_went_away(const Error& e) {
  return e.code == ErrorCode::IoError || e.code == ErrorCode::NoSuchServer;
}

void pause_before_reconnect() {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(kReconnectInterval).count();
  timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

double seconds_until(Clock::time_point t) {
  const double left = std::chrono::duration<double>(t - Clock::now()).count();
  return std::clamp(left, protocol::kHookAnswerTimeoutMinS, protocol::kHookAnswerTimeoutMaxS);
}

RelayOutcome answered(const RelayArgs& args, Json result) {
  auto refusal = refusal_in(result);
  RelayOutcome out{std::move(result), std::nullopt};
  if (refusal) out.feedback = feedback_for(args, *refusal);
  return out;
}

// One registration after another until the broker answers, refuses, or
// the wait is over. The first connect gets the plain I/O budget: with no
// broker at all the agent shows its own dialog at once.
RelayOutcome wait_for_verdict(const RelayArgs& args, const Json& payload,
                              const std::string& socket_path, Clock::time_point started_at) {
  const std::string decision_id = new_id(protocol::kNativeDecisionPrefix);
  const auto answer_by = started_at + kAnswerWait;
  const auto give_up = answer_by + kAnswerSlack;
  bool registered = false;
  while (Clock::now() < answer_by) {
    auto client = cli::Client::connect(socket_path, ::getuid(),
                                       registered ? give_up : started_at + kIoBudget);
    if (!client.ok()) {
      if (!registered || !broker_went_away(client.error()))
        return {std::nullopt, feedback_for(args, client.error().message)};
      pause_before_reconnect();
      continue;
    }
    Json params = hook_event_params(args, payload, static_cast<std::int64_t>(::getpid()));
    params["wait_for_answer"] = true;
    params["decision_id"] = decision_id;
    params["wait_timeout_s"] = seconds_until(answer_by);
    registered = true;
    auto result = client->call("hook-event", params, give_up);
    if (result.ok()) return answered(args, std::move(*result));
    if (!broker_went_away(result.error()))
      return {std::nullopt, feedback_for(args, std::string(wire_name(result.error().code)) + ": " +
                                                   result.error().message)};
  }
  return {std::nullopt, feedback_for(args, "no answer within the wait; the agent asks itself")};
}

}  // namespace

bool waits_for_answer(const RelayArgs& args, const std::optional<Json>& payload) {
  const bool native = args.agent == protocol::AgentKind::Claude ||
                      args.agent == protocol::AgentKind::Codex;
  if (!args.wait_for_answer || !native || args.event != "PermissionRequest") return false;
  if (!payload || !payload->is_object()) return false;
  auto text = [&](const char* key) {
    auto it = payload->find(key);
    return it != payload->end() && it->is_string() && !it->get_ref<const std::string&>().empty();
  };
  auto input = payload->find("tool_input");
  return text("session_id") && text("tool_name") && input != payload->end() && input->is_object();
}

std::optional<std::string> verdict_line(const RelayOutcome& outcome) {
  if (!outcome.result || !outcome.result->is_object()) return std::nullopt;
  auto it = outcome.result->find("native_verdict");
  if (it == outcome.result->end() || !it->is_object()) return std::nullopt;
  return it->dump();
}

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
                        Clock::time_point deadline, Clock::time_point started_at) {
  auto payload = read_payload(args, stdin_fd, deadline);
  if (!payload.ok()) return {std::nullopt, feedback_for(args, payload.error().message)};
  if (waits_for_answer(args, *payload))
    return wait_for_verdict(args, **payload, socket_path, started_at);
  auto client = cli::Client::connect(socket_path, ::getuid(), deadline);
  if (!client.ok()) return {std::nullopt, feedback_for(args, client.error().message)};
  Json params = hook_event_params(args, *payload, static_cast<std::int64_t>(::getpid()));
  auto result = client->call("hook-event", params, deadline);
  if (!result.ok()) {
    const Error& e = result.error();
    return {std::nullopt, feedback_for(args, std::string(wire_name(e.code)) + ": " + e.message)};
  }
  return answered(args, std::move(*result));
}

}  // namespace signaltty::hookrelay
