// common/fd_passing.hpp: one message over a Unix socket with file
// descriptors attached (SCM_RIGHTS), both ways: the D-Bus connection's
// (logind's inhibitor fd) and the launcher channel's (a hook's pipes).
// Runs in: broker and its launcher.
// Never: keeps a received fd without close-on-exec, or attaches more than
// kMaxPassedFds.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "common/unique_fd.hpp"

namespace signaltty {

// The most any of our messages carries (a hook's four pipes; D-Bus: 4).
inline constexpr std::size_t kMaxPassedFds = 4;

// sendmsg() of `bytes` with `fds` attached; its result, errno set on -1
// (EINVAL for more than kMaxPassedFds fds).
ssize_t send_with_fds(int socket, std::string_view bytes, std::span<const int> fds, int flags);

struct ReceivedMessage {
  ssize_t size = -1;             // recvmsg()'s result; errno set when -1
  std::vector<UniqueFd> fds;     // close-on-exec
  bool data_truncated = false;   // MSG_TRUNC: the message was larger than the buffer
  bool fds_truncated = false;    // MSG_CTRUNC: more fds came than kMaxPassedFds
};

// One recvmsg() into `buf` (EINTR retried) with room for kMaxPassedFds fds.
ReceivedMessage receive_with_fds(int socket, std::span<char> buf, int flags);

}  // namespace signaltty
