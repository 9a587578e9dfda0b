// broker/audit_journal.cpp: owns audit.jsonl and its one .1 predecessor,
// and audit-retention.json, the evidence that says whether the history on
// disk is complete (docs/rules.md, Event journal).
// Runs in: broker. Each record is synced, and its evidence rewritten,
// before the pipeline publishes its event.
// Never: rewrites or drops a record; never turns an unprovable history
// back into a provable one.
#include "broker/audit_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <limits>
#include <optional>
#include <string_view>

#include "common/fs.hpp"
#include "common/io_fault.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

// The names of common/audit_chain.hpp, as C strings.
constexpr const char* kCurrentName = audit::kCurrentName.data();
constexpr const char* kPredecessorName = audit::kPredecessorName.data();
constexpr const char* kRetentionName = audit::kRetentionName.data();
// Only its existence matters here: a journal without evidence next to a
// reservation file has had records, whatever the journal shows now.
constexpr const char* kSequenceName = audit::kSequenceName.data();
constexpr std::size_t kReadChunkBytes = 64 * 1024;
constexpr std::size_t kRetentionMaxBytes = 4096;
// The evidence is one JSON object padded with spaces to one 512-byte
// sector (audit::retention_text), so a rewrite is one aligned write that
// neither changes the file's size nor spans sectors, and one fdatasync
// makes it durable. A write torn anyway leaves bytes that do not parse or
// do not match the files: history reads as unprovable, never the reverse.

// ---- reading lines ------------------------------------------------------

enum class LineKind { Complete, Oversized, Torn };
enum class Next { Continue, Stop };
using LineFn = std::function<Next(std::string_view line, LineKind kind)>;

// Calls `fn` for each line in [0, limit) of `fd`; a last line without '\n'
// is reported as Torn. Returns how many bytes were read.
Result<std::uint64_t> for_each_line(int fd, std::uint64_t limit, const LineFn& fn) {
  std::string line;
  bool oversized = false;
  std::vector<char> buf(kReadChunkBytes);
  std::uint64_t off = 0;
  while (off < limit) {
    auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), limit - off));
    ssize_t n = ::pread(fd, buf.data(), want, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "pread", errno, "audit journal");
    if (n == 0) break;
    off += static_cast<std::uint64_t>(n);
    std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    while (!chunk.empty()) {
      auto nl = chunk.find('\n');
      auto part = chunk.substr(0, nl);
      if (!oversized && line.size() + part.size() > kJournalMaxLineBytes) {
        oversized = true;
        std::string().swap(line);
      }
      if (!oversized) line.append(part);
      if (nl == std::string_view::npos) break;
      if (fn(line, oversized ? LineKind::Oversized : LineKind::Complete) == Next::Stop) return off;
      line.clear();
      oversized = false;
      chunk.remove_prefix(nl + 1);
    }
  }
  if (!line.empty() || oversized) fn(line, LineKind::Torn);
  return off;
}

// A well-formed record has an unsigned `seq`, a string `event` and a
// `payload`; `at` is kept when it is a string.
std::optional<StateEvent> parse_record(std::string_view line) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto seq = j.find("seq");
  auto event = j.find("event");
  auto payload = j.find("payload");
  if (seq == j.end() || !seq->is_number_unsigned()) return std::nullopt;
  if (event == j.end() || !event->is_string() || payload == j.end()) return std::nullopt;
  StateEvent ev;
  ev.seq = seq->get<std::uint64_t>();
  ev.name = event->get<std::string>();
  ev.payload = std::move(*payload);
  if (auto at = j.find("at"); at != j.end() && at->is_string()) ev.at = at->get<std::string>();
  return ev;
}

// The seq of a line as encode_record writes it (`{"seq":N,`), read
// without parsing the rest; nullopt when the line does not start so.
std::optional<std::uint64_t> leading_seq(std::string_view line) {
  constexpr std::string_view kPrefix = "{\"seq\":";
  if (!line.starts_with(kPrefix)) return std::nullopt;
  line.remove_prefix(kPrefix.size());
  std::uint64_t seq = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), seq);
  if (ec != std::errc() || end == line.data() || end == line.data() + line.size() || *end != ',')
    return std::nullopt;
  return seq;
}

