// cli/socket_path.cpp: resolves the broker socket path for the CLI.
// Runs in: CLI. Never: touches the file system.
#include "cli/socket_path.hpp"

#include <cstdlib>

namespace signaltty::cli {
namespace {

std::optional<std::string> non_empty(std::optional<std::string> value) {
  if (value && value->empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> process_env(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string resolve_socket_path(const std::string& flag, const EnvLookup& env, uid_t uid) {
  if (!flag.empty()) return flag;
  if (auto explicit_path = non_empty(env(kSocketEnv))) return *explicit_path;
  std::string dir;
  if (auto runtime = non_empty(env(kRuntimeDirEnv)))
    dir = *runtime + "/" + std::string(kSocketDirName);
  else
    dir = std::string(kFallbackDirPrefix) + std::to_string(uid);
  return dir + "/" + std::string(kSocketFileName);
}

}  // namespace signaltty::cli
