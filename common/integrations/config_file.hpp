// common/integrations/config_file.hpp: one guarded edit of an agent's config
// file (docs/rules.md "Agent integrations"). The transaction:
//   1. a symlinked file is resolved to its target (the link is kept);
//   2. the parent directory is created (0700);
//   3. `.<file>.signaltty.lock` beside it (0600, O_NOFOLLOW) is locked with
//      an exclusive flock, retried every 5 ms for at most 100 ms;
//   4. the file is read: a non-regular file or one over 4 MiB is refused;
//   5. the caller's edit decides: keep, write new text, or delete;
//   6. the file is read again and the edit is abandoned ("changed during
//      setup; retry") if it moved;
//   7. new text goes to `.<file>.signaltty-<pid>-<n>` (0600, or the existing
//      file's mode), is fsynced, renamed over the file, and the directory
//      is fsynced.
// Runs in: CLI and broker. Never: writes when the edit keeps the file, or
// leaves a temp file behind on failure.
//
// Usage:
//   auto done = edit_config_file(path, [&](const std::optional<std::string>& text)
//                                          -> Result<FileEdit> { ... });
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/errors.hpp"

namespace signaltty::integrations {

enum class FileChange { Keep, Write, Delete };

struct FileEdit {
  FileChange change = FileChange::Keep;
  std::string text;  // the new contents, for Write
};

// The file's text, or nullopt when it does not exist.
using FileEditor = std::function<Result<FileEdit>(const std::optional<std::string>& current)>;

struct FileEditOutcome {
  std::string path;  // the file written (a symlink's target)
  bool changed = false;
};

Result<FileEditOutcome> edit_config_file(const std::string& path, const FileEditor& editor);

// The file's text without locking (for status); nullopt when it does not
// exist. Same refusals as an edit: non-regular, over 4 MiB.
Result<std::optional<std::string>> read_config_file(const std::string& path);

// The lock file guarding `path` (its symlink target, when it is one).
std::string lock_file_path(const std::string& path);

}  // namespace signaltty::integrations