ReplayLine parse_replay_line(std::string_view line) {
  Json j = Json::parse(line, nullptr, false);
  ReplayLine out;
  if (j.is_discarded() || !j.is_object()) return out;
  auto seq = j.find("seq");
  auto event = j.find("event");
  if (seq == j.end() || !seq->is_number_unsigned() || event == j.end() || !event->is_string() ||
      !j.contains("payload"))
    return out;
  out.seq = seq->get<std::uint64_t>();
  out.event = event->get<std::string>();
  if (auto state = j.find("state"); state != j.end()) out.state = std::move(*state);
  return out;
}

// ---- scanning at open ---------------------------------------------------

struct FileScan {
  bool exists = false;
  std::uint64_t bytes = 0;
  bool clean = true;  // every line a record, seqs increasing, no torn tail
  bool torn = false;
  std::uint64_t records = 0;
  std::uint64_t max_seq = 0;
  audit::ChainHead last;        // the last well-formed record line
  bool holds_committed = false;  // a line is the committed head
};

// The chain state a scan carries from .1 into the current file.
struct ChainScan {
  std::uint64_t prev_seq = 0;
  audit::ChainHead committed;  // the evidence's head, empty when none
};

// `chain` carries the strict-increase check from .1 into the current file.
// Only the committed head's line and the last record are hashed.
Result<FileScan> scan_file(const UniqueFd& fd, ChainScan& chain) {
  std::uint64_t& prev_seq = chain.prev_seq;
  std::string last_line;
  FileScan scan;
  if (!fd) return scan;
  scan.exists = true;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return Error::from_errno(ErrorCode::IoError, "fstat", errno, "audit journal");
  scan.bytes = static_cast<std::uint64_t>(st.st_size);
  auto read = for_each_line(fd.get(), scan.bytes, [&](std::string_view line, LineKind kind) {
    if (kind == LineKind::Torn) scan.torn = true;
    auto rec = kind == LineKind::Complete ? parse_record(line) : std::nullopt;
    if (!rec || rec->seq <= prev_seq) {
      scan.clean = false;
      if (rec) scan.max_seq = std::max(scan.max_seq, rec->seq);
      return Next::Continue;
    }
    prev_seq = rec->seq;
    scan.max_seq = std::max(scan.max_seq, rec->seq);
    ++scan.records;
    scan.last.seq = rec->seq;
    last_line.assign(line);
    if (!chain.committed.empty() && rec->seq == chain.committed.seq &&
        audit::sha256_hex(line) == chain.committed.hash)
      scan.holds_committed = true;
    return Next::Continue;
  });
  if (!read.ok()) return std::move(read).error();
  if (scan.records > 0) scan.last.hash = audit::sha256_hex(last_line);
  return scan;
}

enum class Evidence { Missing, Unreadable, Present };
struct RecordedRetention {
  Evidence state = Evidence::Missing;
  JournalRetention value;
};

RecordedRetention read_retention(const std::string& path) {
  if (!fs::exists(path)) return {};
  auto text = fs::read_file(path, kRetentionMaxBytes);
  if (!text.ok()) {
    log::warn("audit journal: cannot read retention evidence: " + text.error().message);
    return {Evidence::Unreadable, {}};
  }
  Json j = Json::parse(*text, nullptr, false);
  auto decoded = protocol::decode<JournalRetention>(j, "audit-retention");
  if (j.is_discarded() || !decoded.ok()) {
    log::warn("audit journal: retention evidence does not parse; history is unprovable");
    return {Evidence::Unreadable, {}};
  }
  // Exactly as we write it: a torn rewrite can mangle a key of an optional
  // member (the head) into one that is ignored, and still parse.
  std::string_view object(*text);
  object = object.substr(0, object.find_last_not_of(" \n") + 1);
  if (object != protocol::encode(*decoded).dump()) {
    log::warn("audit journal: retention evidence is not as written; history is unprovable");
    return {Evidence::Unreadable, {}};
  }
  return {Evidence::Present, *decoded};
}

