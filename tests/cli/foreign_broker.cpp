// tests/cli/foreign_broker.cpp: a fake broker the socket-trust tests run as
// another uid (under setpriv). It inherits a bound, not yet listening
// socket on fd 3, so the kernel records the other uid as the listener's
// credentials; it says "listening" on stdout, answers every request line
// with a plausible server.status result (an unguarded client would believe
// it), and when the client hangs up prints how many bytes it received.
// Runs in: tests only. Never: outlives the client's connection.
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "common/protocol/envelope.hpp"

namespace {
namespace SIGNALTTY_UNITY_ID {

using signaltty::protocol::Json;

constexpr int kBoundSocketFd = 3;
constexpr int kBacklog = 1;
constexpr int kExitFailed = 2;

void say(std::string_view text) {
  const std::string line = std::string(text) + "\n";
  (void)!::write(STDOUT_FILENO, line.data(), line.size());
}

void answer(int fd, const std::string& request) {
  const Json parsed = Json::parse(request, nullptr, false);
  const Json id = parsed.is_object() ? parsed.value("id", Json(nullptr)) : Json(nullptr);
  const Json status = {{"version", "0.1.0"}, {"protocol", "signaltty/1"}, {"uptime_s", 1},
                       {"workspaces", 0},    {"tabs", 0},                 {"panes", 0},
                       {"live_panes", 0},    {"seq", 0},                  {"journal_events", 0},
                       {"journal_syncs", 0}};
  const std::string line = signaltty::protocol::encode_ok(id, status);
  (void)!::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

int main() {
  if (::listen(kBoundSocketFd, kBacklog) != 0) return kExitFailed;
  say("listening");
  const int client = ::accept(kBoundSocketFd, nullptr, nullptr);
  if (client < 0) return kExitFailed;
  std::size_t received = 0;
  std::string pending;
  char chunk[4096];
  for (ssize_t n; (n = ::read(client, chunk, sizeof chunk)) > 0;) {
    received += static_cast<std::size_t>(n);
    pending.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
      answer(client, pending.substr(0, nl));
  }
  say(std::to_string(received));
  return 0;
}
