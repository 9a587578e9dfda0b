// ptyhost/peer_check.cpp: the peer's credentials against our uid and the
// broker lock's holder.
// Runs in: ptyhost.
#include "ptyhost/peer_check.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "common/protocol/ptyhost_handshake.hpp"

namespace signaltty::ptyhost {
namespace {

Result<ucred> peer_credentials(int connected_fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(connected_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return Error::from_errno(ErrorCode::Forbidden, "getsockopt", errno, "SO_PEERCRED");
  return cred;
}

// The pid holding the broker lock, or FORBIDDEN when nobody does.
Result<pid_t> lock_holder(int lock_fd) {
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  if (::fcntl(lock_fd, F_GETLK, &probe) != 0)
    return Error::from_errno(ErrorCode::Forbidden, "fcntl", errno, "F_GETLK");
  if (probe.l_type == F_UNLCK || probe.l_pid <= 0)
    return Error{ErrorCode::Forbidden, "no broker holds the panes directory's lock"};
  return probe.l_pid;
}

}  // namespace

Result<BrokerIdentity> BrokerIdentity::open(int dir_fd, const std::string& dir) {
  const std::string name(protocol::ptyhost::kBrokerLockName);
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "openat", errno, dir + "/" + name);
  return BrokerIdentity(std::move(fd));
}

Status BrokerIdentity::check(int connected_fd) const {
  SIGNALTTY_TRY(ucred cred, peer_credentials(connected_fd));
  if (cred.uid != ::geteuid())
    return Error{ErrorCode::Forbidden, "peer uid " + std::to_string(cred.uid) + " is not ours"};
  if (!lock_file_) return Error{ErrorCode::Forbidden, "no broker lock to check against"};
  SIGNALTTY_TRY(pid_t broker, lock_holder(lock_file_.get()));
  if (cred.pid != broker)
    return Error{ErrorCode::Forbidden, "peer pid " + std::to_string(cred.pid) +
                                           " is not the broker's (" + std::to_string(broker) + ")"};
  return {};
}

}  // namespace signaltty::ptyhost
