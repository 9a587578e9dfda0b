// broker/snapshot_rotation.hpp: the rotating copies in <state>/snapshots/
// (docs/rules.md (Persistence), State directory): when snapshot.json is saved, a copy
// snapshots/snapshot-<YYYYMMDDTHHMMSS>.json is taken if the newest copy is
// at least kSnapshotCopyInterval older than `now` (or there is none); beyond
// kSnapshotCopiesKept the oldest copies are removed. An empty model (no workspace, no pane) is
// never copied. The directory is 0700, each copy 0600.
// Runs in: broker, wherever snapshot.json is written (io or writer thread,
// under the scheduler's write lock). Never: touches a file in snapshots/
// that is not one of its own copies; fails the snapshot save itself.
//
// Usage:
//   if (auto r = keep_rotating_copy(state_dir, doc, text, now); !r.ok()) log::warn(...);
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "broker/snapshot_doc.hpp"
#include "common/errors.hpp"

namespace signaltty::broker {

inline constexpr std::string_view kSnapshotCopiesDir = "snapshots";

// True when a copy was written.
Result<bool> keep_rotating_copy(const std::string& state_dir, const SnapshotDoc& doc,
                                std::string_view text, std::chrono::system_clock::time_point now);

// The copies present, oldest first (file names only).
Result<std::vector<std::string>> list_snapshot_copies(const std::string& copies_dir);

}  // namespace signaltty::broker
