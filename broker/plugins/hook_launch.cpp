// broker/plugins/hook_launch.cpp: loading, checking and starting one hook
// in the launcher; the hook's supervisor; the status line it writes.
// Runs in: the launcher, the supervisor, the hook-to-be; the codecs and
// hook_outcome also in the broker.
#include "broker/plugins/hook_launch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>

#include "broker/launcher_process.hpp"
#include "broker/plugins/plugin_registry.hpp"
#include "common/child_signals.hpp"
#include "common/fs.hpp"
#include "common/protocol/events.hpp"

extern char** environ;

namespace signaltty::broker::plugins {
namespace {

// A declared event's name (not a glob).
bool is_event_name(std::string_view name) {
  return name.find('*') == std::string_view::npos && protocol::is_event_selector(name);
}

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

Error spawn_error(std::string message) { return Error{ErrorCode::SpawnFailed, std::move(message)}; }

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::uint64_t hook_fingerprint(const PluginHook& hook) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  auto field = [&hash](std::string_view bytes) {
    hash = fnv1a(hash, bytes);
    hash = fnv1a(hash, std::string_view("\0", 1));
  };
  for (const auto& event : hook.events) field(event);
  field("\x1e");
  for (const auto& arg : hook.command) field(arg);
  field("\x1e");
  field(std::to_string(hook.timeout_secs));
  for (const auto& [name, value] : hook.env) {
    field(name);
    field(value);
  }
  return hash;
}

std::string encode_hook_launch(const HookLaunch& launch) {
  char hex[17];
  auto [end, ec] = std::to_chars(hex, hex + sizeof hex, launch.fingerprint, 16);
  (void)ec;
  return launch.plugin + " " + std::to_string(launch.hook_index) + " " + std::string(hex, end) +
         " " + launch.event;
}

std::optional<HookLaunch> decode_hook_launch(std::string_view text) {
  HookLaunch out;
  out.plugin = std::string(take_word(text));
  if (!is_plugin_name(out.plugin)) return std::nullopt;
  if (!parse_word(take_word(text), out.hook_index) || out.hook_index >= kPluginMaxHooks)
    return std::nullopt;
  if (!parse_word(take_word(text), out.fingerprint, 16)) return std::nullopt;
  if (!is_event_name(text)) return std::nullopt;
  out.event = std::string(text);
  return out;
}

std::vector<std::string> hook_environment(std::span<const std::string> base, const Plugin& plugin,
                                          const PluginHook& hook, std::string_view socket_path,
                                          std::string_view event) {
  std::map<std::string, std::string, std::less<>> vars;
  std::vector<std::string> order;  // the base's order, then new names as set
  auto set = [&](std::string_view name, std::string_view value) {
    auto [it, fresh] = vars.try_emplace(std::string(name));
    if (fresh) order.push_back(it->first);
    it->second = value;
  };
  for (const std::string& entry : base) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    set(std::string_view(entry).substr(0, eq), std::string_view(entry).substr(eq + 1));
  }
  set("SIGNALTTY_SOCKET", socket_path);
  set("SIGNALTTY_EVENT", event);
  set("SIGNALTTY_PLUGIN_DIR", plugin.dir);
  set("SIGNALTTY_PLUGIN_NAME", plugin.name);
  for (const auto& [name, value] : hook.env) set(name, value);
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const std::string& name : order) out.push_back(name + "=" + vars.find(name)->second);
  return out;
}

Result<std::string> find_executable(std::string_view argv0, std::string_view path_list,
                                    const std::string& cwd) {
  if (argv0.find('/') != std::string_view::npos) return std::string(argv0);
  for (;;) {
    const auto colon = path_list.find(':');
    std::string dir(path_list.substr(0, colon));
    if (dir.empty()) dir = cwd;
    const std::string candidate = dir + "/" + std::string(argv0);
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    path_list.remove_prefix(colon + 1);
  }
  return spawn_error(std::string(argv0) + ": command not found in PATH");
}

Result<pid_t> start_hook(const LauncherConfig& config, const HookLaunch& launch, ChildPipes pipes) {
  // Checked first: no plugin.toml is read for a malformed request.
  if (!has_all_pipes(pipes)) return spawn_error("the request came without its four pipes");
  if (config.plugin_dir.empty()) return spawn_error("no plugin dir");
  auto loaded = load_plugin(config.plugin_dir, launch.plugin);
  if (!loaded.ok()) return spawn_error("plugin " + launch.plugin + ": " + loaded.error().message);
  const Plugin& plugin = *loaded;
  if (launch.hook_index >= plugin.hooks.size() ||
      hook_fingerprint(plugin.hooks[launch.hook_index]) != launch.fingerprint)
    return spawn_error("plugin " + launch.plugin +
                       ": plugin.toml changed since it was loaded; run `signaltty plugin reload`");
  const PluginHook& hook = plugin.hooks[launch.hook_index];

  std::vector<std::string> base;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
    base.emplace_back(*entry);
  ChildSpec spec;
  spec.env = hook_environment(base, plugin, hook, config.broker_socket, launch.event);
  std::string_view path_list = kDefaultPathList;
  for (const std::string& entry : spec.env)
    if (std::string_view(entry).starts_with("PATH=")) path_list = std::string_view(entry).substr(5);
  SIGNALTTY_TRY(spec.exe, find_executable(hook.command.front(), path_list, plugin.dir));
  spec.argv = hook.command;
  spec.dir = plugin.dir;
  spec.deadline = std::chrono::seconds(hook.timeout_secs);
  spec.defaults = config.user_defaults;
  spec.supervisor_name = "sigtty-hook";
  return start_supervised(std::move(spec), std::move(pipes));
}

Status hook_outcome(const ChildEnd& end, std::uint32_t timeout_secs, std::string_view stderr_text) {
  std::string err(stderr_text);
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ' || err.back() == '\r'))
    err.pop_back();
  const std::string quoted = err.empty() ? "" : ": " + err;
  switch (end.kind) {
    case ChildEnd::Kind::Exited:
      if (end.value == 0) return {};
      return Error{ErrorCode::IoError, "exit " + std::to_string(end.value) + quoted};
    case ChildEnd::Kind::Signaled:
      return Error{ErrorCode::IoError, "signal " + std::to_string(end.value) + quoted};
    case ChildEnd::Kind::TimedOut:
      return Error{ErrorCode::Timeout, "timed out after " + std::to_string(timeout_secs) + "s"};
    case ChildEnd::Kind::SpawnFailed:
      return Error::from_errno(ErrorCode::SpawnFailed, end.what, end.value);
  }
  return Error{ErrorCode::Internal, "unknown hook end"};
}

}  // namespace signaltty::broker::plugins
