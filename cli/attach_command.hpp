// cli/attach_command.hpp: `signaltty attach PANE`, the hand-written command
// that turns this terminal into the pane's (cli/attach.hpp has the session),
// and the detach-key option it shares with `signaltty new`.
// Runs in: CLI. Never: starts the session before the command line parsed.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/attach.hpp"
#include "cli/socket_path.hpp"

namespace signaltty::cli {

struct CliIo;

// --detach-key KEY on `app`, stored in `spec`.
void add_detach_key_option(CLI::App& app, std::string& spec);
// The detach key: --detach-key when given, else $SIGNALTTY_DETACH_KEY, else
// Ctrl-\. A malformed key is BAD_PARAMS.
Result<DetachKey> resolve_detach_key(const std::string& flag, const EnvLookup& env);

class AttachCommand {
 public:
  explicit AttachCommand(CLI::App& parent);
  AttachCommand(const AttachCommand&) = delete;
  AttachCommand& operator=(const AttachCommand&) = delete;

  bool chosen() const { return app_->parsed(); }
  // Connects to `socket_path` and runs the session; the exit status.
  int run(const std::string& socket_path, const CliIo& io) const;

 private:
  CLI::App* app_;
  std::string pane_;
  std::string detach_key_;
  bool no_mark_seen_ = false;
};

}  // namespace signaltty::cli
