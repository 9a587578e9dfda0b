// common/protocol/schema.hpp: builds server.schema's result from the method
// and event tables. Runs in: broker (server.schema), CLI (subcommands).
// Never: lists anything not in AllMethods/AllEvents/ErrorCode.
#pragma once

#include "common/protocol/envelope.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::protocol {

inline constexpr std::string_view kVersion = "0.1.0";

ServerSchemaResult build_schema();

}  // namespace signaltty::protocol
