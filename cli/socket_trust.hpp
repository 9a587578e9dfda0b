// cli/socket_trust.hpp: what the CLI proves about the broker's socket before
// it sends a byte: the socket's directory belongs to us and is closed to
// group and others (0700), and the process listening on it runs as our uid
// (SO_PEERCRED). Anyone who can create /tmp/signaltty-$UID first could
// otherwise serve a fake broker there and read every key typed into
// `attach` (docs/cli.md, "Which broker the CLI talks to").
// Runs in: CLI. Never: creates, chmods or chowns anything (the broker owns
// its directory), or lets an unproven socket count as "broker not running".
#pragma once

#include <sys/types.h>

#include <string>

#include "common/errors.hpp"

namespace signaltty::cli {

// The Error::details key that marks a refusal of the socket itself (as
// opposed to a FORBIDDEN reply from a broker we trusted).
inline constexpr const char* kUntrustedSocketDetail = "untrusted_socket";

// FORBIDDEN, marked as a refusal of the socket at `socket_path`.
Error untrusted_socket(const std::string& socket_path, const std::string& why);
bool is_untrusted_socket(const Error& error);

// Before connecting: the directory holding `socket_path` must be a
// directory owned by `uid` with no group or world permission bits.
// NO_SUCH_SERVER when the directory or the socket does not exist (nothing
// listens, so nothing to trust).
Status check_socket_directory(const std::string& socket_path, uid_t uid);

// After connecting, before sending: the peer on `fd` must run as `uid`.
Status check_broker_peer(int fd, const std::string& socket_path, uid_t uid);

}  // namespace signaltty::cli
