// cli/human_output.hpp: how a method's result is printed: concise text for
// people by default, the result object verbatim with --json.
// Runs in: CLI. Never: prints to stderr (errors are app.cpp's), hides a
// result it cannot format (unknown shapes get a generic key: value view), or
// prints a control character the broker sent (cli/terminal_text.hpp).
#pragma once

#include <ostream>
#include <string_view>

#include "common/protocol/codec.hpp"

namespace signaltty::cli {

enum class JsonStyle { OneLine, Pretty };

// Human view of `result` for `method`: tables for lists, key: value blocks
// for single entities; methods without a view of their own, or a result that
// does not decode as declared, get one "key: value" line per member.
void render_human(std::string_view method, const protocol::Json& result, std::ostream& out);

// The --json form: `result` as the broker sent it, with DEL and C1
// controls \u-escaped like JSON already escapes C0 ones.
void render_json(const protocol::Json& result, JsonStyle style, std::ostream& out);

}  // namespace signaltty::cli