struct Verdict {
  bool provable = false;
  std::uint64_t retained_after = 0;
  std::string reason;  // why not provable
};

// The provability rules of docs/rules.md "Event journal", applied at open.
Verdict judge(const RecordedRetention& rec, const FileScan& pred, const FileScan& cur,
              bool sequence_file_exists) {
  const std::uint64_t found_max = std::max(pred.max_seq, cur.max_seq);
  const bool clean = pred.clean && cur.clean;
  if (rec.state == Evidence::Missing) {
    const bool fresh = pred.records == 0 && cur.records == 0 && !sequence_file_exists;
    if (fresh && clean) return {true, found_max, {}};
    return {false, found_max, "journal without retention evidence (legacy or fresh with records)"};
  }
  if (rec.state == Evidence::Unreadable) return {false, found_max, "retention evidence unreadable"};
  const JournalRetention& r = rec.value;
  Verdict v{false, r.retained_after, {}};
  if (!r.known_complete)
    v.reason = "history was already marked incomplete";
  else if (cur.bytes != r.current_bytes)
    v.reason = std::string(kCurrentName) + " is " + std::to_string(cur.bytes) +
               " bytes, evidence says " + std::to_string(r.current_bytes);
  else if (pred.exists != r.predecessor)
    v.reason = std::string(kPredecessorName) + (pred.exists ? " exists but is not recorded"
                                                            : " is recorded but missing");
  else if (pred.exists && pred.bytes != r.predecessor_bytes)
    v.reason = std::string(kPredecessorName) + " is " + std::to_string(pred.bytes) +
               " bytes, evidence says " + std::to_string(r.predecessor_bytes);
  else if (!clean)
    v.reason = "a journal line is torn, malformed or out of sequence";
  else if (!r.head().empty() && r.head() != (cur.records > 0 ? cur.last : pred.last))
    v.reason = "the committed chain head is not the journal's last record";
  else
    v.provable = true;
  return v;
}

// ---- writing ------------------------------------------------------------

Result<UniqueFd> open_current(const std::string& path, int extra_flags) {
  UniqueFd fd(::open(path.c_str(),
                     O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | extra_flags, 0600));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  return fd;
}

// The predecessor, or an empty fd when it does not exist.
Result<UniqueFd> open_predecessor(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd && errno != ENOENT) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  return fd;
}

// A failure is final: the pages' state is unknown after a failed sync, so
// the caller stops rather than sync again (docs/persistence.md, I/O faults).
Status datasync(const UniqueFd& fd, const std::string& path) {
  if (io_fault::fdatasync(fd.get(), path) != 0)
    return Error::from_errno(ErrorCode::IoError, "fdatasync", errno, path);
  return {};
}

}  // namespace

// ---- open ---------------------------------------------------------------

AuditJournal::AuditJournal(std::string state_dir, JournalRetention retention,
                           std::uint64_t max_seq, std::uint64_t rotate_bytes)
    : state_dir_(std::move(state_dir)),
      retention_(std::move(retention)),
      last_seq_(max_seq),
      rotate_bytes_(rotate_bytes),
      max_seq_at_open_(max_seq) {}

AuditJournal::~AuditJournal() = default;

namespace {

// The head recorded at the last sync must still be in the files; when it is
// not, the journal was cut or rewritten while no broker watched. That is
// recorded for good: `signaltty audit verify` reports it from then on.
std::optional<std::uint64_t> chain_break(const RecordedRetention& recorded, const FileScan& pred,
                                         const FileScan& cur) {
  if (recorded.state != Evidence::Present) return std::nullopt;
  if (recorded.value.chain_broken_at) return recorded.value.chain_broken_at;
  const audit::ChainHead committed = recorded.value.head();
  if (committed.empty() || pred.holds_committed || cur.holds_committed) return std::nullopt;
  log::warn("audit journal: the committed chain head " + audit::format_head(committed) +
            " is no longer in the journal; it was cut or rewritten");
  return committed.seq;
}

// What the first retained record links to: as the evidence says, or the
// genesis hash for a journal that never had a record.
std::optional<std::string> chain_base(const RecordedRetention& recorded,
                                      const audit::ChainHead& head) {
  if (recorded.state == Evidence::Present && recorded.value.base_hash)
    return recorded.value.base_hash;
  if (head.empty() && recorded.state != Evidence::Unreadable) return audit::genesis_hash();
  return std::nullopt;
}

}  // namespace

