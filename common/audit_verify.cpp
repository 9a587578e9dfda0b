// common/audit_verify.cpp: walks the journal's lines in file order (.1, then
// the live file) and reports the first record that breaks the chain, the
// seq order or the evidence.
// Runs in: CLI and tests.
#include "common/audit_verify.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <initializer_list>

#include "common/fs.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::audit {
namespace {

// Concatenation through one buffer (GCC 12 misreads `std::string(view) +
// "literal"` chains under inlining as out-of-bounds copies).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// Larger than any journal file the broker writes: the rotation threshold
// plus one maximal record, with room to spare.
constexpr std::size_t kMaxFileBytes = 128u << 20;
// How often verify_state_dir reads the files again when a running broker
// rotated under it.
constexpr int kVerifyAttempts = 3;

Result<std::optional<std::string>> read_optional(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) {
    if (errno == ENOENT) return std::optional<std::string>{};
    return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  }
  std::string text;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "read", errno, path);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes) return Error{ErrorCode::IoError, path + ": too large"};
  }
  return std::optional<std::string>(std::move(text));
}

// The state of the walk over both files.
class ChainWalk {
 public:
  ChainWalk(VerifyReport& report, const std::optional<Retention>& retention,
            const std::optional<ChainHead>& anchor)
      : report_(report), retention_(retention), anchor_(anchor) {}

  // `committed_bytes`: the length the evidence vouches for (the live file
  // may run past it while a broker writes, or after a crash).
  bool walk(std::string_view name, std::string_view text, std::uint64_t committed_bytes,
            std::uint64_t& records);

  bool tamper(std::optional<std::uint64_t> seq, std::string reason) {
    report_.outcome = Outcome::Tampered;
    report_.bad_seq = seq;
    report_.reason = std::move(reason);
    return false;
  }

  ChainHead committed_head;
  bool committed_boundary_seen = false;  // a line ends exactly at the committed length
  bool anchor_seen = false;
  bool have_last = false;

 private:
  bool record(std::string_view name, std::string_view line, bool committed,
              std::uint64_t& records);

  VerifyReport& report_;
  const std::optional<Retention>& retention_;
  const std::optional<ChainHead>& anchor_;
  bool chain_started_ = false;
};

bool ChainWalk::walk(std::string_view name, std::string_view text, std::uint64_t committed_bytes,
                     std::uint64_t& records) {
  committed_boundary_seen = committed_bytes == 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      const std::string where =
          cat({name, " ends inside a line after seq ", std::to_string(report_.head.seq)});
      if (name == kPredecessorName || pos < committed_bytes)
        return tamper(report_.head.seq + 1, where + " (inside the committed length)");
      report_.notes.push_back(where + ", " + std::to_string(text.size() - pos) +
                              " bytes past the committed length: an append a crash "
                              "interrupted; the broker ends that line when it starts");
      return true;
    }
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (pos == committed_bytes) committed_boundary_seen = true;
    if (!record(name, line, pos <= committed_bytes, records)) return false;
  }
  return true;
}

