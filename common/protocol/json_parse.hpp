// common/protocol/json_parse.hpp: the one way a peer's JSON text becomes a
// Json tree. Nesting deeper than limits::kJsonMaxDepth is refused by a scan
// of the bytes before the parser builds anything, so no later copy, dump or
// destruction of the tree can recurse past that depth; malformed text is an
// error, never an exception.
// Runs in: every process (client lines, broker⇄ptyhost control frames).
// Never: throws, or hands a tree deeper than the limit to its caller.
//
// Usage:
//   Result<Json> doc = parse_json(line);   // BAD_PROTOCOL when refused
#pragma once

#include <cstddef>
#include <string_view>

#include "common/errors.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::protocol {

// The deepest '[' / '{' nesting in `text`, ignoring brackets inside JSON
// strings; stops counting once past `stop_after`.
std::size_t json_nesting_depth(std::string_view text, std::size_t stop_after);

// Parses one JSON document. BAD_PROTOCOL when it is not JSON or nests
// deeper than limits::kJsonMaxDepth.
Result<Json> parse_json(std::string_view text);

}  // namespace signaltty::protocol
