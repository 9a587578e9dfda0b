// cli/stdin_read.hpp: reading a command's piped stdin to its end, bounded.
// Runs in: CLI. Never: reads past `max_bytes` plus one chunk.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::cli {

// Everything `fd` holds until EOF; BAD_PARAMS saying `too_big` once it is
// over `max_bytes`, IO_ERROR when a read fails.
Result<std::string> read_to_end_bounded(int fd, std::size_t max_bytes, std::string_view too_big);

}  // namespace signaltty::cli