bool ChainWalk::record(std::string_view name, std::string_view line, bool committed,
                       std::uint64_t& records) {
  auto rec = parse_record_line(line);
  if (!rec) {
    report_.notes.push_back(cat({"a line in ", name, " after seq ",
                                 std::to_string(report_.head.seq)}) +
                            " is no record (an append a crash interrupted, ended at the "
                            "next start); it holds no record and is outside the chain");
    return true;
  }
  if (have_last && rec->seq <= report_.head.seq)
    return tamper(rec->seq, cat({"seq ", std::to_string(rec->seq), " in ", name,
                                 " does not follow seq ", std::to_string(report_.head.seq)}));
  if (rec->prev.empty()) {
    if (chain_started_)
      return tamper(rec->seq, "seq " + std::to_string(rec->seq) + " has no chain link (prev)");
    ++report_.unchained_records;
  } else {
    if (have_last && !report_.head.hash.empty() && rec->prev != report_.head.hash)
      return tamper(rec->seq, "seq " + std::to_string(rec->seq) +
                                  "'s prev is not the hash of the record before it (seq " +
                                  std::to_string(report_.head.seq) + ")");
    if (!have_last && retention_ && retention_->base_hash && rec->prev != *retention_->base_hash)
      return tamper(rec->seq, "seq " + std::to_string(rec->seq) +
                                  "'s prev is not the chain base the evidence commits: what "
                                  "came before it was removed");
    chain_started_ = true;
  }
  const ChainHead here{rec->seq, sha256_hex(line)};
  if (anchor_ && anchor_->seq == rec->seq) {
    if (anchor_->hash != here.hash)
      return tamper(rec->seq, "the record at the anchored seq " + std::to_string(rec->seq) +
                                  " is not the anchored one");
    anchor_seen = true;
  }
  if (!have_last) report_.first_seq = rec->seq;
  have_last = true;
  report_.head = here;
  if (committed) committed_head = here;
  ++records;
  return true;
}

// A bare JSON integer (docs/rules.md, Sequence reservation).
std::optional<std::uint64_t> parse_reservation(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string bytes_mismatch(std::string_view name, std::size_t have, std::uint64_t recorded) {
  return cat({name, " is ", std::to_string(have), " bytes, the evidence says ",
              std::to_string(recorded)});
}

// The lengths and head the evidence commits, against the files.
bool check_evidence(ChainWalk& walk, const JournalFiles& files, const Retention& r,
                    VerifyReport& report) {
  if (files.predecessor.has_value() != r.predecessor)
    return walk.tamper(std::nullopt,
                       cat({kPredecessorName, r.predecessor ? " is recorded but missing"
                                                            : " exists but is not recorded"}));
  if (files.predecessor && files.predecessor->size() != r.predecessor_bytes)
    return walk.tamper(std::nullopt,
                       bytes_mismatch(kPredecessorName, files.predecessor->size(),
                                      r.predecessor_bytes));
  const std::size_t current = files.current ? files.current->size() : 0;
  if (current < r.current_bytes || !walk.committed_boundary_seen)
    return walk.tamper(r.head_seq, bytes_mismatch(kCurrentName, current, r.current_bytes));
  if (r.chain_broken_at)
    return walk.tamper(*r.chain_broken_at,
                       "the broker found at its start that the journal no longer held its "
                       "committed head, seq " + std::to_string(*r.chain_broken_at));
  const ChainHead committed = r.head();
  if (committed.empty() && !walk.committed_head.empty()) {
    report.notes.push_back("the evidence commits no head (written by an older broker): a cut "
                           "at the end is detected only by the lengths");
  } else if (committed != walk.committed_head) {
    return walk.tamper(committed.seq,
                       "the committed head " + format_head(committed) +
                           " is not the last committed record (" +
                           (walk.committed_head.empty() ? std::string("none")
                                                        : format_head(walk.committed_head)) +
                           ")");
  }
  if (report.head != walk.committed_head)
    report.notes.push_back("records past the committed head, up to seq " +
                           std::to_string(report.head.seq) +
                           ": written but not yet vouched for (a broker writing now, or one "
                           "that stopped before it could)");
  if (!r.known_complete)
    report.notes.push_back("the evidence marks the history incomplete: replay from disk is "
                           "unavailable (the broker's log says why)");
  return true;
}

bool check_reservation(ChainWalk& walk, const JournalFiles& files, const VerifyReport& report) {
  if (!files.sequence) {
    if (walk.have_last)
      return walk.tamper(std::nullopt, cat({kSequenceName, " is missing"}));
    return true;
  }
  auto reserved = parse_reservation(*files.sequence);
  if (!reserved) return walk.tamper(std::nullopt, cat({kSequenceName, " does not parse"}));
  if (walk.have_last && *reserved < report.head.seq)
    return walk.tamper(report.head.seq,
                       cat({kSequenceName, " reserves ", std::to_string(*reserved),
                            ", below the journal's seq ", std::to_string(report.head.seq)}));
  return true;
}

void check_anchor(ChainWalk& walk, const ChainHead& anchor, VerifyReport& report) {
  if (walk.anchor_seen) {
    report.anchor_extended = true;
    return;
  }
  if (!walk.have_last || anchor.seq > report.head.seq) {
    walk.tamper(anchor.seq, "the journal ends at seq " + std::to_string(report.head.seq) +
                                ", before the anchored seq " + std::to_string(anchor.seq));
  } else if (anchor.seq < report.first_seq) {
    report.outcome = Outcome::Unreadable;
    report.reason = "the anchored seq " + std::to_string(anchor.seq) +
                    " is older than the retained journal (first seq " +
                    std::to_string(report.first_seq) + "); take a newer anchor";
  } else {
    walk.tamper(anchor.seq, "no record has the anchored seq " + std::to_string(anchor.seq));
  }
}

}  // namespace

