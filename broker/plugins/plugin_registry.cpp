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

#include "broker/ptyhost_text.hpp"
#include "common/check.hpp"
#include "common/protocol/events.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker::plugins {
namespace {

// ---- the plugin dir ---------------------------------------------------------

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

// The entries of a plugin dir that may be packages: the first
// kPluginDirMaxPackages names, sorted, and how many came after them (their
// names are not kept: a dir may hold any number).
struct DirListing {
  DirHandle dir;
  std::set<std::string> names;
  std::size_t skipped = 0;
  std::string first_skipped;
};

// A directory, or a symlink or an entry of unknown type that may be one.
// Hidden entries (".", ".." among them) are never plugin names.
bool may_be_package(const dirent& entry) {
  if (entry.d_name[0] == '.') return false;
  return entry.d_type == DT_DIR || entry.d_type == DT_LNK || entry.d_type == DT_UNKNOWN;
}

void keep_name(DirListing& listing, std::string name) {
  listing.names.insert(std::move(name));
  if (listing.names.size() <= kPluginDirMaxPackages) return;
  auto last = std::prev(listing.names.end());
  if (listing.skipped == 0 || *last < listing.first_skipped) listing.first_skipped = *last;
  ++listing.skipped;
  listing.names.erase(last);
}

// nullopt for a missing dir.
Result<std::optional<DirListing>> list_dir(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd && errno == ENOENT) return std::optional<DirListing>();
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  DirListing listing;
  listing.dir.reset(::fdopendir(fd.get()));
  if (!listing.dir) return Error::from_errno(ErrorCode::IoError, "fdopendir", errno, path);
  fd.release();  // the DIR owns it now
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(listing.dir.get());
    if (entry == nullptr) {
      if (errno != 0) return Error::from_errno(ErrorCode::IoError, "readdir", errno, path);
      break;
    }
    if (may_be_package(*entry)) keep_name(listing, entry->d_name);
  }
  return std::optional<DirListing>(std::move(listing));
}

// ---- one package --------------------------------------------------------------

// `error` about plugin.toml, saying so.
Error in_manifest(Error error) {
  error.message = std::string(kPluginManifestFile) + ": " + error.message;
  return error;
}

Error in_manifest(std::string problem) {
  return in_manifest(Error{ErrorCode::IoError, std::move(problem)});
}

// The bytes of an open plugin.toml: a regular file of at most
// kPluginManifestMaxBytes.
Result<std::string> read_manifest_text(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return in_manifest(Error::from_errno(ErrorCode::IoError, "fstat", errno));
  if (!S_ISREG(st.st_mode)) return in_manifest("not a regular file");
  const std::string too_large = "larger than " + std::to_string(kPluginManifestMaxBytes) + " bytes";
  if (st.st_size > static_cast<off_t>(kPluginManifestMaxBytes)) return in_manifest(too_large);
  std::string text(kPluginManifestMaxBytes + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t n = ::read(fd, text.data() + size, text.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return in_manifest(Error::from_errno(ErrorCode::IoError, "read", errno));
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  if (size > kPluginManifestMaxBytes) return in_manifest(too_large);
  text.resize(size);
  return text;
}

// The plugin.toml of the entry `name` of the plugin dir; nullopt when the
// entry is not a directory or holds none (it is not a package).
Result<std::optional<std::string>> read_package(int root_fd, const std::string& name) {
  using NoPackage = std::optional<std::string>;
  UniqueFd dir(::openat(root_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
  if (!dir && (errno == ENOTDIR || errno == ENOENT)) return NoPackage();
  if (!dir) return Error::from_errno(ErrorCode::IoError, "open", errno);
  const std::string file(kPluginManifestFile);
  UniqueFd fd(
      ::openat(dir.get(), file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
  if (!fd && errno == ENOENT) return NoPackage();
  if (!fd && errno == ELOOP) return in_manifest("a symbolic link, not a regular file");
  if (!fd) return in_manifest(Error::from_errno(ErrorCode::IoError, "open", errno));
  SIGNALTTY_TRY(std::string text, read_manifest_text(fd.get()));
  return std::optional<std::string>(std::move(text));
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
  auto listing = list_dir(set->dir_);
  if (!listing.ok()) {
    set->failures_.push_back({set->dir_, listing.error().message});
    return set;
  }
  if (!*listing) return set;
  const int root_fd = ::dirfd((*listing)->dir.get());
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
