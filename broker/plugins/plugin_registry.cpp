// broker/plugins/plugin_registry.cpp: scans the plugin dir (bounded,
// never following plugin.toml, never blocked by a fifo) and keeps each
// hook's run statistics beside the scanned set.
// Runs in: broker. Never: lets one package's failure stop the scan or
// become an error return, or opens a plugin.toml that is not a regular file
// for more than an fstat.
#include "broker/plugins/plugin_registry.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <utility>

#include "broker/config_dir.hpp"
#include "broker/ptyhost_text.hpp"
#include "common/check.hpp"
#include "common/protocol/events.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker::plugins {
namespace {

// ---- the plugin dir ---------------------------------------------------------

// A directory, or a symlink or an entry of unknown type that may be one.
// Hidden entries (".", ".." among them) are never plugin names.
bool may_be_package(const dirent& entry) {
  if (entry.d_name[0] == '.') return false;
  return entry.d_type == DT_DIR || entry.d_type == DT_LNK || entry.d_type == DT_UNKNOWN;
}

// ---- one package --------------------------------------------------------------

// `error` about plugin.toml, saying so.
Error in_manifest(Error error) {
  error.message = std::string(kPluginManifestFile) + ": " + error.message;
  return error;
}

// The plugin.toml of the entry `name` of the plugin dir; nullopt when the
// entry is not a directory or holds none (it is not a package).
Result<std::optional<std::string>> read_package(int root_fd, const std::string& name) {
  using NoPackage = std::optional<std::string>;
  UniqueFd dir(::openat(root_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
  if (!dir && (errno == ENOTDIR || errno == ENOENT)) return NoPackage();
  if (!dir) return Error::from_errno(ErrorCode::IoError, "open", errno);
  auto text = read_config_file(dir.get(), std::string(kPluginManifestFile), kPluginManifestMaxBytes);
  if (!text.ok()) return in_manifest(std::move(text).error());
  return std::move(*text);
}

// The plugin in `dir`, the entry `name` of the plugin dir; nullopt when it
// is not a package.
Result<std::optional<Plugin>> load_package(int root_fd, const std::string& name,
                                           const std::filesystem::path& dir) {
  SIGNALTTY_TRY(std::optional<std::string> text, read_package(root_fd, name));
  if (!text) return std::optional<Plugin>();
  auto plugin = parse_plugin_manifest(*text, dir);
  if (!plugin.ok()) return in_manifest(std::move(plugin).error());
  return std::optional<Plugin>(std::move(*plugin));
}

// `dir` absolute, without a trailing separator: hooks run with a package
// dir as their cwd, so a joined argv[0] must not be relative. Not made
// lexically normal: ".." after a symlink is not the lexical parent.
std::filesystem::path absolute_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path out = std::filesystem::absolute(dir, ec);
  if (ec) out = dir;
  if (!out.has_filename() && out.has_relative_path()) out = out.parent_path();
  return out;
}

template <class T>
protocol::Nullable<T> nullable(const std::optional<T>& value) {
  if (!value) return {};
  return *value;
}

protocol::PluginHookInfo hook_info(const PluginHook& hook, const HookStats& stats) {
  return {hook.events,
          hook.command,
          hook.timeout_secs,
          stats.runs,
          stats.errors,
          nullable(stats.last_error),
          nullable(stats.last_run)};
}

protocol::PluginInfo plugin_info(const Plugin& plugin, const std::vector<HookStats>& stats) {
  protocol::PluginInfo info{
      plugin.name, plugin.version, nullable(plugin.description), plugin.dir, {}, {}};
  for (std::size_t i = 0; i < plugin.hooks.size(); ++i)
    info.hooks.push_back(hook_info(plugin.hooks[i], stats[i]));
  for (const PluginCommand& command : plugin.commands)
    info.commands.push_back({command.name, nullable(command.description), command.run});
  return info;
}

}  // namespace

std::shared_ptr<const PluginSet> PluginSet::scan(const std::filesystem::path& dir) {
  auto set = std::make_shared<PluginSet>();
  if (dir.empty()) return set;
  const std::filesystem::path root = absolute_dir(dir);
  set->dir_ = root.string();
  auto listing = list_config_dir(set->dir_, kPluginDirMaxPackages, may_be_package);
  if (!listing.ok()) {
    set->failures_.push_back({set->dir_, listing.error().message});
    return set;
  }
  if (!*listing) return set;
  const int root_fd = (*listing)->fd();
  for (const std::string& name : (*listing)->names) {
    const std::filesystem::path package = root / name;
    auto plugin = load_package(root_fd, name, package);
    if (!plugin.ok())
      set->failures_.push_back({package.string(), plugin.error().message});
    else if (*plugin)
      set->plugins_.push_back(std::move(**plugin));
  }
  if (const std::size_t skipped = (*listing)->skipped; skipped > 0)
    set->failures_.push_back({(root / (*listing)->first_skipped).string(),
                              "skipped with the " + std::to_string(skipped - 1) +
                                  " entries after it by name: at most " +
                                  std::to_string(kPluginDirMaxPackages) + " are read"});
  return set;
}

Result<Plugin> load_plugin(const std::filesystem::path& root, std::string_view name) {
  if (!is_plugin_name(name)) return Error{ErrorCode::BadParams, "not a plugin name"};
  const std::filesystem::path dir = absolute_dir(root);
  UniqueFd root_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd) return Error::from_errno(ErrorCode::IoError, "open", errno, dir.string());
  const std::string entry(name);
  SIGNALTTY_TRY(std::optional<Plugin> plugin, load_package(root_fd.get(), entry, dir / entry));
  if (!plugin) return Error{ErrorCode::IoError, "no plugin.toml in " + (dir / entry).string()};
  return std::move(*plugin);
}

