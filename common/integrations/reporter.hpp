// common/integrations/reporter.hpp: finding the program managed hooks run,
// `signaltty-hookrelay`: beside the running executable (the CLI and the
// broker are installed in the same directory as the relay), else the first
// one on PATH. It must be absolute, a regular file and executable
// (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: runs the program.
#pragma once

#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/integrations/config_paths.hpp"

namespace signaltty::integrations {

inline constexpr std::string_view kReporterProgram = "signaltty-hookrelay";

// The relay's absolute path; IO_ERROR when none is found or the one found
// is not an executable regular file. `env` gives PATH.
Result<std::string> find_reporter(const EnvLookup& env);

// OK when `path` is absolute, a regular file and executable by us.
Status check_reporter(const std::string& path);

}  // namespace signaltty::integrations
