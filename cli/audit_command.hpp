// cli/audit_command.hpp: `signaltty audit verify|head|show|tail`, the
// reviewer's commands over the audit journal. They read the state dir's
// files directly (common/audit_verify.hpp, cli/audit_reader.hpp): offline,
// no broker needed (docs/cli.md "Audit journal", docs/security.md).
// Runs in: CLI. Never: connects to a socket or writes to the state dir.
//
//   signaltty audit verify [--state-dir DIR] [--anchor SEQ:HASH]
//   signaltty audit head                        → 1240:9f86d0…
//   signaltty audit show --pane p_1 --event 'pane.*'
//   signaltty audit tail -f --json
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/human_output.hpp"
#include "cli/socket_path.hpp"

namespace signaltty::cli {

struct CliIo;

// $XDG_STATE_HOME/signaltty, else $HOME/.local/state/signaltty: the broker's
// default state dir (docs/rules.md, Paths).
std::string default_state_dir(const EnvLookup& env);

class AuditCommand {
 public:
  explicit AuditCommand(CLI::App& parent);
  AuditCommand(const AuditCommand&) = delete;
  AuditCommand& operator=(const AuditCommand&) = delete;

  bool chosen() const { return group_->parsed(); }
  // `json` is the --json/--pretty choice. The exit status (cli/exit_codes.hpp).
  int run(std::optional<JsonStyle> json, const CliIo& io) const;

 private:
  void add_reader_options(CLI::App& app);
  std::string state_dir(const CliIo& io) const;
  int run_verify(std::optional<JsonStyle> json, const CliIo& io) const;
  int run_head(std::optional<JsonStyle> json, const CliIo& io) const;
  int run_read(bool tail, std::optional<JsonStyle> json, const CliIo& io) const;

  CLI::App* group_ = nullptr;
  CLI::App* verify_ = nullptr;
  CLI::App* head_ = nullptr;
  CLI::App* show_ = nullptr;
  CLI::App* tail_ = nullptr;
  std::string state_dir_;
  std::string anchor_;
  bool follow_ = false;
  std::string since_;
  std::optional<std::uint64_t> from_seq_;
  std::string pane_;
  std::string workspace_;
  std::string event_;
  std::size_t lines_ = 10;
};

}  // namespace signaltty::cli
