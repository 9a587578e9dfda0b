// broker/plugins/hook_launch.hpp: starting one plugin hook, on the
// launcher's side of the broker (docs/architecture.md "Who starts whom").
//
// The broker never hands the launcher an argv. It names a hook: the
// plugin's name, the hook's index in its plugin.toml, a fingerprint of the
// hook as the broker loaded it, and the event. The launcher reads that
// plugin.toml itself from the plugin dir it was given at fork time, refuses
// a hook whose fingerprint differs (the file changed since the last
// plugin.reload), and starts it under a supervisor "sigtty-hook"
// (broker/supervised_child.hpp), which holds the hook's deadline.
//
// Runs in: the launcher (load, check, fork), the supervisor and, between
// fork and exec, the hook. The codec and the outcome text also run in the
// broker. Never: runs a command that is not a hook of an installed plugin,
// leaves a hook past its deadline, or lets a hook inherit a broker fd.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/plugins/plugin_manifest.hpp"
#include "broker/supervised_child.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
struct LauncherConfig;
}

namespace signaltty::broker::plugins {

// What the broker asks for: one hook of one installed plugin, by name.
struct HookLaunch {
  std::string plugin;              // a plugin name: the package's directory
  std::size_t hook_index = 0;      // 0-based, in plugin.toml's order
  std::uint64_t fingerprint = 0;   // hook_fingerprint() as the broker loaded it
  std::string event;               // SIGNALTTY_EVENT
  bool operator==(const HookLaunch&) const = default;
};

// Stable across processes of one build: the events, argv, timeout and env.
std::uint64_t hook_fingerprint(const PluginHook& hook);

// `<plugin> <hook_index> <fingerprint> <event>` and back.
std::string encode_hook_launch(const HookLaunch& launch);
std::optional<HookLaunch> decode_hook_launch(std::string_view text);

// The hook's environment: `base` (the server's, as NAME=value), then
// SIGNALTTY_SOCKET, SIGNALTTY_EVENT, SIGNALTTY_PLUGIN_DIR (the package
// dir), SIGNALTTY_PLUGIN_NAME, then [hook.env]; a later value replaces an
// earlier one of the same name.
std::vector<std::string> hook_environment(std::span<const std::string> base, const Plugin& plugin,
                                          const PluginHook& hook, std::string_view socket_path,
                                          std::string_view event);

// argv[0] as execve takes it: kept when it holds a '/', else the first
// executable regular file of that name in `path_list` (':'-separated; an
// empty entry is the cwd, as for a shell). NOT_FOUND-like SpawnFailed when
// there is none.
Result<std::string> find_executable(std::string_view argv0, std::string_view path_list,
                                    const std::string& cwd);

// In the launcher: the hook `launch` names, loaded from config.plugin_dir
// and checked, started under its supervisor on `pipes`. The supervisor's
// pid, or why nothing was started.
Result<pid_t> start_hook(const LauncherConfig& config, const HookLaunch& launch, ChildPipes pipes);

// A firing's result as plugin.list reports it: ok for exit 0, else
// `exit <status>: <stderr>`, `signal <n>: <stderr>` (no ": " when stderr
// was empty), `timed out after Ns`
// or the spawn failure (the registry cuts it to 500 characters).
Status hook_outcome(const ChildEnd& end, std::uint32_t timeout_secs, std::string_view stderr_text);

}  // namespace signaltty::broker::plugins
