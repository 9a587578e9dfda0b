// cli/skill_command.hpp: `signaltty skill` prints the Markdown skill file
// that teaches an agent in a pane to drive signaltty (docs/skill.md, built
// into the program), so an agent can be pointed at it with one command.
// Runs in: CLI. Never: talks to the broker.
#pragma once

#include <CLI/CLI.hpp>

#include <ostream>
#include <string_view>

namespace signaltty::cli {

// docs/skill.md as the build embedded it.
std::string_view skill_text();

class SkillCommand {
 public:
  explicit SkillCommand(CLI::App& parent);
  bool chosen() const { return app_->parsed(); }
  int run(std::ostream& out) const;

 private:
  CLI::App* app_;
};

}  // namespace signaltty::cli
