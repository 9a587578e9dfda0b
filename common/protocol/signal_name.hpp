// common/protocol/signal_name.hpp: the signal names a client may send
// (pane.signal, *.close): INT TERM KILL HUP QUIT WINCH USR1 USR2,
// case-insensitive, optional SIG prefix; anything else is BAD_PARAMS.
// Runs in: every process. Never: maps a name outside that allowlist.
#pragma once

#include <string>

#include "common/protocol/codec.hpp"

namespace signaltty::protocol {

struct SignalName {
  int number = 15;
  std::string name = "TERM";  // canonical, without SIG
  bool operator==(const SignalName&) const = default;
};

Result<SignalName> parse_signal_name(std::string_view text);

template <>
struct Codec<SignalName> {
  static Result<SignalName> decode(const Json& j, std::string_view path);
  static Json encode(const SignalName& v) { return v.name; }
  static Json schema();
};

}  // namespace signaltty::protocol
