// broker/plugins/plugin_registry.hpp: the executable plugins the broker
// holds: a PluginSet scanned from the plugin dir, immutable once scanned,
// and beside it each hook's run statistics, which the hook runner records
// and plugin.list reports.
//
// Each immediate subdirectory of the plugin dir holding a plugin.toml is one
// plugin, scanned in name order. A subdirectory without one is not a
// plugin, nor is a hidden entry (a name starting with '.'); a symlinked
// subdirectory is followed. A missing dir holds no plugins; a dir that
// cannot be listed is one failure entry. A package that cannot be read or
// fails to load is a failure entry of its own and the others load.
// plugin.toml is read with O_NOFOLLOW|O_NONBLOCK and must be a regular file
// of at most 64 KiB; at most 256 subdirectories are read, the rest are one
// failure entry.
// Runs in: broker, on its io thread (a scan may run on any thread). Never:
// runs a hook (the hook runner does), follows a symlinked plugin.toml,
// blocks on a fifo, reads past a file's bound, or changes a set once
// scanned (a reload scans a new one and swaps it whole).
//
// Usage:
//   PluginRegistry plugins = PluginRegistry::scan(plugin_dir);
//   for (const HookRef& hook : plugins.matching_hooks(event_name))
//     runner.start(hook);  // holds hook.set while the process runs
//   plugins.record_run(hook, outcome);  // when it has finished
//   return plugins.describe();          // plugin.list
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/plugins/plugin_manifest.hpp"
#include "common/errors.hpp"
#include "common/ids.hpp"
#include "common/protocol/methods/plugin.hpp"

namespace signaltty::broker::plugins {

// Subdirectories of the plugin dir read in one scan (ours, not the spec's).
inline constexpr std::size_t kPluginDirMaxPackages = 256;
// The spec's: a hook's error is cut to this many characters.
inline constexpr std::size_t kHookErrorMaxChars = 500;

// Immutable once scanned; shared as std::shared_ptr<const PluginSet>, so a
// running hook keeps its plugin alive across a reload.
class PluginSet {
 public:
  PluginSet() = default;  // empty: no plugins, no failures

  // The packages of `dir` (made absolute), in name order, and the failures.
  static std::shared_ptr<const PluginSet> scan(const std::filesystem::path& dir);

  const std::string& dir() const { return dir_; }
  std::span<const Plugin> plugins() const { return plugins_; }
  std::span<const protocol::PluginFailure> failures() const { return failures_; }

 private:
  std::string dir_;
  std::vector<Plugin> plugins_;
  std::vector<protocol::PluginFailure> failures_;
};

// One hook of one scanned plugin: what the runner runs and reports on.
struct HookRef {
  std::shared_ptr<const PluginSet> set;
  std::size_t plugin_index = 0;
  std::size_t hook_index = 0;

  const Plugin& plugin() const { return set->plugins()[plugin_index]; }
  const PluginHook& hook() const { return plugin().hooks[hook_index]; }
};

// Since the last scan.
struct HookStats {
  std::uint64_t runs = 0;                 // every finished firing
  std::uint64_t errors = 0;               // those that failed
  std::optional<std::string> last_error;  // hook_error_text of the latest failure
  std::optional<std::string> last_run;    // RFC 3339, when the latest firing finished
};

// The package `name` of the plugin dir `root`, read and parsed as a scan
// reads it: what the launcher loads before it starts one of its hooks. An
// entry that is not a package is an error too.
Result<Plugin> load_plugin(const std::filesystem::path& root, std::string_view name);

// A hook's error as kept and logged: control characters and bytes that are
// not UTF-8 removed, cut at kHookErrorMaxChars characters.
std::string hook_error_text(std::string_view message);

class PluginRegistry {
 public:
  // "Now" as an RFC 3339 UTC string; tests pass a fixed one.
  using Clock = std::function<std::string()>;

  PluginRegistry();  // no dir, no plugins

  // The plugins of `dir` with every hook's statistics at zero.
  static PluginRegistry scan(const std::filesystem::path& dir, Clock clock = now_rfc3339);

  // plugin.reload: scans the same dir again, swaps the set whole and resets
  // every statistic. A running hook keeps the set it started from.
  void reload();

  const std::shared_ptr<const PluginSet>& set() const { return set_; }

  // Every hook one of whose globs selects `event`, by plugin then
  // declaration order; none for pty.data, which is never offered.
  std::vector<HookRef> matching_hooks(std::string_view event) const;

  // A finished firing of `hook`: ok, or the error (`exit 1: <stderr>`, `timed
  // out after 10s`, a spawn failure). A hook of a set since replaced by a
  // reload is not counted.
  void record_run(const HookRef& hook, const Status& outcome);

  // The statistics of `hook`; nullopt for a hook of a replaced set.
  std::optional<HookStats> stats(const HookRef& hook) const;

  // plugin.list, plugin.reload: the dir, its plugins with their hooks'
  // statistics, and the failures.
  protocol::PluginListResult describe() const;

 private:
  PluginRegistry(std::filesystem::path dir, Clock clock);
  // Whether `hook` is of the current set (its statistics are kept).
  bool counts(const HookRef& hook) const;

  std::filesystem::path dir_;
  Clock clock_;
  std::shared_ptr<const PluginSet> set_;
  std::vector<std::vector<HookStats>> stats_;  // [plugin][hook], as in set_
};

}  // namespace signaltty::broker::plugins
