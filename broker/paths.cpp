// broker/paths.cpp: directory rules, stale-socket probe.
// Runs in: broker, at startup.
#include "broker/paths.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/fs.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {

constexpr std::string_view kAppDir = "signaltty";
constexpr std::string_view kSocketName = "signaltty.sock";

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::string home_dir() {
  if (auto h = env("HOME")) return *h;
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_dir != nullptr)
    return pw->pw_dir;
  return "/";
}

std::string default_runtime_dir() {
  if (auto xdg = env("XDG_RUNTIME_DIR")) return fs::join(*xdg, kAppDir);
  return "/tmp/signaltty-" + std::to_string(::geteuid());
}

std::string default_state_dir() {
  if (auto xdg = env("XDG_STATE_HOME")) return fs::join(*xdg, kAppDir);
  return fs::join(home_dir(), ".local/state/signaltty");
}

std::string default_config_dir() {
  if (auto xdg = env("XDG_CONFIG_HOME")) return fs::join(*xdg, kAppDir);
  return fs::join(home_dir(), ".config/signaltty");
}

Status check_private_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return Error::from_errno(ErrorCode::IoError, "lstat", errno, dir);
  if (!S_ISDIR(st.st_mode)) return Error{ErrorCode::Forbidden, dir + " is not a directory"};
  if (st.st_uid != ::geteuid())
    return Error{ErrorCode::Forbidden, dir + " is owned by uid " + std::to_string(st.st_uid) +
                                           ", not by us (uid " + std::to_string(::geteuid()) + ")"};
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Error{ErrorCode::Forbidden, dir + " has mode " + mode +
                                           "; it must not be group/world accessible (chmod 700)"};
  }
  return {};
}

// A directory of the user's configuration: its flag, else its environment
// variable, else `leaf` under the config dir.
std::string config_subdir(const std::optional<std::string>& flag, const char* env_name,
                          const std::string& config_dir, std::string_view leaf) {
  if (flag) return *flag;
  if (auto dir = env(env_name)) return *dir;
  return fs::join(config_dir, leaf);
}

}  // namespace

Result<ResolvedPaths> resolve_paths(const PathOverrides& o) {
  ResolvedPaths p;
  p.socket_path = o.socket_path.value_or(fs::join(default_runtime_dir(), kSocketName));
  if (p.socket_path.empty() || p.socket_path.front() != '/')
    return Error{ErrorCode::BadParams, "socket path must be absolute: " + p.socket_path};
  if (p.socket_path.size() >= sizeof(sockaddr_un::sun_path))
    return Error{ErrorCode::BadParams, "socket path too long for a Unix socket: " + p.socket_path};
  p.runtime_dir = fs::dirname(p.socket_path);
  p.state_dir = o.state_dir.value_or(default_state_dir());
  p.config_dir = o.config_dir.value_or(default_config_dir());
  p.agents_dir = config_subdir(o.agents_dir, "SIGNALTTY_AGENTS_DIR", p.config_dir, "agents");
  p.plugin_dir = config_subdir(o.plugin_dir, "SIGNALTTY_PLUGIN_DIR", p.config_dir, "plugins");
  return p;
}

Status ensure_private_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Error::from_errno(ErrorCode::IoError, "mkdir", errno, dir);
  return check_private_dir(dir);
}

Status ensure_private_dir_recursive(const std::string& dir) {
  for (std::size_t pos = 1; (pos = dir.find('/', pos)) != std::string::npos; ++pos) {
    std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return Error::from_errno(ErrorCode::IoError, "mkdir", errno, prefix);
  }
  return ensure_private_dir(dir);
}

Status claim_socket_path(const std::string& socket_path) {
  struct stat st {};
  if (::lstat(socket_path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return Error::from_errno(ErrorCode::IoError, "lstat", errno, socket_path);
  }
  if (!S_ISSOCK(st.st_mode))
    return Error{ErrorCode::Forbidden, socket_path + " exists and is not a socket; not touching it"};
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "socket", errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0)
    return Error{ErrorCode::Forbidden,
                 "a broker is already running on " + socket_path + "; refusing to start a second one"};
  if (errno != ECONNREFUSED)
    return Error::from_errno(ErrorCode::IoError, "connect", errno, socket_path);
  if (::unlink(socket_path.c_str()) != 0 && errno != ENOENT)
    return Error::from_errno(ErrorCode::IoError, "unlink", errno, socket_path);
  return {};
}

}  // namespace signaltty::broker