// In the order a running broker keeps consistent: the evidence before the
// files it vouches for (they only grow past it), the reservation last (it
// is always ahead of the records).
Result<JournalFiles> load_journal_files(const std::string& state_dir) {
  JournalFiles files;
  SIGNALTTY_TRY(files.retention, read_optional(fs::join(state_dir, kRetentionName)));
  SIGNALTTY_TRY(files.predecessor, read_optional(fs::join(state_dir, kPredecessorName)));
  SIGNALTTY_TRY(files.current, read_optional(fs::join(state_dir, kCurrentName)));
  SIGNALTTY_TRY(files.sequence, read_optional(fs::join(state_dir, kSequenceName)));
  return files;
}

VerifyReport verify_state_dir(const std::string& state_dir,
                              const std::optional<ChainHead>& anchor) {
  VerifyReport report;
  for (int attempt = 0; attempt < kVerifyAttempts; ++attempt) {
    auto files = load_journal_files(state_dir);
    if (!files.ok()) {
      report = VerifyReport{};
      report.outcome = Outcome::Unreadable;
      report.reason = files.error().message;
      return report;
    }
    report = verify_journal(*files, anchor);
    if (report.outcome != Outcome::Tampered) return report;
    // A rotation between our reads looks like tampering; the evidence then
    // has changed since we read it, and a second look settles it.
    auto again = read_optional(fs::join(state_dir, kRetentionName));
    if (!again.ok() || *again == files->retention) return report;
  }
  return report;
}

VerifyReport verify_journal(const JournalFiles& files, const std::optional<ChainHead>& anchor) {
  VerifyReport report;
  if (!files.current && !files.predecessor && !files.retention) {
    report.outcome = Outcome::Unreadable;
    report.reason = "no audit journal here";
    return report;
  }
  std::optional<Retention> retention;
  if (files.retention) retention = parse_retention(*files.retention);
  ChainWalk walk(report, retention, anchor);
  if (!files.retention) {
    walk.tamper(std::nullopt, cat({kRetentionName, " is missing"}));
    return report;
  }
  if (!retention || retention_text(*retention) != *files.retention) {
    walk.tamper(std::nullopt, cat({kRetentionName, " is not as the broker writes it"}));
    return report;
  }
  if (!files.current) {
    walk.tamper(std::nullopt, cat({kCurrentName, " is missing"}));
    return report;
  }
  if (files.predecessor &&
      !walk.walk(kPredecessorName, *files.predecessor, files.predecessor->size(),
                 report.predecessor_records))
    return report;
  if (!walk.walk(kCurrentName, *files.current, retention->current_bytes, report.current_records))
    return report;
  if (!check_evidence(walk, files, *retention, report)) return report;
  if (!check_reservation(walk, files, report)) return report;
  if (report.unchained_records > 0)
    report.notes.push_back(std::to_string(report.unchained_records) +
                           " records from before the chain existed are not covered by it");
  if (anchor) check_anchor(walk, *anchor, report);
  return report;
}

}  // namespace signaltty::audit
