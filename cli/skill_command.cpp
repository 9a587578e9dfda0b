// cli/skill_command.cpp: see skill_command.hpp.
// Runs in: CLI.
#include "cli/skill_command.hpp"

#include "cli/exit_codes.hpp"

namespace signaltty::cli {

SkillCommand::SkillCommand(CLI::App& parent)
    : app_(parent.add_subcommand("skill", "Print a Markdown skill that teaches an agent in a "
                                          "pane to drive signaltty")) {}

int SkillCommand::run(std::ostream& out) const {
  out << skill_text();
  out.flush();
  return kExitOk;
}

}  // namespace signaltty::cli
