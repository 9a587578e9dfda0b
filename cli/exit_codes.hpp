// cli/exit_codes.hpp: the signaltty CLI's exit statuses and how an Error
// maps onto them. Scripts rely on these numbers; the --help footer lists them.
// Runs in: CLI. Never: invents a status for one error code alone (only
// "broker not running" and the CLI's own refusal of an untrusted socket get
// their own).
#pragma once

#include <string>

#include "cli/socket_trust.hpp"
#include "cli/terminal_text.hpp"
#include "common/errors.hpp"

namespace signaltty::cli {

inline constexpr int kExitOk = 0;
// The broker answered with an error, or the conversation with it failed.
inline constexpr int kExitError = 1;
// The command line itself was wrong (CLI11's parse errors land here).
inline constexpr int kExitUsage = 2;
// No broker listens on the socket (missing socket or connection refused).
inline constexpr int kExitBrokerNotRunning = 3;
// `events --from-seq` could not prove a complete replay (subscribed:false):
// take a fresh snapshot, then subscribe again.
inline constexpr int kExitReplayIncomplete = 4;
// The CLI refused the socket before sending anything: its directory is not
// ours and private, or the process serving it runs as another uid
// (cli/socket_trust.hpp).
inline constexpr int kExitUntrustedSocket = 5;
// `audit verify|head`: the journal's chain, order or evidence disagree
// (docs/security.md, Audit journal).
inline constexpr int kExitAuditTampered = 6;
// `audit verify|head|show|tail`: the journal could not be read, there is
// none, or the anchor is older than what the journal retains.
inline constexpr int kExitAuditUnreadable = 7;

// NO_SUCH_SERVER is what the client reports when nothing listens.
inline int exit_code_for(const Error& error) {
  if (error.code == ErrorCode::NoSuchServer) return kExitBrokerNotRunning;
  if (is_untrusted_socket(error)) return kExitUntrustedSocket;
  return kExitError;
}

// "error: <CODE>: <message>", the one stderr line of a failed command.
// Line breaks and tabs in the message become spaces so it stays one line;
// any other control character is escaped (cli/terminal_text.hpp).
inline std::string error_line(const Error& error) {
  std::string message = error.message;
  for (char& c : message)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return "error: " + std::string(wire_name(error.code)) + ": " + printable(message);
}

// The --help footer: every status above, one line each.
inline std::string exit_status_footer() {
  auto line = [](int code, const char* meaning) {
    return "  " + std::to_string(code) + "  " + meaning + "\n";
  };
  return "Exit status:\n" + line(kExitOk, "success") +
         line(kExitError, "the broker answered with an error (printed as `error: CODE: message`)") +
         line(kExitUsage, "usage error") +
         line(kExitBrokerNotRunning,
              "broker not running (start it with `signaltty-broker` or `./packaging/dev.sh run`)") +
         line(kExitReplayIncomplete,
              "events: replay incomplete; fetch current state, then subscribe again") +
         line(kExitUntrustedSocket,
              "refused the broker socket (its directory is not yours and 0700, or another "
              "user serves it); nothing was sent") +
         line(kExitAuditTampered, "audit: the journal was altered (the first bad seq is printed)") +
         line(kExitAuditUnreadable, "audit: the journal could not be read or checked");
}

}  // namespace signaltty::cli
