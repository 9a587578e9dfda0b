// cli/new_command.hpp: `signaltty new [--cwd DIR] [--name NAME] [-- ARGV...]`:
// a workspace, a pane running ARGV (default $SHELL, else sh) in it, and
// this terminal attached to the pane; `--no-attach` prints the pane id
// instead (the whole result with --json).
// Runs in: CLI. Never: leaves behind the workspace it created when the
// pane could not start.
//
//   signaltty new                          a shell in the current directory
//   signaltty new --cwd ~/src/api -- vim   vim in a workspace at ~/src/api
//   signaltty new --no-attach -- make test prints the pane id and returns
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/human_output.hpp"
#include "cli/socket_path.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::cli {

struct CliIo;

class NewCommand {
 public:
  explicit NewCommand(CLI::App& parent);
  NewCommand(const NewCommand&) = delete;
  NewCommand& operator=(const NewCommand&) = delete;

  bool chosen() const { return app_->parsed(); }
  // `json` is the --json/--pretty choice for --no-attach output (nullopt:
  // the pane id alone). The exit status.
  int run(const std::string& socket_path, std::optional<JsonStyle> json, const CliIo& io) const;

  // The request params, given the CLI's working directory and environment.
  protocol::Json workspace_params(const std::string& client_cwd) const;
  std::vector<std::string> pane_argv(const EnvLookup& env) const;

 private:
  CLI::App* app_;
  std::string cwd_;
  std::string name_;
  std::vector<std::string> argv_;
  std::string detach_key_;
  bool no_attach_ = false;
};

// The CLI's working directory; "" if it cannot be read.
std::string current_directory();

}  // namespace signaltty::cli
