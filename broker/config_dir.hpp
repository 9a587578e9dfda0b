// broker/config_dir.hpp: reading the user's configuration directories
// (agent manifests, plugins) one careful way: a bounded, sorted listing,
// files that must be regular, are never followed when a symlink, never
// waited on when a fifo and never read past a bound, and TOML whose parse
// errors say where.
// Runs in: broker (and the launcher, for a plugin it is about to start).
// Never: follows a symlinked file, blocks on a fifo, or keeps more than
// `max_names` names of a directory however many it holds.
//
// Usage:
//   SIGNALTTY_TRY(auto listing, list_config_dir(dir, 256, keep_if_toml));
//   if (!listing) return;  // no such dir: nothing configured
//   for (const std::string& name : listing->names)
//     auto text = read_config_file(listing->fd(), name, 1u << 20);
#pragma once

#include <dirent.h>
#include <toml++/toml.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::broker {

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

// The first `max_names` kept names of a directory, sorted, and how many
// came after them by name (their names are not kept: a dir may hold any
// number).
struct ConfigDirListing {
  DirHandle dir;
  std::set<std::string> names;
  std::size_t skipped = 0;
  std::string first_skipped;  // the first name past the bound
  int fd() const { return ::dirfd(dir.get()); }
};

// The entries of `path` that `keep` accepts; nullopt for a missing dir, an
// IO_ERROR naming the path for one that cannot be listed.
Result<std::optional<ConfigDirListing>> list_config_dir(
    const std::string& path, std::size_t max_names, const std::function<bool(const dirent&)>& keep);

// The bytes of `name` under `dir_fd`: a regular file of at most `max_bytes`,
// opened O_NOFOLLOW|O_NONBLOCK. nullopt when there is no such entry.
Result<std::optional<std::string>> read_config_file(int dir_fd, const std::string& name,
                                                    std::size_t max_bytes);

// At most the first 60 bytes of `s`, whole UTF-8 characters, "…" marking
// a cut: how an error quotes a file's keys, names and patterns.
std::string excerpt(std::string_view s);

// Ours: '.' outside strings and comments on one line of TOML. toml++
// recurses once per table a dotted key or a table header opens, and a
// 1 MiB file of "a.a.a…" overflows the stack; it bounds nested arrays and
// inline tables itself (256).
inline constexpr std::size_t kTomlMaxDotsPerLine = 64;

// `text` parsed; a parse error reads "line L, column C: what" (BAD_PARAMS),
// and a line nesting keys past kTomlMaxDotsPerLine is refused unparsed.
Result<toml::table> parse_toml(std::string_view text);

}  // namespace signaltty::broker
