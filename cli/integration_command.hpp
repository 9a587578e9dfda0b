// cli/integration_command.hpp: `signaltty integration install|uninstall|status
// <claude|codex|opencode|cursor> [--home DIR]`, the hand-written command
// that writes, removes or inspects our hooks in an agent's own config file
// (common/integrations/, docs/cli.md "Agent integrations"). It talks to no
// broker.
// Runs in: CLI. Never: connects to a socket, or touches a file of another
// provider than the one named.
//
//   signaltty integration install claude          hooks into ~/.claude/settings.json
//   signaltty integration status codex --json     {"agent": "codex", "installed": ...}
//   signaltty integration uninstall opencode --home /tmp/h
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/human_output.hpp"

namespace signaltty::cli {

struct CliIo;

class IntegrationCommand {
 public:
  explicit IntegrationCommand(CLI::App& parent);
  IntegrationCommand(const IntegrationCommand&) = delete;
  IntegrationCommand& operator=(const IntegrationCommand&) = delete;

  bool chosen() const;
  // Runs the chosen action; `json` is the --json/--pretty choice. The exit status.
  int run(std::optional<JsonStyle> json, const CliIo& io) const;

 private:
  enum class Action { Install, Uninstall, Status };
  struct Verb {
    CLI::App* app = nullptr;
    Action action = Action::Status;
  };
  void add_verb(Action action, const char* name, const char* description);

  CLI::App* group_ = nullptr;
  std::vector<Verb> verbs_;
  std::string provider_;
  std::string home_;
};

}  // namespace signaltty::cli
