// cli/command_binding.hpp: one generated command attached to the CLI11 tree:
// an option (or positional) per ParamSpec, and the request params built from
// what the user typed.
// Runs in: CLI. Never: checks what the broker checks (ranges, ids, required
// options); only required positionals and value syntax are enforced here.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "cli/command_table.hpp"

namespace signaltty::cli {

class CommandBinding {
 public:
  // Adds the subcommand `word` under `parent` for `spec`.
  CommandBinding(CLI::App& parent, const std::string& word, CommandSpec spec);
  CommandBinding(const CommandBinding&) = delete;
  CommandBinding& operator=(const CommandBinding&) = delete;

  const CommandSpec& spec() const { return spec_; }
  CLI::App& app() const { return *app_; }
  // True once the command line selected this command.
  bool chosen() const { return app_->parsed(); }
  // The request params: one member per option given, absent ones omitted.
  protocol::Json params() const;

 private:
  // Where CLI11 stores one parameter's value.
  struct Slot {
    const ParamSpec* param = nullptr;
    CLI::Option* option = nullptr;
    std::string text;
    std::vector<std::string> list;
    std::int64_t integer = 0;
    double number = 0;
    bool flag = false;
  };
  void add_slot(const ParamSpec& param);
  protocol::Json value_of(const Slot& slot) const;

  CommandSpec spec_;
  CLI::App* app_;
  std::deque<Slot> slots_;  // CLI11 holds references into these
};

// The CLI11 name list of a param: "workspace_id,--workspace-id,--workspace_id"
// for a positional, "--from-seq,--from_seq" for an option.
std::string option_names(const ParamSpec& param);

}  // namespace signaltty::cli
