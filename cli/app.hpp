// cli/app.hpp: the signaltty command line: the CLI11 tree built from the
// method table (one command per method), the hand-written commands beside
// it, the global options, and running the chosen command.
// Runs in: CLI. Never: sends a request before the whole command line parsed.
//
// Usage (main.cpp):
//   return run_cli(argc, argv, CliIo{std::cout, std::cerr, process_env, getuid()});
#pragma once

#include <CLI/CLI.hpp>

#include <sys/types.h>
#include <unistd.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "cli/attach_command.hpp"
#include "cli/command_binding.hpp"
#include "cli/events_command.hpp"
#include "cli/integration_command.hpp"
#include "cli/new_command.hpp"
#include "cli/pane_commands.hpp"
#include "cli/socket_path.hpp"

namespace signaltty::cli {

struct CliIo {
  std::ostream& out;
  std::ostream& err;
  EnvLookup env;
  uid_t uid;
  // The terminal the interactive commands (new, attach) take over, and the
  // stdin `pane input` reads when piped.
  int in_fd = STDIN_FILENO;
  int out_fd = STDOUT_FILENO;
};

class AgentContext;
class AuditCommand;
class PluginRunCommand;
class SkillCommand;

class Cli {
 public:
  Cli();
  ~Cli();
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;

  // nullopt when a command is ready to run; otherwise the exit status of a
  // help request (printed on `out`) or a usage error (printed on `err`).
  std::optional<int> parse(int argc, const char* const argv[], std::ostream& out,
                           std::ostream& err);
  // Connects, runs the chosen command, prints its output; the exit status.
  int execute(const CliIo& io);

  // The generated command the command line chose, if it chose one.
  const CommandBinding* chosen_command() const;
  bool events_chosen() const { return events_->chosen(); }
  protocol::SubscribeParams events_params() const { return events_->params(); }
  const std::deque<CommandBinding>& commands() const { return commands_; }
  CLI::App& app() { return app_; }

 private:
  void add_global_options();
  void add_generated(const CommandSpec& spec);
  void add_shortcuts(const std::vector<CommandSpec>& specs);
  const CommandBinding& generated(std::string_view method) const;
  std::optional<JsonStyle> json_style() const;
  CLI::App& group_for(const std::vector<std::string>& words);
  int run_method(const CommandBinding& command, Client& client, const CliIo& io);

  CLI::App app_;
  std::string socket_flag_;
  bool json_ = false;
  bool pretty_ = false;
  std::map<std::string, CLI::App*> groups_;  // "workspace" → its CLI11 node
  std::deque<CommandBinding> commands_;       // stable: CLI11 points into them
  std::unique_ptr<EventsCommand> events_;
  std::unique_ptr<NewCommand> new_;
  std::unique_ptr<AttachCommand> attach_;
  std::unique_ptr<IntegrationCommand> integration_;
  std::unique_ptr<PaneCommands> pane_commands_;
  std::unique_ptr<AgentContext> agent_context_;
  std::unique_ptr<PluginRunCommand> plugin_run_;
  std::unique_ptr<SkillCommand> skill_;
  std::unique_ptr<AuditCommand> audit_;
};

// Parses, runs and returns the process exit status.
int run_cli(int argc, const char* const argv[], const CliIo& io);

}  // namespace signaltty::cli
