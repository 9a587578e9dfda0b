// common/audit_verify.hpp: the offline check of an audit journal: the hash
// chain across audit.jsonl.1 and audit.jsonl, seq order, the retention
// evidence (lengths and committed head), the sequence reservation and,
// optionally, a head anchored earlier (docs/security.md, Audit journal).
// Runs in: CLI (`signaltty audit verify|head`) and tests. Never: writes a
// file or needs a broker.
//
// Usage:
//   audit::VerifyReport report = audit::verify_state_dir(state_dir, anchor);
//   if (report.outcome == audit::Outcome::Tampered) ... report.bad_seq, report.reason
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/audit_chain.hpp"
#include "common/errors.hpp"

namespace signaltty::audit {

// The files of one state dir as bytes; nullopt for a file that does not exist.
struct JournalFiles {
  std::optional<std::string> predecessor;  // audit.jsonl.1
  std::optional<std::string> current;      // audit.jsonl
  std::optional<std::string> retention;    // audit-retention.json
  std::optional<std::string> sequence;     // event-sequence.json
};

// IO_ERROR when a file exists but cannot be read (or is larger than any
// journal the broker writes).
Result<JournalFiles> load_journal_files(const std::string& state_dir);

enum class Outcome {
  Clean,         // the chain, order and evidence agree (and extend the anchor)
  Tampered,      // something disagrees: bad_seq (when known) and reason say what
  Unreadable,    // nothing to check, or the anchor is older than the retained journal
};

struct VerifyReport {
  Outcome outcome = Outcome::Clean;
  std::optional<std::uint64_t> bad_seq;  // the first record found wrong
  std::string reason;
  std::vector<std::string> notes;  // what is worth knowing but no tampering
  std::uint64_t predecessor_records = 0;
  std::uint64_t current_records = 0;
  std::uint64_t unchained_records = 0;  // written before the chain existed
  std::uint64_t first_seq = 0;
  ChainHead head;  // the last record on disk
  bool anchor_extended = false;
};

VerifyReport verify_journal(const JournalFiles& files,
                            const std::optional<ChainHead>& anchor = std::nullopt);

// load_journal_files + verify_journal, safe next to a running broker: a
// failure is looked at again when the evidence changed meanwhile (a
// rotation). A file that cannot be read is Unreadable.
VerifyReport verify_state_dir(const std::string& state_dir,
                              const std::optional<ChainHead>& anchor = std::nullopt);

}  // namespace signaltty::audit
