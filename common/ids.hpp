// common/ids.hpp: entity ids `<prefix>_<32 lowercase hex>` (docs/rules.md, Ids, handles, names)
// and RFC 3339 UTC timestamps. Runs in: every process.
// Never: derives an id from anything guessable (ids come from the kernel CSPRNG).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace signaltty {

// docs/rules.md (Model), Ids: `<prefix>_` then this many lowercase hex digits.
inline constexpr std::size_t kIdHexDigits = 32;
// The prefix of pane ids ("pane_…").
inline constexpr std::string_view kPaneIdPrefix = "pane";

// Fills `out` from the kernel CSPRNG (getrandom(2)); false only if the
// kernel refuses, never short. The one source of random bytes: ids and the
// pane token key. It needs no library state, unlike OpenSSL's DRBG, whose
// start-up alone kept about 0.25 MiB resident in the broker.
bool fill_random(std::span<std::uint8_t> out);

// A fresh random id, e.g. new_id("ws") → "ws_3f2a…" (32 hex digits).
std::string new_id(std::string_view prefix);
// True iff `text` is `<prefix>_<32 lowercase hex>` for some non-empty prefix.
bool looks_like_id(std::string_view text);
// True iff `text` is `<prefix>_<32 lowercase hex>` with exactly `prefix`.
bool is_id_with_prefix(std::string_view text, std::string_view prefix);
// True iff `text` is a pane id, `pane_<32 lowercase hex>`: the one check
// for ids that name files and sockets (ptyhost sockets, tails) or arrive
// from another process.
bool is_pane_id(std::string_view text);

// "2026-11-30T06:12:39.123Z"
std::string rfc3339_utc(std::chrono::system_clock::time_point t);
std::string now_rfc3339();
// "20261130T061239" for file names (docs/rules.md, Snapshot).
std::string compact_utc(std::chrono::system_clock::time_point t);

}  // namespace signaltty
