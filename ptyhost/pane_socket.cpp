// ptyhost/pane_socket.cpp: directory checks, stale-socket handling, bind,
// listen and publish of the pane's control socket.
// Runs in: ptyhost, at startup, before its sandbox.
#include "ptyhost/pane_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/ids.hpp"

namespace signaltty::ptyhost {
namespace {

// A broker connects, is replaced, reconnects: a handful pending is plenty.
constexpr int kListenBacklog = 8;

Result<sockaddr_un> unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return Error{ErrorCode::BadParams, "socket path too long: " + path};
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

Result<UniqueFd> open_socket_dir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, dir);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno(ErrorCode::IoError, "fstat", errno, dir);
  if (st.st_uid != ::geteuid())
    return Error{ErrorCode::Forbidden, dir + " is owned by uid " + std::to_string(st.st_uid)};
  if ((st.st_mode & 07777) != 0700)
    return Error{ErrorCode::Forbidden, dir + " must have mode 0700"};
  return fd;
}

// Something answers on `path`: a live ptyhost serves this pane already.
bool socket_answers(const sockaddr_un& addr) {
  UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe) return false;
  return ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
}

// Leaves `name` free, or refuses: a live socket is never taken over and
// anything but a socket is never removed.
Status clear_stale(int dir_fd, const std::string& name, const std::string& path) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return Error::from_errno(ErrorCode::IoError, "fstatat", errno, path);
  }
  if (!S_ISSOCK(st.st_mode)) return Error{ErrorCode::Forbidden, path + " exists and is no socket"};
  SIGNALTTY_TRY(sockaddr_un addr, unix_address(path));
  if (socket_answers(addr)) return Error{ErrorCode::Forbidden, path + " is served by a live ptyhost"};
  if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT)
    return Error::from_errno(ErrorCode::IoError, "unlinkat", errno, path);
  return {};
}

Result<UniqueFd> listen_at(int dir_fd, const std::string& name, const std::string& path) {
  SIGNALTTY_RETURN_IF_ERROR(clear_stale(dir_fd, name, path));
  SIGNALTTY_TRY(sockaddr_un addr, unix_address(path));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "socket", errno);
  const mode_t old_mask = ::umask(077);
  const int rc = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  const int bind_errno = errno;
  ::umask(old_mask);
  if (rc != 0) return Error::from_errno(ErrorCode::IoError, "bind", bind_errno, path);
  if (::fchmodat(dir_fd, name.c_str(), 0600, 0) != 0)
    return Error::from_errno(ErrorCode::IoError, "fchmodat", errno, path);
  if (::listen(fd.get(), kListenBacklog) != 0)
    return Error::from_errno(ErrorCode::IoError, "listen", errno, path);
  return fd;
}

}  // namespace

Result<PaneSocket> open_pane_socket(const std::string& dir, const std::string& pane_id) {
  if (!is_pane_id(pane_id)) return bad_params("invalid pane id: " + pane_id);
  SIGNALTTY_TRY(UniqueFd dir_fd, open_socket_dir(dir));
  PaneSocket out;
  SIGNALTTY_TRY(out.broker, BrokerIdentity::open(dir_fd.get(), dir));
  const std::string name = pane_id + ".sock";
  out.path = dir + "/" + name;
  const std::string temp_name = "." + pane_id + ".tmp";
  SIGNALTTY_TRY(out.listener, listen_at(dir_fd.get(), temp_name, dir + "/" + temp_name));
  // Publish: fails with EEXIST rather than replace a socket that appeared
  // since clear_stale (two ptyhosts racing for one pane).
  SIGNALTTY_RETURN_IF_ERROR(clear_stale(dir_fd.get(), name, out.path));
  if (::renameat2(dir_fd.get(), temp_name.c_str(), dir_fd.get(), name.c_str(),
                  RENAME_NOREPLACE) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd.get(), temp_name.c_str(), 0);
    return Error::from_errno(ErrorCode::IoError, "renameat2", err, out.path);
  }
  return out;
}

}  // namespace signaltty::ptyhost
