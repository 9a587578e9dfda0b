// broker/snapshot_rotation.cpp: the copies in snapshots/ (see the header).
// Runs in: broker. Never: removes a file that does not match its own name
// pattern.
#include "broker/snapshot_rotation.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>

#include "broker/paths.hpp"
#include "common/fs.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

using std::chrono::system_clock;

constexpr std::string_view kCopyPrefix = "snapshot-";
constexpr std::string_view kCopySuffix = ".json";
// "YYYYMMDDTHHMMSS", compact_utc's form.
constexpr std::size_t kStampChars = 15;
constexpr std::size_t kDateChars = 8;  // "YYYYMMDD", then a 'T'

// The time in a copy's name; nullopt for any other file.
std::optional<system_clock::time_point> copy_time(std::string_view name) {
  if (name.size() != kCopyPrefix.size() + kStampChars + kCopySuffix.size() ||
      !name.starts_with(kCopyPrefix) || !name.ends_with(kCopySuffix))
    return std::nullopt;
  const std::string stamp(name.substr(kCopyPrefix.size(), kStampChars));
  for (std::size_t i = 0; i < stamp.size(); ++i)
    if (i == kDateChars ? stamp[i] != 'T' : (stamp[i] < '0' || stamp[i] > '9')) return std::nullopt;
  std::tm tm{};
  char t = 0;
  int used = 0;
  if (std::sscanf(stamp.c_str(), "%4d%2d%2d%c%2d%2d%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &t, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 7 ||
      t != 'T' || used != static_cast<int>(kStampChars))
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t secs = ::timegm(&tm);
  if (secs == -1) return std::nullopt;
  return system_clock::from_time_t(secs);
}

bool empty_model(const SnapshotDoc& doc) { return doc.workspaces.empty() && doc.panes.empty(); }

bool copy_due(const std::vector<std::string>& copies, system_clock::time_point now) {
  if (copies.empty()) return true;
  const auto newest = copy_time(copies.back());
  // A newest copy stamped after `now` (the wall clock stepped back) holds
  // copies off until the clock passes it: at most one per interval wins.
  return newest && now - *newest >= limits::kSnapshotCopyInterval;
}

Status prune(const std::string& dir, std::vector<std::string> copies) {
  if (copies.size() <= limits::kSnapshotCopiesKept) return {};
  const std::size_t excess = copies.size() - limits::kSnapshotCopiesKept;
  for (std::size_t i = 0; i < excess; ++i) {
    const std::string path = fs::join(dir, copies[i]);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return Error::from_errno(ErrorCode::IoError, "unlink", errno, path);
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> list_snapshot_copies(const std::string& copies_dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(copies_dir.c_str()), ::closedir);
  if (!dir) return Error::from_errno(ErrorCode::IoError, "opendir", errno, copies_dir);
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (copy_time(entry->d_name)) names.emplace_back(entry->d_name);
  }
  std::sort(names.begin(), names.end());  // the fixed-width stamp sorts by time
  return names;
}

Result<bool> keep_rotating_copy(const std::string& state_dir, const SnapshotDoc& doc,
                                std::string_view text, system_clock::time_point now) {
  if (empty_model(doc)) return false;
  const std::string dir = fs::join(state_dir, kSnapshotCopiesDir);
  SIGNALTTY_RETURN_IF_ERROR(ensure_private_dir(dir));
  SIGNALTTY_TRY(std::vector<std::string> copies, list_snapshot_copies(dir));
  if (!copy_due(copies, now)) return false;
  std::string name = std::string(kCopyPrefix) + compact_utc(now) + std::string(kCopySuffix);
  SIGNALTTY_RETURN_IF_ERROR(fs::write_file_atomic(fs::join(dir, name), text, 0600));
  if (std::find(copies.begin(), copies.end(), name) == copies.end()) {
    copies.push_back(std::move(name));
    std::sort(copies.begin(), copies.end());
  }
  SIGNALTTY_RETURN_IF_ERROR(prune(dir, std::move(copies)));
  return true;
}

}  // namespace signaltty::broker
