// broker/server.hpp: the broker process's assembly: directories and lock,
// journal and sequence, snapshot → store, the listener, signals, orderly stop.
// Runs in: broker (main thread = the io thread).
// Never: starts serving before the journal, reservation and snapshot are
// loaded; never exits 0 after a journal failure.
#pragma once

#include <memory>

#include "broker/config.hpp"
#include "common/errors.hpp"

namespace signaltty::broker {

// Process exit statuses of signaltty-broker.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefusedToStart = 1;
inline constexpr int kExitUsage = 2;

class Server {
 public:
  // Everything that can refuse the start happens here (dirs, lock, live
  // broker on the socket, unreadable state); nothing is served yet.
  static Result<std::unique_ptr<Server>> create(const Config& config);
  ~Server();
  // Serves until SIGTERM/SIGINT/server.shutdown; returns the exit status.
  int run();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace signaltty::broker
