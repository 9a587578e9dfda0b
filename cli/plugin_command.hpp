// cli/plugin_command.hpp: `signaltty plugin run <plugin> <command> [-- args…]`
// (docs/plugins.md): runs a plugin's [[command]] in this process's context,
// not the broker's. The broker's plugin.list says where the plugin is and
// what its command runs; the CLI then changes to the plugin's directory,
// exports SIGNALTTY_SOCKET and execs the command with the extra arguments
// appended, stdio inherited, so its exit status is the CLI's.
// Runs in: CLI. Never: runs anything plugin.list did not name.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/client.hpp"

namespace signaltty::cli {

struct CliIo;

class PluginRunCommand {
 public:
  explicit PluginRunCommand(CLI::App& plugin_group);
  bool chosen() const { return app_->parsed(); }
  // Returns only when the command could not be started.
  int run(Client& client, const std::string& socket_path, const CliIo& io) const;

 private:
  CLI::App* app_;
  std::string plugin_;
  std::string command_;
  std::vector<std::string> args_;
};

}  // namespace signaltty::cli
