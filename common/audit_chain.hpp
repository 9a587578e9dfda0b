// common/audit_chain.hpp: the on-disk format of the audit journal shared by
// the broker (which writes it) and the CLI (which verifies and reads it
// offline): file names, the hash chain that links each record to the one
// before it, the chain head, and the retention evidence file
// (docs/security.md, Audit journal; docs/rules.md, Event journal).
// Runs in: broker and CLI. Never: touches a file; it only encodes and
// decodes bytes.
//
// Usage:
//   std::string line = audit::link_record(body, prev_hash);   // broker
//   head = audit::ChainHead{seq, audit::sha256_hex(line)};
//   auto rec = audit::parse_record_line(line);                // readers
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/protocol/codec.hpp"

namespace signaltty::audit {

using protocol::Json;

inline constexpr std::string_view kCurrentName = "audit.jsonl";
inline constexpr std::string_view kPredecessorName = "audit.jsonl.1";
inline constexpr std::string_view kRetentionName = "audit-retention.json";
inline constexpr std::string_view kSequenceName = "event-sequence.json";
// The evidence is one JSON object padded with spaces to one 512-byte sector
// (docs/rules.md, Event journal).
inline constexpr std::size_t kRetentionSlotBytes = 512;
// A SHA-256 digest in lowercase hex.
inline constexpr std::size_t kHashHexChars = 64;

// SHA-256 of `bytes` (OpenSSL libcrypto), lowercase hex.
std::string sha256_hex(std::string_view bytes);
// The `prev` of the first record of a chain begun on an empty journal.
std::string genesis_hash();
bool is_hash_hex(std::string_view text);

// The last record of the chain: its seq and the SHA-256 of its exact line
// bytes (without the '\n'). An empty hash means "no record yet".
struct ChainHead {
  std::uint64_t seq = 0;
  std::string hash;
  bool empty() const { return hash.empty(); }
  bool operator==(const ChainHead&) const = default;
};
// "SEQ:HASH", what `signaltty audit head` prints and `--anchor` takes.
std::string format_head(const ChainHead& head);
std::optional<ChainHead> parse_head(std::string_view text);

// A record line as journaled, `{"seq":N,"event":…,"payload":…,"at":…}`
// (plus `state` on a transaction's last record), with the chain link
// `"prev":"<hex>"` added as its last member.
std::string link_record(std::string_view record, std::string_view prev_hash);

// A record as the readers see it. `prev` is empty on a record written
// before the chain existed.
struct RecordLine {
  std::uint64_t seq = 0;
  std::string event;
  Json payload;
  std::string at;
  std::string prev;
};
// nullopt when the line is no record (no unsigned seq, string event and
// payload, or a `prev` that is not a hash).
std::optional<RecordLine> parse_record_line(std::string_view line);

// audit-retention.json (docs/rules.md, Event journal). head_* is the chain
// head as of the last sync; base_hash is what the first retained record's
// `prev` must be (the genesis hash, or the last record rotation discarded);
// chain_broken_at is set (for good) when the broker found at start that the
// files no longer held the committed head.
struct Retention {
  std::uint64_t retained_after = 0;
  bool predecessor = false;
  std::uint64_t current_bytes = 0;
  std::uint64_t predecessor_bytes = 0;
  bool known_complete = false;
  std::optional<std::uint64_t> head_seq;
  std::optional<std::string> head_hash;
  std::optional<std::string> base_hash;
  std::optional<std::uint64_t> chain_broken_at;
  static constexpr auto fields() {
    using R = Retention;
    using protocol::opt;
    using protocol::req;
    return std::tuple{req("retained_after", &R::retained_after),
                      req("predecessor", &R::predecessor),
                      req("current_bytes", &R::current_bytes),
                      req("predecessor_bytes", &R::predecessor_bytes),
                      req("known_complete", &R::known_complete),
                      opt("head_seq", &R::head_seq),
                      opt("head_hash", &R::head_hash),
                      opt("base_hash", &R::base_hash),
                      opt("chain_broken_at", &R::chain_broken_at)};
  }
  ChainHead head() const { return {head_seq.value_or(0), head_hash.value_or("")}; }
  void set_head(const ChainHead& h);
};
// The evidence as the broker writes it: one sector, the object, spaces, a
// final newline.
std::string retention_text(const Retention& retention);
// nullopt when `text` does not decode.
std::optional<Retention> parse_retention(std::string_view text);

}  // namespace signaltty::audit
