// cli/plugin_command.cpp: see plugin_command.hpp.
// Runs in: CLI.
#include "cli/plugin_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "common/protocol/methods/plugin.hpp"

namespace signaltty::cli {
namespace {

namespace p = protocol;

// 127: as a shell reports a command it could not run.
constexpr int kExitNotRun = 127;

int fail(std::ostream& err, const Error& error) {
  err << error_line(error) << '\n';
  return exit_code_for(error);
}

}  // namespace

PluginRunCommand::PluginRunCommand(CLI::App& plugin_group)
    : app_(plugin_group.add_subcommand(
          "run", "Run a plugin's command here (cwd = the plugin's dir, SIGNALTTY_SOCKET set)")) {
  app_->add_option("plugin", plugin_, "the plugin's name")->required();
  app_->add_option("command", command_, "one of the plugin's [[command]] names")->required();
  app_->add_option("args", args_, "appended to the command's argv (after --)");
}

int PluginRunCommand::run(Client& client, const std::string& socket_path, const CliIo& io) const {
  auto listed = client.call(p::PluginList::name, p::Json::object());
  if (!listed.ok()) return fail(io.err, listed.error());
  auto decoded = p::decode<p::PluginListResult>(*listed);
  if (!decoded.ok()) return fail(io.err, decoded.error());
  const p::PluginInfo* plugin = nullptr;
  for (const auto& candidate : decoded->plugins)
    if (candidate.name == plugin_) plugin = &candidate;
  if (plugin == nullptr)
    return fail(io.err, bad_params("no plugin named " + plugin_ + " in " + decoded->dir +
                                   " (see `signaltty plugin list`)"));
  const p::PluginCommandInfo* command = nullptr;
  for (const auto& candidate : plugin->commands)
    if (candidate.name == command_) command = &candidate;
  if (command == nullptr || command->run.empty())
    return fail(io.err, bad_params("plugin " + plugin_ + " has no command named " + command_));

  std::vector<std::string> argv = command->run;
  argv.insert(argv.end(), args_.begin(), args_.end());
  std::vector<char*> pointers;
  for (auto& arg : argv) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  if (::chdir(plugin->dir.c_str()) != 0) {
    io.err << "error: cannot enter " << plugin->dir << ": " << std::strerror(errno) << '\n';
    return kExitNotRun;
  }
  ::setenv("SIGNALTTY_SOCKET", socket_path.c_str(), 1);
  io.out.flush();
  io.err.flush();
  ::execvp(pointers[0], pointers.data());
  io.err << "error: cannot run " << argv[0] << ": " << std::strerror(errno) << '\n';
  return kExitNotRun;
}

}  // namespace signaltty::cli
