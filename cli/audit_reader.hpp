// cli/audit_reader.hpp: the reviewer's side of `signaltty audit show|tail`:
// reading the journal's lines (.1, then the live file) straight from the
// state dir, following the live file across rotation, the record filters
// (--since, --from-seq, --pane, --workspace, --event) and the one-line
// table row of a record.
// Runs in: CLI. Never: writes to the state dir or talks to the broker.
//
// Usage:
//   AuditFollower follower(state_dir);
//   for (auto& line : follower.read_new_lines()) ...   // everything so far
//   follower.wait_for_change(1000); follower.read_new_lines();  // -f
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/audit_chain.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::cli {

// A journal line that is a record, with its exact bytes.
struct AuditLine {
  std::string raw;
  audit::RecordLine record;
};

struct AuditFilter {
  std::string since;  // lower bound on `at`, as since_bound() made it; empty: none
  std::optional<std::uint64_t> from_seq;  // inclusive
  std::string pane;
  std::string workspace;
  std::string event_glob;
  bool matches(const audit::RecordLine& rec) const;
};

// --since: an RFC 3339 UTC time or a prefix of one ("2026-03-01",
// "2026-03-01T10:00", "…:00Z"), or a span back from `now` ("90s", "15m",
// "2h", "7d"). BAD_PARAMS otherwise.
Result<std::string> since_bound(std::string_view text, std::chrono::system_clock::time_point now);

// Whether `payload` names `id` as a pane (kind "pane") or workspace (kind
// "workspace"): a `<kind>_id` key, a `<kind>_ids` list, or a `<kind>`
// object with that `id`, at any depth.
bool payload_names(const audit::Json& payload, std::string_view kind, std::string_view id);

// "TIME  SEQ  EVENT  TARGET  SUMMARY", terminal-safe, one line.
std::string format_row(const audit::RecordLine& rec);

// Reads the journal's records in file order and, called again, the ones
// appended since; across a rotation it finishes the renamed file first.
class AuditFollower {
 public:
  explicit AuditFollower(std::string state_dir);

  // The records written since the last call (all of .1 and the live file
  // on the first). Lines that are no record are skipped; a line still
  // being written waits for its newline. IO_ERROR when a file exists but
  // cannot be read.
  Result<std::vector<AuditLine>> read_new_lines();
  // Blocks until the state dir changes or `timeout_ms` passes.
  void wait_for_change(int timeout_ms);

 private:
  Status read_fd_to_end(std::vector<AuditLine>& out);
  Status open_live();

  std::string state_dir_;
  bool started_ = false;
  UniqueFd live_;
  ino_t live_ino_ = 0;
  std::uint64_t offset_ = 0;
  std::string partial_;
  UniqueFd watch_;  // inotify on the state dir, when available
};

}  // namespace signaltty::cli
