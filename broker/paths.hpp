// broker/paths.hpp: resolving and securing the broker's directories and
// the socket's "is a broker already there" probe
// (docs/rules.md (Paths and the broker process), Paths; docs/rules.md (Hardening), Transport and identity).
// Runs in: broker, before the listener exists.
// Never: loosens a directory it did not create; a runtime dir owned by
// another uid or open to group/world is refused, not repaired.
#pragma once

#include <optional>
#include <string>

#include "common/errors.hpp"

namespace signaltty::broker {

struct PathOverrides {
  std::optional<std::string> socket_path;
  std::optional<std::string> state_dir;
  std::optional<std::string> config_dir;
  std::optional<std::string> agents_dir;
  std::optional<std::string> plugin_dir;
};

struct ResolvedPaths {
  std::string socket_path;
  std::string runtime_dir;
  std::string state_dir;
  std::string config_dir;
  std::string agents_dir;
  std::string plugin_dir;
};

// Applies the defaults of docs/rules.md (Paths and the broker process) to whatever was not overridden.
Result<ResolvedPaths> resolve_paths(const PathOverrides& overrides);

// Creates `dir` 0700 when missing (its parent must exist); then refuses it
// unless it is a real directory owned by our euid with no group/world bits.
Status ensure_private_dir(const std::string& dir);
// Like ensure_private_dir, creating missing parents (state dirs).
Status ensure_private_dir_recursive(const std::string& dir);

// A live broker answering on `socket_path` → error (refuse to start); a
// stale socket file → removed; anything else at that path → error.
Status claim_socket_path(const std::string& socket_path);

}  // namespace signaltty::broker
