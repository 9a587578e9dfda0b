// cli/pane_commands.hpp: the pane commands a person types that the method
// table does not give on its own:
//   signaltty pane list [--workspace WS]        every pane (workspace.list + workspace.get)
//   signaltty pane send PANE [TEXT] [--enter]   pane.input with \r \n \t \e \xHH ... decoded,
//                                               --enter appends a carriage return
//   signaltty pane input PANE [TEXT]            pane.input with TEXT's bytes as they are
//                                               (or stdin's, when piped); --data-b64 still works
//   signaltty pane wait-output ...              the protocol's name for pane wait-for-output
// The base64 of pane.input is the CLI's job, never the user's.
// Runs in: CLI. Never: sends a request before the whole command line parsed.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "cli/client.hpp"
#include "cli/command_binding.hpp"
#include "cli/human_output.hpp"

namespace signaltty::cli {

struct CliIo;

// C-style escapes of `pane send`: \\ \r \n \t \e \a \b \0 and \xHH.
// Anything else after a backslash is BAD_PARAMS.
Result<std::string> decode_escapes(std::string_view text);

class PaneCommands {
 public:
  // `pane_group` is the generated `pane` node; `input` and `wait_for_output`
  // are its generated pane.input and pane.wait_for_output commands.
  PaneCommands(CLI::App& pane_group, const CommandBinding& input,
               const CommandBinding& wait_for_output);
  PaneCommands(const PaneCommands&) = delete;
  PaneCommands& operator=(const PaneCommands&) = delete;

  // `pane list` or `pane send` was chosen.
  bool chosen() const { return list_->parsed() || send_->parsed(); }
  // Runs the chosen one; the exit status.
  int run(Client& client, std::optional<JsonStyle> json, const CliIo& io) const;

  // The params `command` sends: its generated params, except that pane
  // input's TEXT (or stdin, given neither TEXT nor --data-b64) becomes
  // data_b64. BAD_PARAMS when pane input has nothing to send.
  Result<protocol::Json> params_for(const CommandBinding& command, const CliIo& io) const;

 private:
  int run_list(Client& client, std::optional<JsonStyle> json, const CliIo& io) const;
  int run_send(Client& client, std::optional<JsonStyle> json, const CliIo& io) const;

  const CommandBinding& input_;
  CLI::Option* input_text_ = nullptr;
  std::string input_text_value_;

  CLI::App* list_ = nullptr;
  std::string list_workspace_;

  CLI::App* send_ = nullptr;
  std::string send_pane_;
  std::string send_text_;
  bool send_enter_ = false;
};

}  // namespace signaltty::cli
