// common/integrations/config_file.cpp: the locked, re-checked, atomic edit
// of one agent config file (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: writes when nothing changed, leaves a temp
// file behind, or follows a symlink when it opens the lock or temp file.
#include "common/integrations/config_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <thread>

#include "common/fs.hpp"
#include "common/limits.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::integrations {
namespace {

constexpr mode_t kNewFileMode = 0600;
constexpr mode_t kNewDirMode = 0700;
constexpr mode_t kPermissionBits = 07777;

std::atomic<unsigned> temp_counter{0};

Error too_large(const std::string& path) {
  return Error{ErrorCode::IoError,
               path + ": larger than " + std::to_string(limits::kIntegrationFileMaxBytes) + " bytes"};
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// A symlink is followed to its (existing) target; anything else is itself.
Result<std::string> resolve_target(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr)
    return Error::from_errno(ErrorCode::IoError, "realpath", errno, path + " (a symlink)");
  return std::string(resolved);
}

Status make_dirs(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return {};
    return Error{ErrorCode::IoError, dir + ": not a directory"};
  }
  if (dir != "/" && dir != ".") SIGNALTTY_RETURN_IF_ERROR(make_dirs(fs::dirname(dir)));
  if (::mkdir(dir.c_str(), kNewDirMode) != 0 && errno != EEXIST)
    return Error::from_errno(ErrorCode::IoError, "mkdir", errno, dir);
  return {};
}

Result<UniqueFd> lock_exclusive(const std::string& lock_path, const std::string& path) {
  UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, kNewFileMode));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, lock_path);
  const auto deadline = std::chrono::steady_clock::now() + limits::kIntegrationLockBudget;
  for (;;) {
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR)
      return Error::from_errno(ErrorCode::IoError, "flock", errno, lock_path);
    if (std::chrono::steady_clock::now() >= deadline)
      return Error{ErrorCode::Timeout, path + " is being set up by another process; retry"};
    std::this_thread::sleep_for(limits::kIntegrationLockRetryTick);
  }
}

// The whole file, refused once past the size limit (it may grow after fstat).
Result<std::string> read_bounded(int fd, const std::string& path) {
  std::string out;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "read", errno, path);
    if (n == 0) return out;
    if (out.size() + static_cast<std::size_t>(n) > limits::kIntegrationFileMaxBytes)
      return too_large(path);
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

struct Snapshot {
  std::optional<std::string> text;
  mode_t mode = kNewFileMode;
  bool operator==(const Snapshot&) const = default;
};

Result<Snapshot> snapshot(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd && errno == ENOENT) return Snapshot{};
  if (!fd && errno == ELOOP) return Error{ErrorCode::IoError, path + ": not a regular file"};
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno(ErrorCode::IoError, "fstat", errno, path);
  if (!S_ISREG(st.st_mode)) return Error{ErrorCode::IoError, path + ": not a regular file"};
  if (static_cast<std::size_t>(st.st_size) > limits::kIntegrationFileMaxBytes)
    return too_large(path);
  SIGNALTTY_TRY(std::string text, read_bounded(fd.get(), path));
  return Snapshot{std::move(text), st.st_mode & kPermissionBits};
}

Status fill_temp(const std::string& temp, std::string_view text, mode_t mode) {
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kNewFileMode));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, temp);
  if (::fchmod(fd.get(), mode) != 0) return Error::from_errno(ErrorCode::IoError, "fchmod", errno, temp);
  SIGNALTTY_RETURN_IF_ERROR(fs::write_all(fd.get(), text, temp));
  if (::fsync(fd.get()) != 0) return Error::from_errno(ErrorCode::IoError, "fsync", errno, temp);
  return {};
}

Status replace_file(const std::string& path, std::string_view text, mode_t mode) {
  const std::string temp = fs::join(fs::dirname(path), "." + base_name(path) + ".signaltty-" +
                                                           std::to_string(::getpid()) + "-" +
                                                           std::to_string(temp_counter++));
  Status filled = fill_temp(temp, text, mode);
  if (filled.ok() && ::rename(temp.c_str(), path.c_str()) != 0)
    filled = Error::from_errno(ErrorCode::IoError, "rename", errno, path);
  if (!filled.ok()) {
    ::unlink(temp.c_str());
    return filled;
  }
  return fs::fsync_dir(fs::dirname(path));
}

Status remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return Error::from_errno(ErrorCode::IoError, "unlink", errno, path);
  return fs::fsync_dir(fs::dirname(path));
}

Status apply(const std::string& path, const FileEdit& edit, const Snapshot& before) {
  if (edit.change == FileChange::Delete) return remove_file(path);
  return replace_file(path, edit.text, before.text ? before.mode : kNewFileMode);
}

}  // namespace

std::string lock_file_path(const std::string& path) {
  auto target = resolve_target(path);
  const std::string& file = target.ok() ? *target : path;
  return fs::join(fs::dirname(file), "." + base_name(file) + ".signaltty.lock");
}

Result<FileEditOutcome> edit_config_file(const std::string& path, const FileEditor& editor) {
  SIGNALTTY_TRY(std::string target, resolve_target(path));
  SIGNALTTY_RETURN_IF_ERROR(make_dirs(fs::dirname(target)));
  SIGNALTTY_TRY(UniqueFd lock, lock_exclusive(lock_file_path(target), target));
  SIGNALTTY_TRY(Snapshot before, snapshot(target));
  SIGNALTTY_TRY(FileEdit edit, editor(before.text));
  const bool keeps = edit.change == FileChange::Keep ||
                     (edit.change == FileChange::Delete && !before.text) ||
                     (edit.change == FileChange::Write && before.text == edit.text);
  if (keeps) return FileEditOutcome{target, false};
  SIGNALTTY_TRY(Snapshot again, snapshot(target));
  if (!(again == before)) return Error{ErrorCode::IoError, target + " changed during setup; retry"};
  SIGNALTTY_RETURN_IF_ERROR(apply(target, edit, before));
  return FileEditOutcome{target, true};
}

Result<std::optional<std::string>> read_config_file(const std::string& path) {
  SIGNALTTY_TRY(std::string target, resolve_target(path));
  SIGNALTTY_TRY(Snapshot current, snapshot(target));
  return std::move(current.text);
}

}  // namespace signaltty::integrations
