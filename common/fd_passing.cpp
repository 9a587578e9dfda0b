// common/fd_passing.cpp: see fd_passing.hpp.
// Runs in: broker, launcher.
#include "common/fd_passing.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace signaltty {

ssize_t send_with_fds(int socket, std::string_view bytes, std::span<const int> fds, int flags) {
  if (fds.size() > kMaxPassedFds) {
    errno = EINVAL;
    return -1;
  }
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  return ::sendmsg(socket, &msg, flags);
}

ReceivedMessage receive_with_fds(int socket, std::span<char> buf, int flags) {
  ReceivedMessage out;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)];
  iovec iov{buf.data(), buf.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  do {
    out.size = ::recvmsg(socket, &msg, flags | MSG_CMSG_CLOEXEC);
  } while (out.size < 0 && errno == EINTR);
  if (out.size < 0) return out;
  const int saved = errno;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t k = 0; k < count; ++k) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
      out.fds.emplace_back(fd);
    }
  }
  out.data_truncated = (msg.msg_flags & MSG_TRUNC) != 0;
  out.fds_truncated = (msg.msg_flags & MSG_CTRUNC) != 0;
  errno = saved;
  return out;
}

}  // namespace signaltty
