// broker/instance_lock.hpp: InstanceLock, one POSIX record lock the broker
// holds for its whole life: `broker.lock` in the state dir (one broker per
// state) and in the runtime dir's panes/ (one broker per set of ptyhosts;
// the lock ptyhosts check a peer against, common/protocol/ptyhost_handshake.hpp).
// Runs in: broker, at startup, before the journal is opened or any ptyhost
// is touched.
// Never: opens the lock file a second time (closing any fd on it would drop
// a POSIX lock), or waits for a lock another broker holds.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// The lock's name in the state dir; in panes/ it is kBrokerLockName.
inline constexpr std::string_view kStateLockName = "broker.lock";

class InstanceLock {
 public:
  // fcntl(F_SETLK, write) on <dir>/<name>, created 0600. FORBIDDEN, naming
  // the holder's pid, when another process holds it.
  static Result<std::unique_ptr<InstanceLock>> acquire(const std::string& dir,
                                                       std::string_view name);

 private:
  explicit InstanceLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // the lock lives as long as this fd
};

}  // namespace signaltty::broker
