// gitworker/untracked.hpp: reading one untracked file of a checkout whose
// content an attacker controls: no symlink followed (neither the file nor
// any directory on the way), no FIFO or device opened, nothing past a cap
// read. Shared by the diff and file_diff operations.
// Runs in: gitworker (and its tests, in-process). Never: blocks on a file,
// follows a symlink, reads more than kUntrackedReadCap bytes, or fails: a
// file it cannot read safely is a kind, not an error.
//
// Usage:
//   UntrackedFile f = read_untracked(workdir_of(repo), delta->new_file.path);
//   if (f.kind == UntrackedKind::Text) { added = f.lines; use(f.content); }
//   else binary = true;   // zero counts, no content
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace signaltty::gitworker {

// A regular file larger than this is TooLarge and not read.
inline constexpr std::size_t kUntrackedReadCap = 512 * 1024;
// A NUL within this many leading bytes makes a file Binary, as git decides.
inline constexpr std::size_t kUntrackedBinaryProbe = 8000;

enum class UntrackedKind {
  Text,        // regular, at most kUntrackedReadCap bytes, no NUL in the probe
  Binary,      // regular, at most kUntrackedReadCap bytes, a NUL in the probe
  TooLarge,    // regular, more than kUntrackedReadCap bytes (not read)
  NotRegular,  // a symlink, FIFO, socket, device or directory (not opened)
  Unreadable,  // gone, permission denied, a bad path, or a directory on the
               // way that is a symlink or not a directory
};

struct UntrackedFile {
  UntrackedKind kind = UntrackedKind::Unreadable;
  std::string content;     // Text and Binary: the whole file; otherwise empty
  std::uint64_t lines = 0; // Text: lines as `git diff --numstat` counts an
                           // added file (a last line without '\n' counts)
};

// `rel` is relative to `root` (the checkout's top directory, trusted), in
// git's form: '/'-separated, no empty, "." or ".." component (such a path
// is Unreadable). Each directory on the way is opened O_NOFOLLOW, the file
// is lstat'ed first and opened O_NOFOLLOW|O_NONBLOCK only when regular,
// then checked again on the open descriptor (same inode, still regular).
UntrackedFile read_untracked(const std::string& root, std::string_view rel);

// Lines of `text` as git counts them: '\n's, plus one for a last line
// without '\n'.
std::uint64_t count_lines(std::string_view text);

}  // namespace signaltty::gitworker