Result<std::unique_ptr<AuditJournal>> AuditJournal::open(const std::string& state_dir,
                                                         JournalOptions options) {
  SIGNALTTY_TRY(UniqueFd pred_fd, open_predecessor(fs::join(state_dir, kPredecessorName)));
  SIGNALTTY_TRY(UniqueFd cur_fd, open_current(fs::join(state_dir, kCurrentName), 0));
  const auto recorded = read_retention(fs::join(state_dir, kRetentionName));
  ChainScan chain;
  if (recorded.state == Evidence::Present) chain.committed = recorded.value.head();
  SIGNALTTY_TRY(FileScan pred, scan_file(pred_fd, chain));
  SIGNALTTY_TRY(FileScan cur, scan_file(cur_fd, chain));
  const Verdict verdict =
      judge(recorded, pred, cur, fs::exists(fs::join(state_dir, kSequenceName)));

  if (cur.torn) {  // the tail of an append that never completed
    const std::string cur_path = fs::join(state_dir, kCurrentName);
    SIGNALTTY_RETURN_IF_ERROR(fs::write_all(cur_fd.get(), "\n", cur_path));
    SIGNALTTY_RETURN_IF_ERROR(datasync(cur_fd, cur_path));
    cur.bytes += 1;
  }
  if (pred.torn) log::warn("audit journal: " + std::string(kPredecessorName) + " ends torn");

  JournalRetention retention;
  retention.retained_after = verdict.retained_after;
  retention.predecessor = pred.exists;
  retention.current_bytes = cur.bytes;
  retention.predecessor_bytes = pred.bytes;
  retention.known_complete = verdict.provable;
  retention.chain_broken_at = chain_break(recorded, pred, cur);
  const audit::ChainHead head = cur.records > 0 ? cur.last : pred.last;
  retention.set_head(head);
  retention.base_hash = chain_base(recorded, head);
  std::unique_ptr<AuditJournal> journal(new AuditJournal(
      state_dir, retention, std::max(pred.max_seq, cur.max_seq), options.rotate_bytes));
  journal->current_fd_ = std::make_shared<UniqueFd>(std::move(cur_fd));
  if (pred_fd) journal->predecessor_fd_ = std::make_shared<UniqueFd>(std::move(pred_fd));
  journal->current_bytes_ = cur.bytes;
  journal->head_ = head;
  journal->predecessor_last_ = pred.last;
  // The verdict is persisted now, so an unprovable history stays unprovable.
  SIGNALTTY_RETURN_IF_ERROR(journal->replace_retention());
  journal->synced_ = journal->durable_snapshot();
  journal->published_ = journal->synced_;
  journal->anchor_ =
      std::make_unique<HeadAnchor>(std::move(options.anchor_sink), options.anchor_interval);
  journal->anchor_->anchor_now(head, "start");

  if (!verdict.provable)
    log::warn("audit journal: disk history is not provable (" + verdict.reason +
              "); replay from disk is unavailable");
  log::info("audit journal: " + std::to_string(pred.records + cur.records) +
            " records, highest seq " + std::to_string(journal->max_seq_at_open_) +
            ", retained after " + std::to_string(verdict.retained_after));
  return journal;
}

// ---- journal thread -----------------------------------------------------

std::string AuditJournal::encode_record(const StateEvent& ev) {
  constexpr auto kReplace = Json::error_handler_t::replace;
  std::string line = "{\"seq\":";
  line += std::to_string(ev.seq);
  line += ",\"event\":";
  line += Json(ev.name).dump(-1, ' ', false, kReplace);
  line += ",\"payload\":";
  line += ev.payload.dump(-1, ' ', false, kReplace);
  line += ",\"at\":";
  line += Json(ev.at).dump(-1, ' ', false, kReplace);
  if (!ev.state.empty()) {
    line += ",\"state\":";
    line += ev.state;
  }
  line += '}';
  return line;
}

