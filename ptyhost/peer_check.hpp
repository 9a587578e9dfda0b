// ptyhost/peer_check.hpp: BrokerIdentity, the ptyhost's test of whether an
// accepted connection comes from the broker serving its panes directory
// (common/protocol/ptyhost_handshake.hpp).
// Runs in: ptyhost; opened at startup (before the sandbox), checked on each
// accept (fcntl and getsockopt only, both allowed by the sandbox).
// Never: lets a peer through because the lock cannot be read, or sends the
// peer anything; the caller closes a refused connection unanswered.
#pragma once

#include <string>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::ptyhost {

class BrokerIdentity {
 public:
  // Opens (creating it 0600 if missing) `<dir>/broker.lock` relative to the
  // socket directory's fd.
  static Result<BrokerIdentity> open(int dir_fd, const std::string& dir);
  BrokerIdentity() = default;

  // FORBIDDEN unless the peer's uid is our euid and its pid holds the
  // broker lock now.
  Status check(int connected_fd) const;

 private:
  explicit BrokerIdentity(UniqueFd lock_file) : lock_file_(std::move(lock_file)) {}
  UniqueFd lock_file_;
};

}  // namespace signaltty::ptyhost
