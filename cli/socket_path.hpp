// cli/socket_path.hpp: where the CLI looks for the broker's socket
// (docs/rules.md, "Paths and environment"): --socket, else SIGNALTTY_SOCKET,
// else $XDG_RUNTIME_DIR/signaltty/signaltty.sock, else
// /tmp/signaltty-$UID/signaltty.sock.
// Runs in: CLI. Never: creates or checks the directory (the broker owns it).
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace signaltty::cli {

inline constexpr std::string_view kSocketEnv = "SIGNALTTY_SOCKET";
inline constexpr std::string_view kRuntimeDirEnv = "XDG_RUNTIME_DIR";
inline constexpr std::string_view kSocketDirName = "signaltty";
inline constexpr std::string_view kSocketFileName = "signaltty.sock";
inline constexpr std::string_view kFallbackDirPrefix = "/tmp/signaltty-";

// Environment lookup; an unset or empty variable is nullopt.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment through getenv().
std::optional<std::string> process_env(std::string_view name);

// `flag` is the --socket value ("" when not given).
std::string resolve_socket_path(const std::string& flag, const EnvLookup& env, uid_t uid);

}  // namespace signaltty::cli
