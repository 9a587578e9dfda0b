// common/ids.hpp: entity ids `<prefix>_<32 lowercase hex>` (docs/rules.md, Ids, handles, names)
// and RFC 3339 UTC timestamps. Runs in: every process.
// Never: derives an id from anything guessable (ids come from the kernel CSPRNG).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace signaltty {

// A fresh random id, e.g. new_id("ws") → "ws_3f2a…" (32 hex digits).
std::string new_id(std::string_view prefix);
// True iff `text` is `<prefix>_<32 lowercase hex>` for some non-empty prefix.
bool looks_like_id(std::string_view text);

// "2026-11-30T06:12:39.123Z"
std::string rfc3339_utc(std::chrono::system_clock::time_point t);
std::string now_rfc3339();
// "20261130T061239" for file names (docs/rules.md, Snapshot).
std::string compact_utc(std::chrono::system_clock::time_point t);

}  // namespace signaltty
