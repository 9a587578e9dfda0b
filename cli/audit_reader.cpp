// cli/audit_reader.cpp: journal lines from the files, filters and rows.
// Runs in: CLI.
#include "cli/audit_reader.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <ctime>

#include "cli/terminal_text.hpp"
#include "common/fs.hpp"

namespace signaltty::cli {
namespace {

using audit::Json;

// How deep payload_names looks: payloads nest entity objects a few levels.
constexpr int kMaxNamesDepth = 8;
// The summary column's width before it is cut with "…".
constexpr std::size_t kSummaryMaxChars = 100;
constexpr std::size_t kEventColumnChars = 24;
constexpr std::size_t kReadChunkBytes = 64 * 1024;

void split_lines(std::string& partial, std::string_view chunk, std::vector<AuditLine>& out) {
  partial.append(chunk);
  std::size_t start = 0;
  for (std::size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(partial.data() + start, nl - start);
    if (auto rec = audit::parse_record_line(line)) out.push_back({std::string(line), std::move(*rec)});
  }
  partial.erase(0, start);
}

// Reads `fd` from `offset` to its end; advances `offset`.
Status read_to_end(int fd, std::uint64_t& offset, std::string& partial,
                   std::vector<AuditLine>& out) {
  std::string buf(kReadChunkBytes, '\0');
  for (;;) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "pread", errno, "audit journal");
    if (n == 0) return {};
    offset += static_cast<std::uint64_t>(n);
    split_lines(partial, std::string_view(buf.data(), static_cast<std::size_t>(n)), out);
  }
}

Result<UniqueFd> open_if_exists(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd && errno != ENOENT) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  return fd;
}

ino_t inode_of(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? st.st_ino : 0;
}

std::string string_of(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object()) {
    // The target column has the ids; a name says more where there is one.
    for (const char* key : {"name", "id"})
      if (auto it = v.find(key); it != v.end() && it->is_string() && !it->empty())
        return "{" + it->get<std::string>() + "}";
    return "{…}";
  }
  if (v.is_array()) return "[" + std::to_string(v.size()) + "]";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string summary_of(const Json& payload) {
  if (!payload.is_object()) return string_of(payload);
  std::string out;
  for (const auto& [key, value] : payload.items()) {
    if (!out.empty()) out += ' ';
    out += key + "=" + string_of(value);
    if (out.size() > kSummaryMaxChars) break;
  }
  if (out.size() > kSummaryMaxChars) out = out.substr(0, kSummaryMaxChars) + "…";
  return out;
}

// The first id of `kind` the payload names, for the target column.
std::string first_id(const Json& payload, std::string_view kind) {
  if (!payload.is_object()) return {};
  const std::string key_id = std::string(kind) + "_id";
  if (auto it = payload.find(key_id); it != payload.end() && it->is_string()) return *it;
  if (auto it = payload.find(std::string(kind)); it != payload.end() && it->is_object())
    if (auto id = it->find("id"); id != it->end() && id->is_string()) return *id;
  for (const auto& [key, value] : payload.items())
    if (value.is_object())
      if (auto it = value.find(key_id); it != value.end() && it->is_string()) return *it;
  return {};
}

bool names_at(const Json& v, const std::string& key_id, const std::string& key_ids,
              std::string_view kind, std::string_view id, int depth) {
  if (depth > kMaxNamesDepth) return false;
  if (v.is_array()) {
    for (const auto& item : v)
      if (names_at(item, key_id, key_ids, kind, id, depth + 1)) return true;
    return false;
  }
  if (!v.is_object()) return false;
  for (const auto& [key, value] : v.items()) {
    if (key == key_id && value.is_string() && value.get_ref<const std::string&>() == id) return true;
    if (key == key_ids && value.is_array())
      for (const auto& item : value)
        if (item.is_string() && item.get_ref<const std::string&>() == id) return true;
    if (key == kind && value.is_object())
      if (auto it = value.find("id"); it != value.end() && it->is_string() && *it == id) return true;
    if (names_at(value, key_id, key_ids, kind, id, depth + 1)) return true;
  }
  return false;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n) {
  if (s.size() < pos + n) return false;
  for (std::size_t i = pos; i < pos + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// "YYYY-MM-DD[THH:MM[:SS[.fff]]][Z]" → the same without the Z.
std::optional<std::string> time_prefix(std::string_view text) {
  if (!text.empty() && text.back() == 'Z') text.remove_suffix(1);
  if (!digits(text, 0, 4) || text.size() < 10 || text[4] != '-' || !digits(text, 5, 2) ||
      text[7] != '-' || !digits(text, 8, 2))
    return std::nullopt;
  if (text.size() == 10) return std::string(text);
  if (text[10] != 'T' || !digits(text, 11, 2) || text.size() < 16 || text[13] != ':' ||
      !digits(text, 14, 2))
    return std::nullopt;
  if (text.size() == 16) return std::string(text);
  if (text[16] != ':' || !digits(text, 17, 2)) return std::nullopt;
  if (text.size() == 19) return std::string(text);
  if (text[19] != '.' || !digits(text, 20, text.size() - 20)) return std::nullopt;
  return std::string(text);
}

std::optional<std::chrono::seconds> span(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, n);
  if (ec != std::errc() || end != text.data() + text.size() - 1 || n < 0) return std::nullopt;
  switch (text.back()) {
    case 's': return std::chrono::seconds(n);
    case 'm': return std::chrono::minutes(n);
    case 'h': return std::chrono::hours(n);
    case 'd': return std::chrono::hours(24 * n);
    default: return std::nullopt;
  }
}

}  // namespace

