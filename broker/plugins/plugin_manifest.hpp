// broker/plugins/plugin_manifest.hpp: one executable plugin's manifest,
// plugin.toml, parsed into a typed Plugin: its name, version and
// description, the hooks that server events fire (event globs, argv,
// timeout, extra env) and the commands the CLI runs.
//
// Every bound below is a load error when passed, as are bad TOML, an
// unknown key, a value of the wrong type, an invalid name, an empty events,
// command or run, a timeout outside 1..=300, a duplicate command name and a
// plugin name other than its directory's. argv[0] of a command or run is
// kept when absolute, joined to the plugin dir when relative with a '/', and
// kept bare (for a PATH lookup when it runs) otherwise.
// Runs in: broker (plugin.list, plugin.reload, the hook runner). Never:
// touches the file system (broker/plugins/plugin_registry.cpp reads the
// files) or runs anything.
//
// Usage:
//   SIGNALTTY_TRY(Plugin plugin, parse_plugin_manifest(text, plugin_dir));
//   for (const PluginHook& hook : plugin.hooks)
//     if (hook_matches(hook, event_name)) run_in(plugin.dir, hook.command);
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/limits.hpp"

namespace signaltty::broker::plugins {

// The manifest's file name inside a plugin directory.
inline constexpr std::string_view kPluginManifestFile = "plugin.toml";

// Bounds on one manifest (ours, not the spec's, except the name's length
// and the timeout): a larger file or list, or a longer string, fails the
// package.
inline constexpr std::size_t kPluginManifestMaxBytes = 64u << 10;
inline constexpr std::size_t kPluginMaxHooks = 64;
inline constexpr std::size_t kPluginMaxCommands = 64;
inline constexpr std::size_t kPluginMaxEventsPerHook = 64;
inline constexpr std::size_t kPluginMaxArgs = limits::kArgvMaxArgs;
inline constexpr std::size_t kPluginMaxEnvEntries = 64;
inline constexpr std::size_t kPluginStringMaxBytes = 4u << 10;

// The spec's: plugin and command names are [a-z0-9_-]{1,64}; a hook's
// timeout_secs defaults to 10 and is allowed in 1..=300.
inline constexpr std::size_t kPluginNameMaxBytes = 64;
inline constexpr std::uint32_t kPluginHookTimeoutDefaultSecs = 10;
inline constexpr std::uint32_t kPluginHookTimeoutMinSecs = 1;
inline constexpr std::uint32_t kPluginHookTimeoutMaxSecs = 300;

// [[hook]]: run `command` for every event one of `events` matches.
struct PluginHook {
  std::vector<std::string> events;   // `*`, `prefix.*` or exact names, as written
  std::vector<std::string> command;  // argv, argv[0] resolved
  std::uint32_t timeout_secs = kPluginHookTimeoutDefaultSecs;
  std::map<std::string, std::string> env;  // [hook.env], applied last
};

// [[command]]: what `signaltty plugin run <plugin> <name>` runs.
struct PluginCommand {
  std::string name;
  std::optional<std::string> description;
  std::vector<std::string> run;  // argv, argv[0] resolved
};

struct Plugin {
  std::string name;     // equals the last component of `dir`
  std::string version;  // "" when not given
  std::optional<std::string> description;
  std::string dir;                      // the package directory: the hooks' and commands' cwd
  std::vector<PluginHook> hooks;        // in declaration order
  std::vector<PluginCommand> commands;  // in declaration order, names unique
};

// `text`, the plugin.toml of the package in `dir`, parsed and validated.
// An error's message names the table, the hook or command (by name or
// 1-based position) and the key at fault.
Result<Plugin> parse_plugin_manifest(std::string_view text, const std::filesystem::path& dir);

// [a-z0-9_-]{1,64}: a plugin's or a command's name.
bool is_plugin_name(std::string_view name);

// `*`, `<name>.*` or `<name>`, where <name> is one or more '.'-separated
// segments of [a-z0-9_]: the forms a hook's events take.
bool is_event_glob(std::string_view glob);

// Whether `glob` selects `event`: `*` every event, `prefix.*` every event
// starting "prefix." with at least one character after the dot, any other
// glob only the event of that exact name.
bool event_matches(std::string_view glob, std::string_view event);

// Whether any of the hook's globs selects `event`.
bool hook_matches(const PluginHook& hook, std::string_view event);

// argv[0] as run from `dir`: kept when absolute or bare (a PATH lookup),
// else joined to `dir` (a leading "./" dropped).
std::string resolve_argv0(std::string_view argv0, const std::filesystem::path& dir);

}  // namespace signaltty::broker::plugins
