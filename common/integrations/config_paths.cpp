// common/integrations/config_paths.cpp: resolving a provider's hook file
// from overrides, the home directory and the launch directory
// (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: touches the file system.
#include "common/integrations/config_paths.hpp"

#include <pwd.h>
#include <unistd.h>

#include <vector>

#include "common/fs.hpp"

namespace signaltty::integrations {
namespace {

constexpr std::string_view kHomeEnv = "HOME";
constexpr std::string_view kXdgConfigHomeEnv = "XDG_CONFIG_HOME";

std::optional<std::string> non_empty(std::optional<std::string> value) {
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::optional<std::string> from_launch(const PathContext& c, std::string_view name) {
  auto it = c.launch_env.find(std::string(name));
  if (it == c.launch_env.end()) return std::nullopt;
  return non_empty(it->second);
}

std::optional<std::string> from_process(const PathContext& c, std::string_view name) {
  return c.env ? non_empty(c.env(name)) : std::nullopt;
}

std::string absolute(const PathContext& c, const std::string& path) {
  return path.starts_with('/') ? path : fs::join(c.base_dir, path);
}

// The password database's home for our uid, when HOME says nothing.
std::optional<std::string> passwd_home() {
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found)
    return std::nullopt;
  return non_empty(std::string(found->pw_dir));
}

Result<std::string> home_dir(const PathContext& c) {
  std::optional<std::string> home = non_empty(c.explicit_home);
  if (!home) home = from_launch(c, kHomeEnv);
  if (!home) home = from_process(c, kHomeEnv);
  if (!home) home = passwd_home();
  if (!home) return Error{ErrorCode::IoError, "no home directory: HOME is not set"};
  return absolute(c, *home);
}

// A provider override: the launch's wins; this process's counts only
// without an explicit home.
std::optional<std::string> root_override(const PathContext& c, std::string_view name) {
  if (auto value = from_launch(c, name)) return absolute(c, *value);
  if (c.explicit_home) return std::nullopt;
  if (auto value = from_process(c, name)) return absolute(c, *value);
  return std::nullopt;
}

Result<std::string> provider_root(Provider provider, const PathContext& c) {
  if (auto variable = root_override_variable(provider))
    if (auto root = root_override(c, *variable)) return *root;
  if (provider == Provider::Opencode) {
    auto xdg = from_launch(c, kXdgConfigHomeEnv);
    if (!xdg) xdg = from_process(c, kXdgConfigHomeEnv);
    if (xdg) return fs::join(absolute(c, *xdg), "opencode");
  }
  SIGNALTTY_TRY(std::string home, home_dir(c));
  switch (provider) {
    case Provider::Claude: return fs::join(home, ".claude");
    case Provider::Codex: return fs::join(home, ".codex");
    case Provider::Cursor: return fs::join(home, ".cursor");
    case Provider::Opencode: return fs::join(home, ".config/opencode");
  }
  return Error{ErrorCode::Internal, "unknown provider"};
}

}  // namespace

std::optional<std::string_view> root_override_variable(Provider provider) {
  switch (provider) {
    case Provider::Claude: return "CLAUDE_CONFIG_DIR";
    case Provider::Codex: return "CODEX_HOME";
    case Provider::Opencode: return "OPENCODE_CONFIG_DIR";
    case Provider::Cursor: return std::nullopt;
  }
  return std::nullopt;
}

Result<std::string> config_file_path(Provider provider, const PathContext& context) {
  SIGNALTTY_TRY(std::string root, provider_root(provider, context));
  switch (provider) {
    case Provider::Claude: return fs::join(root, "settings.json");
    case Provider::Codex:
    case Provider::Cursor: return fs::join(root, "hooks.json");
    case Provider::Opencode: return fs::join(root, "plugins/signaltty.js");
  }
  return Error{ErrorCode::Internal, "unknown provider"};
}

}  // namespace signaltty::integrations
