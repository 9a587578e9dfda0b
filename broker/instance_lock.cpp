// broker/instance_lock.cpp: taking a directory's broker.lock.
// Runs in: broker, at startup.
#include "broker/instance_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/fs.hpp"

namespace signaltty::broker {
namespace {

struct flock whole_file_write_lock() {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  return lock;
}

Error held_by_another(int fd, const std::string& path) {
  struct flock probe = whole_file_write_lock();
  std::string holder = "another broker";
  if (::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK)
    holder += " (pid " + std::to_string(probe.l_pid) + ")";
  return Error{ErrorCode::Forbidden, holder + " holds " + path};
}

}  // namespace

Result<std::unique_ptr<InstanceLock>> InstanceLock::acquire(const std::string& dir,
                                                            std::string_view name) {
  const std::string path = fs::join(dir, name);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  struct flock lock = whole_file_write_lock();
  if (::fcntl(fd.get(), F_SETLK, &lock) != 0) {
    if (errno == EAGAIN || errno == EACCES) return held_by_another(fd.get(), path);
    return Error::from_errno(ErrorCode::IoError, "fcntl", errno, "F_SETLK " + path);
  }
  return std::unique_ptr<InstanceLock>(new InstanceLock(std::move(fd)));
}

}  // namespace signaltty::broker