Status AuditJournal::write_batch(const std::vector<StateEvent>& events) {
  for (const StateEvent& ev : events) {
    if (ev.seq <= last_seq_)
      return Error{ErrorCode::Internal, "audit journal: seq " + std::to_string(ev.seq) +
                                            " does not follow " + std::to_string(last_seq_)};
    SIGNALTTY_RETURN_IF_ERROR(rotate_if_full());
    const std::string line = audit::link_record(
        encode_record(ev), head_.empty() ? audit::genesis_hash() : head_.hash);
    pending_ += line;
    pending_ += '\n';
    last_seq_ = ev.seq;
    head_ = audit::ChainHead{ev.seq, audit::sha256_hex(line)};
  }
  return flush_pending();
}

Status AuditJournal::sync() {
  SIGNALTTY_RETURN_IF_ERROR(flush_pending());
  if (unsynced_) {
    SIGNALTTY_RETURN_IF_ERROR(datasync(*current_fd_, path(kCurrentName)));
    unsynced_ = false;
  }
  retention_.current_bytes = current_bytes_;
  retention_.set_head(head_);
  SIGNALTTY_RETURN_IF_ERROR(write_retention());
  synced_ = durable_snapshot();
  anchor_->committed(head_);
  return {};
}

JournalView AuditJournal::durable_view() const { return synced_; }

Status AuditJournal::flush_pending() {
  if (pending_.empty()) return {};
  SIGNALTTY_RETURN_IF_ERROR(fs::write_all(current_fd_->get(), pending_, path(kCurrentName)));
  current_bytes_ += pending_.size();
  unsynced_ = true;
  pending_.clear();
  return {};
}

// The check before each append: the file counts what is still buffered.
// A file can exceed the threshold by the one crossing record.
Status AuditJournal::rotate_if_full() {
  if (current_bytes_ + pending_.size() < rotate_bytes_) return {};
  if (rotation_would_lose_changes()) return {};
  SIGNALTTY_RETURN_IF_ERROR(flush_pending());
  return rotate();
}

// Whether the .1 a rotation discards holds records no snapshot reflects
// (docs/persistence.md): their changes would be lost at the next crash.
bool AuditJournal::rotation_would_lose_changes() {
  const std::uint64_t covered = snapshot_covers_.load();
  if (predecessor_last_.empty() || predecessor_last_.seq <= covered) {
    rotation_held_ = false;
    return false;
  }
  if (!rotation_held_)
    log::warn("audit journal: rotation waits: " + std::string(kPredecessorName) +
              " holds records through seq " + std::to_string(predecessor_last_.seq) +
              " and the snapshot reflects only seq " + std::to_string(covered));
  rotation_held_ = true;
  return true;
}

// docs/rules.md, Event journal: evidence first, then rename current over .1,
// then a fresh current file; file and directory synced.
Status AuditJournal::rotate() {
  if (unsynced_) {  // the records about to become .1 must be durable first
    SIGNALTTY_RETURN_IF_ERROR(datasync(*current_fd_, path(kCurrentName)));
    unsynced_ = false;
  }
  SIGNALTTY_TRY(std::uint64_t discarded_max, read_back_predecessor());
  const JournalRetention before = retention_;
  retention_.retained_after = std::max(retention_.retained_after, discarded_max);
  retention_.predecessor = true;
  retention_.predecessor_bytes = current_bytes_;
  retention_.current_bytes = 0;
  retention_.set_head(head_);
  // The discarded .1's last record is what the new .1's first links to.
  if (!predecessor_last_.empty()) retention_.base_hash = predecessor_last_.hash;
  if (Status written = write_retention(); !written.ok())
    return put_back_evidence(before, std::move(written).error(), EvidenceSync::No);

  const std::string cur = path(kCurrentName);
  if (io_fault::rename(cur.c_str(), path(kPredecessorName).c_str(), cur) != 0)
    return put_back_evidence(before, Error::from_errno(ErrorCode::IoError, "rename", errno, cur),
                             EvidenceSync::Yes);
  SIGNALTTY_TRY(UniqueFd fresh, open_current(cur, O_EXCL));
  if (io_fault::fsync(fresh.get(), cur) != 0)
    return Error::from_errno(ErrorCode::IoError, "fsync", errno, cur);
  SIGNALTTY_RETURN_IF_ERROR(fs::fsync_dir(state_dir_, cur));
  predecessor_fd_ = std::move(current_fd_);
  predecessor_last_ = head_;
  current_fd_ = std::make_shared<UniqueFd>(std::move(fresh));
  current_bytes_ = 0;
  log::info("audit journal: rotated; retained after " + std::to_string(retention_.retained_after));
  anchor_->anchor_now(head_, "rotation");
  return {};
}

