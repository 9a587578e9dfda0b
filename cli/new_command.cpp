// cli/new_command.cpp: `signaltty new` → workspace.create + pane.spawn,
// then the attach session on the same connection.
// Runs in: CLI. Never: resolves the program to run (the broker does, from
// the workspace's directory); it only picks the default shell.
#include "cli/new_command.hpp"

#include <unistd.h>

#include <climits>

#include "cli/app.hpp"
#include "cli/attach.hpp"
#include "cli/attach_command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal_text.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;
using Clock = std::chrono::steady_clock;

// Creating a workspace probes git and spawning starts a ptyhost: both may
// take a while on a loaded machine, but never this long.
constexpr std::chrono::seconds kCreateTimeout{30};
constexpr std::string_view kShellEnv = "SHELL";
constexpr std::string_view kFallbackShell = "sh";

int report(const Error& error, const CliIo& io) {
  io.err << error_line(error) << '\n';
  return exit_code_for(error);
}

// The pane first, then what else the two replies said.
Json combined_result(const Json& workspace, const Json& spawned) {
  Json out = spawned;
  out["workspace"] = workspace.value("workspace", Json::object());
  return out;
}

}  // namespace

std::string current_directory() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof(buf)) != nullptr ? std::string(buf) : std::string();
}

NewCommand::NewCommand(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "new",
      "Start a shell (or ARGV) in a new workspace and attach this terminal to it "
      "(workspace.create + pane.spawn + attach)");
  app_->add_option("--cwd", cwd_, "the workspace's directory (default: the current one)");
  app_->add_option("--name", name_, "the workspace's name (default \"workspace\")");
  app_->add_flag("--no-attach,--no_attach", no_attach_,
                 "print the new pane's id instead of attaching");
  add_detach_key_option(*app_, detach_key_);
  app_->add_option("argv", argv_, "program and arguments, after -- (default: $SHELL, else sh)");
}

Json NewCommand::workspace_params(const std::string& client_cwd) const {
  Json params = Json::object();
  std::string cwd = cwd_.empty() ? client_cwd : cwd_;
  if (!cwd.empty() && cwd.front() != '/' && !client_cwd.empty()) cwd = client_cwd + "/" + cwd;
  if (!cwd.empty()) params["cwd"] = cwd;
  if (!name_.empty()) params["name"] = name_;
  return params;
}

std::vector<std::string> NewCommand::pane_argv(const EnvLookup& env) const {
  if (!argv_.empty()) return argv_;
  return {env(kShellEnv).value_or(std::string(kFallbackShell))};
}

int NewCommand::run(const std::string& socket_path, std::optional<JsonStyle> json,
                    const CliIo& io) const {
  auto key = resolve_detach_key(detach_key_, io.env);
  if (!key.ok()) {
    report(key.error(), io);
    return kExitUsage;
  }
  auto link = AttachLink::connect(socket_path, io.uid);
  if (!link.ok()) return report(link.error(), io);

  auto workspace = link->call(protocol::WorkspaceCreate::name, workspace_params(current_directory()),
                              Clock::now() + kCreateTimeout);
  if (!workspace.ok()) return report(workspace.error(), io);
  const std::string workspace_id = workspace->value("workspace", Json::object()).value("id", "");

  Json spawn = {{"workspace_id", workspace_id}, {"argv", pane_argv(io.env)}};
  const auto size = no_attach_ ? std::nullopt : terminal_size(io.out_fd);
  if (size) {
    spawn["cols"] = size->cols;
    spawn["rows"] = size->rows;
  }
  auto spawned = link->call(protocol::PaneSpawn::name, spawn, Clock::now() + kCreateTimeout);
  if (!spawned.ok()) {
    (void)link->call(protocol::WorkspaceClose::name, {{"workspace_id", workspace_id}},
                     Clock::now() + kCreateTimeout);
    return report(spawned.error(), io);
  }
  const std::string pane_id = spawned->value("pane", Json::object()).value("id", "");
  const Json integration = spawned->value("integration", Json::object());
  if (integration.contains("notice"))
    io.err << "notice: " << printable(integration.value("notice", "")) << '\n';

  if (no_attach_) {
    if (json) render_json(combined_result(*workspace, *spawned), *json, io.out);
    else io.out << printable(pane_id) << '\n';
    io.out.flush();
    return kExitOk;
  }
  io.out.flush();
  return run_attach(*link, AttachOptions{pane_id, *key, true},
                    TerminalIo{io.in_fd, io.out_fd, io.err});
}

}  // namespace signaltty::cli