std::string hook_error_text(std::string_view message) {
  return clean_text(message, kHookErrorMaxChars);
}

PluginRegistry::PluginRegistry() : PluginRegistry({}, now_rfc3339) {}

PluginRegistry::PluginRegistry(std::filesystem::path dir, Clock clock)
    : dir_(std::move(dir)), clock_(std::move(clock)), set_(std::make_shared<const PluginSet>()) {}

PluginRegistry PluginRegistry::scan(const std::filesystem::path& dir, Clock clock) {
  PluginRegistry registry(dir, std::move(clock));
  registry.reload();
  return registry;
}

void PluginRegistry::reload() {
  set_ = PluginSet::scan(dir_);
  stats_.clear();
  for (const Plugin& plugin : set_->plugins()) stats_.emplace_back(plugin.hooks.size());
}

std::vector<HookRef> PluginRegistry::matching_hooks(std::string_view event) const {
  std::vector<HookRef> matches;
  if (event == protocol::ev::PtyData::name) return matches;
  const std::span<const Plugin> plugins = set_->plugins();
  for (std::size_t p = 0; p < plugins.size(); ++p)
    for (std::size_t h = 0; h < plugins[p].hooks.size(); ++h)
      if (hook_matches(plugins[p].hooks[h], event)) matches.push_back({set_, p, h});
  return matches;
}

bool PluginRegistry::counts(const HookRef& hook) const {
  if (hook.set != set_) return false;  // scanned before the latest reload
  return check_invariant(
      hook.plugin_index < stats_.size() && hook.hook_index < stats_[hook.plugin_index].size(),
      "a hook reference lies within its plugin set");
}

void PluginRegistry::record_run(const HookRef& hook, const Status& outcome) {
  if (!counts(hook)) return;
  HookStats& stats = stats_[hook.plugin_index][hook.hook_index];
  ++stats.runs;
  if (!outcome.ok()) {
    ++stats.errors;
    stats.last_error = hook_error_text(outcome.error().message);
  }
  stats.last_run = clock_();
}

std::optional<HookStats> PluginRegistry::stats(const HookRef& hook) const {
  if (!counts(hook)) return std::nullopt;
  return stats_[hook.plugin_index][hook.hook_index];
}

protocol::PluginListResult PluginRegistry::describe() const {
  const std::span<const protocol::PluginFailure> failures = set_->failures();
  protocol::PluginListResult result{
      set_->dir(), {}, std::vector<protocol::PluginFailure>(failures.begin(), failures.end())};
  const std::span<const Plugin> plugins = set_->plugins();
  for (std::size_t p = 0; p < plugins.size(); ++p)
    result.plugins.push_back(plugin_info(plugins[p], stats_[p]));
  return result;
}

}  // namespace signaltty::broker::plugins
