// common/fs.cpp: durable and atomic file writes, bounded reads.
// Runs in: broker.
#include "common/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/ids.hpp"
#include "common/io_fault.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::fs {
namespace {

enum class Sync { Yes, No };

// write_all, with the calls counted against `file` (common/io_fault.hpp).
Status write_all_for(int fd, std::string_view data, const std::string& shown,
                     std::string_view file) {
  while (!data.empty()) {
    ssize_t n = io_fault::write(fd, data.data(), data.size(), file);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "write", errno, shown);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

// A failed step leaves `path` as it was and removes the temp file; a failed
// fsync is never retried on the same file (its pages' state is unknown).
Status write_replace(const std::string& path, std::string_view contents, mode_t mode, Sync sync) {
  std::string tmp = path + "." + new_id("w").substr(2, 8) + ".tmp";
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, tmp);
  Status st = write_all_for(fd.get(), contents, tmp, path);
  if (st.ok() && sync == Sync::Yes && io_fault::fsync(fd.get(), path) != 0)
    st = Error::from_errno(ErrorCode::IoError, "fsync", errno, tmp);
  fd.reset();
  if (st.ok() && io_fault::rename(tmp.c_str(), path.c_str(), path) != 0)
    st = Error::from_errno(ErrorCode::IoError, "rename", errno, tmp + " -> " + path);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  if (sync == Sync::Yes) return fsync_dir(dirname(path), path);
  return {};
}

}  // namespace

Status write_file_durable(const std::string& path, std::string_view contents, mode_t mode) {
  return write_replace(path, contents, mode, Sync::Yes);
}

Status write_file_atomic(const std::string& path, std::string_view contents, mode_t mode) {
  return write_replace(path, contents, mode, Sync::No);
}

Status fsync_dir(const std::string& dir, std::string_view for_file) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, dir);
  if (io_fault::fsync(fd.get(), for_file) != 0) {
    const std::string what = for_file.empty() ? dir : dir + " (for " + std::string(for_file) + ")";
    return Error::from_errno(ErrorCode::IoError, "fsync", errno, what);
  }
  return {};
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: a FIFO swapped in after a caller's check must not block
  // the open; it is then refused as not a regular file.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno(ErrorCode::IoError, "fstat", errno, path);
  if (!S_ISREG(st.st_mode)) return Error{ErrorCode::IoError, path + ": not a regular file"};
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "read", errno, path);
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes)
      return Error{ErrorCode::IoError, path + ": larger than " + std::to_string(max_bytes) + " bytes"};
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string dirname(const std::string& path) {
  auto pos = path.rfind('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

Status write_all(int fd, std::string_view data, const std::string& path) {
  return write_all_for(fd, data, path, path);
}

}  // namespace signaltty::fs