Result<std::string> since_bound(std::string_view text, std::chrono::system_clock::time_point now) {
  if (auto back = span(text)) {
    const std::time_t t = std::chrono::system_clock::to_time_t(now - *back);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return std::string(buf);
  }
  if (auto prefix = time_prefix(text)) return *prefix;
  return Error{ErrorCode::BadParams, "--since: want a UTC time such as 2026-03-01T10:00:00Z "
                                     "(or a prefix of one) or a span such as 15m, 2h, 7d; got \"" +
                                         std::string(text) + "\""};
}

bool payload_names(const Json& payload, std::string_view kind, std::string_view id) {
  const std::string k(kind);
  return names_at(payload, k + "_id", k + "_ids", kind, id, 0);
}

bool AuditFilter::matches(const audit::RecordLine& rec) const {
  if (from_seq && rec.seq < *from_seq) return false;
  if (!since.empty() && rec.at.substr(0, since.size()) < since) return false;
  if (!event_glob.empty() && ::fnmatch(event_glob.c_str(), rec.event.c_str(), 0) != 0)
    return false;
  if (!pane.empty() && !payload_names(rec.payload, "pane", pane)) return false;
  if (!workspace.empty() && !payload_names(rec.payload, "workspace", workspace)) return false;
  return true;
}

std::string format_row(const audit::RecordLine& rec) {
  std::string event = rec.event;
  if (event.size() < kEventColumnChars) event.resize(kEventColumnChars, ' ');
  std::string target;
  if (auto pane = first_id(rec.payload, "pane"); !pane.empty()) target = "pane " + pane;
  if (auto ws = first_id(rec.payload, "workspace"); !ws.empty())
    target += (target.empty() ? "" : " ") + std::string("ws ") + ws;
  if (target.empty()) target = "-";
  const std::string at = rec.at.empty() ? "-" : rec.at;
  return printable(at + "  " + std::to_string(rec.seq) + "  " + event + "  " + target + "  " +
                   summary_of(rec.payload));
}

// ---- AuditFollower ---------------------------------------------------------

AuditFollower::AuditFollower(std::string state_dir) : state_dir_(std::move(state_dir)) {
  watch_ = UniqueFd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (watch_ && ::inotify_add_watch(watch_.get(), state_dir_.c_str(),
                                    IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM |
                                        IN_CLOSE_WRITE) < 0)
    watch_.reset();
}

Status AuditFollower::open_live() {
  SIGNALTTY_TRY(live_, open_if_exists(fs::join(state_dir_, audit::kCurrentName)));
  live_ino_ = live_ ? inode_of(live_.get()) : 0;
  offset_ = 0;
  partial_.clear();
  return {};
}

Status AuditFollower::read_fd_to_end(std::vector<AuditLine>& out) {
  if (!live_) return {};
  return read_to_end(live_.get(), offset_, partial_, out);
}

Result<std::vector<AuditLine>> AuditFollower::read_new_lines() {
  std::vector<AuditLine> out;
  if (!started_) {
    started_ = true;
    SIGNALTTY_RETURN_IF_ERROR(open_live());
    SIGNALTTY_TRY(UniqueFd pred, open_if_exists(fs::join(state_dir_, audit::kPredecessorName)));
    // Skip .1 when it is the file we hold: it was renamed in between.
    if (pred && (!live_ || inode_of(pred.get()) != live_ino_)) {
      std::uint64_t offset = 0;
      std::string partial;
      SIGNALTTY_RETURN_IF_ERROR(read_to_end(pred.get(), offset, partial, out));
    }
    SIGNALTTY_RETURN_IF_ERROR(read_fd_to_end(out));
    return out;
  }
  SIGNALTTY_RETURN_IF_ERROR(read_fd_to_end(out));
  struct stat st {};
  const std::string path = fs::join(state_dir_, audit::kCurrentName);
  if (::stat(path.c_str(), &st) == 0 && (!live_ || st.st_ino != live_ino_)) {
    // Rotated: what the old file got before its rename was read above.
    SIGNALTTY_RETURN_IF_ERROR(open_live());
    SIGNALTTY_RETURN_IF_ERROR(read_fd_to_end(out));
  }
  return out;
}

void AuditFollower::wait_for_change(int timeout_ms) {
  if (!watch_) {
    ::poll(nullptr, 0, timeout_ms);
    return;
  }
  pollfd p{watch_.get(), POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) > 0) {
    char buf[4096];
    while (::read(watch_.get(), buf, sizeof buf) > 0) {
    }
  }
}

}  // namespace signaltty::cli
