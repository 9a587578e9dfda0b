// cli/events_command.hpp: `signaltty events`, the hand-written streaming
// command: subscribe, then print every event as one JSON object per line
// until the broker closes the connection (or the user interrupts).
// Runs in: CLI. Never: prints anything but event lines on stdout, or
// resubscribes on its own after an incomplete replay.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/client.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::cli {

class EventsCommand {
 public:
  explicit EventsCommand(CLI::App& parent);
  EventsCommand(const EventsCommand&) = delete;
  EventsCommand& operator=(const EventsCommand&) = delete;

  bool chosen() const { return app_->parsed(); }
  protocol::SubscribeParams params() const;

 private:
  CLI::App* app_;
  CLI::Option* from_seq_option_ = nullptr;
  std::uint64_t from_seq_ = 0;
  std::vector<std::string> events_;
  std::vector<std::string> task_ids_;
};

// Subscribes with `params` and copies each event line to `out`, flushing
// after every line. Returns the exit status: ok at end of stream, replay
// incomplete when the broker refused the replay (reason on `err`).
int stream_events(Client& client, const protocol::SubscribeParams& params, std::ostream& out,
                  std::ostream& err);

}  // namespace signaltty::cli