// "The existing .1 must read back cleanly": its highest seq becomes the new
// retained_after. With provable history any deviation stops the server
// (the restart then records the history as unprovable); with unprovable
// history only an I/O error does, so a damaged .1 cannot block rotation
// forever.
Result<std::uint64_t> AuditJournal::read_back_predecessor() const {
  if (!retention_.predecessor) return std::uint64_t{0};
  const bool strict = retention_.known_complete;
  const std::string p = path(kPredecessorName);
  SIGNALTTY_TRY(UniqueFd fd, open_predecessor(p));
  if (!fd) {
    if (strict) return Error{ErrorCode::IoError, p + ": recorded predecessor is missing"};
    return std::uint64_t{0};
  }
  ChainScan chain;
  SIGNALTTY_TRY(FileScan scan, scan_file(fd, chain));
  if (strict && (!scan.clean || scan.bytes != retention_.predecessor_bytes))
    return Error{ErrorCode::IoError, p + ": does not read back cleanly (" +
                                         std::to_string(scan.bytes) + " bytes, " +
                                         std::to_string(scan.records) + " good records)"};
  return scan.max_seq;
}


// A rotation that failed before its rename left the files as they were;
// the evidence, already rewritten for the rotation, is put back so a
// restart finds it describing the files. After a failed sync of the
// evidence itself it is only rewritten, never synced again.
Error AuditJournal::put_back_evidence(const JournalRetention& before, Error failed,
                                      EvidenceSync sync) {
  retention_ = before;
  Status put_back;
  if (sync == EvidenceSync::Yes) {
    put_back = write_retention();
  } else {
    const std::string text = audit::retention_text(retention_);
    if (::pwrite(retention_fd_.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
      put_back = Error::from_errno(ErrorCode::IoError, "pwrite", errno, path(kRetentionName));
  }
  if (!put_back.ok())
    failed.message += "; the evidence could not be put back: " + put_back.error().message;
  return failed;
}

Status AuditJournal::replace_retention() {
  const std::string file = path(kRetentionName);
  retention_fd_.reset();
  SIGNALTTY_RETURN_IF_ERROR(fs::write_file_durable(file, audit::retention_text(retention_)));
  retention_fd_ = UniqueFd(::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!retention_fd_) return Error::from_errno(ErrorCode::IoError, "open", errno, file);
  return {};
}

Status AuditJournal::write_retention() {
  const std::string text = audit::retention_text(retention_);
  if (!retention_fd_ || text.size() != audit::kRetentionSlotBytes) return replace_retention();
  const std::string file = path(kRetentionName);
  const ssize_t n = io_fault::pwrite(retention_fd_.get(), text.data(), text.size(), 0, file);
  if (n != static_cast<ssize_t>(text.size()))
    return Error::from_errno(ErrorCode::IoError, "pwrite", n < 0 ? errno : EIO, file);
  if (io_fault::fdatasync(retention_fd_.get(), file) != 0)
    return Error::from_errno(ErrorCode::IoError, "fdatasync", errno, file);
  return {};
}

JournalView AuditJournal::durable_snapshot() const {
  JournalView v;
  v.provable = retention_.known_complete;
  v.retained_after = retention_.retained_after;
  if (retention_.predecessor && predecessor_fd_) {
    v.predecessor = predecessor_fd_;
    v.predecessor_bytes = retention_.predecessor_bytes;
  }
  v.current = current_fd_;
  v.current_bytes = retention_.current_bytes;
  return v;
}

std::string AuditJournal::path(const char* name) const { return fs::join(state_dir_, name); }

// ---- io thread ----------------------------------------------------------

void AuditJournal::publish_view(JournalView view) { published_ = std::move(view); }

bool AuditJournal::history_provable() const { return published_.provable; }

std::uint64_t AuditJournal::retained_after() const { return published_.retained_after; }

JournalCapture AuditJournal::capture() const {
  JournalCapture cap{published_.provable, published_.retained_after, {}};
  auto add = [&cap](const std::shared_ptr<const UniqueFd>& fd, std::uint64_t bytes) {
    if (!fd) return true;
    UniqueFd dup(::fcntl(fd->get(), F_DUPFD_CLOEXEC, 0));
    if (!dup) return false;
    cap.files.emplace_back(std::move(dup), bytes);
    return true;
  };
  if (!add(published_.predecessor, published_.predecessor_bytes) ||
      !add(published_.current, published_.current_bytes)) {
    log::warn("audit journal: cannot duplicate a journal fd for replay; disk history unavailable");
    cap.provable = false;
    cap.files.clear();
  }
  return cap;
}

// ---- worker thread ------------------------------------------------------

Result<std::vector<StateEvent>> AuditJournal::read_records(JournalCapture& capture,
                                                           std::uint64_t after_seq,
                                                           std::uint64_t through_seq) {
  return read_records(capture, after_seq, through_seq, RecordFilter{},
                      std::numeric_limits<std::size_t>::max() - 1);
}

Result<std::vector<StateEvent>> AuditJournal::read_records(JournalCapture& capture,
                                                           std::uint64_t after_seq,
                                                           std::uint64_t through_seq,
                                                           const RecordFilter& keep,
                                                           std::size_t max_kept) {
  std::vector<StateEvent> out;
  std::optional<Error> failure;
  bool done = false;
  for (auto& [fd, bytes] : capture.files) {
    if (done) break;
    auto read = for_each_line(fd.get(), bytes, [&](std::string_view line, LineKind kind) {
      auto rec = kind == LineKind::Complete ? parse_record(line) : std::nullopt;
      if (!rec) {
        if (!capture.provable) return Next::Continue;
        failure = Error{ErrorCode::IoError, "audit journal: a captured record does not parse"};
        return Next::Stop;
      }
      if (capture.provable && rec->seq > through_seq) done = true;
      if (rec->seq <= after_seq || rec->seq > through_seq) return done ? Next::Stop : Next::Continue;
      if (rec->name == kStateOnlyRecord) return Next::Continue;
      if (keep && !keep(*rec)) return Next::Continue;
      out.push_back(std::move(*rec));
      if (out.size() > max_kept) done = true;
      return done ? Next::Stop : Next::Continue;
    });
    if (!read.ok()) return std::move(read).error();
    if (failure) return std::move(*failure);
    if (capture.provable && !done && *read != bytes)
      return Error{ErrorCode::IoError, "audit journal: a captured file is shorter than recorded"};
  }
  return out;
}

// ---- startup ------------------------------------------------------------

Status AuditJournal::for_each_replay_line(JournalCapture& capture, std::uint64_t after_seq,
                                          const ReplayVisitor& visit) {
  for (auto& [fd, bytes] : capture.files) {
    auto read = for_each_line(fd.get(), bytes, [&](std::string_view line, LineKind kind) {
      if (kind == LineKind::Torn) return Next::Continue;
      if (kind == LineKind::Oversized) {
        visit(ReplayLine{});
        return Next::Continue;
      }
      if (auto seq = leading_seq(line); seq && *seq <= after_seq) return Next::Continue;
      ReplayLine parsed = parse_replay_line(line);
      if (!parsed.seq || *parsed.seq > after_seq) visit(std::move(parsed));
      return Next::Continue;
    });
    if (!read.ok()) return std::move(read).error();
  }
  return {};
}

}  // namespace signaltty::broker
