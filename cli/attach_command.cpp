// cli/attach_command.cpp: `signaltty attach` → the attach session.
// Runs in: CLI. Never: names a method; the session does, from the table.
#include "cli/attach_command.hpp"

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"

namespace signaltty::cli {

void add_detach_key_option(CLI::App& app, std::string& spec) {
  app.add_option("--detach-key,--detach_key", spec,
                 "prefix key of the detach sequence (prefix, then d): C-\\ (default), ^A, "
                 "ctrl-b, ... or none; prefix twice sends the prefix itself. Default from "
                 "$" + std::string(kDetachKeyEnv))
      ->type_name("KEY");
}

Result<DetachKey> resolve_detach_key(const std::string& flag, const EnvLookup& env) {
  if (!flag.empty()) return parse_detach_key(flag);
  if (auto from_env = env(kDetachKeyEnv)) return parse_detach_key(*from_env);
  return DetachKey{kDefaultDetachKey};
}

AttachCommand::AttachCommand(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "attach",
      "Attach this terminal to a pane: its screen, then its live output; your keys go to it. "
      "Detach with Ctrl-\\ then d (the pane keeps running)");
  app_->add_option("pane", pane_, "pane id or pane name")->required();
  add_detach_key_option(*app_, detach_key_);
  app_->add_flag("--no-mark-seen,--no_mark_seen", no_mark_seen_,
                 "do not record the pane as read by attaching");
}

int AttachCommand::run(const std::string& socket_path, const CliIo& io) const {
  auto key = resolve_detach_key(detach_key_, io.env);
  if (!key.ok()) {
    io.err << error_line(key.error()) << '\n';
    return kExitUsage;
  }
  auto link = AttachLink::connect(socket_path, io.uid);
  if (!link.ok()) {
    io.err << error_line(link.error()) << '\n';
    return exit_code_for(link.error());
  }
  const AttachOptions options{pane_, *key, !no_mark_seen_};
  io.out.flush();  // the session writes to the terminal's fd directly
  return run_attach(*link, options, TerminalIo{io.in_fd, io.out_fd, io.err});
}

}  // namespace signaltty::cli
