// cli/output_cursor.hpp: the attach client's place in a pane's output
// stream (docs/rules.md: "Attach / detach", "pty.data"): how many
// bytes of output the screen already shows, and what to do with each
// pty.data chunk given its end offset.
// Runs in: CLI. Never: writes anything; the session acts on the verdict.
//
//   covered = 100 (from the attach reply's output_offset)
//   chunk [90, 100)  → skip        (the snapshot already shows it)
//   chunk [95, 105)  → write 5     (trimmed to the bytes after 100)
//   chunk [100, 110) → write 10
//   chunk [104, 110) → gap         (bytes 100-104 were lost: reattach)
#pragma once

#include <cstdint>
#include <string_view>

namespace signaltty::cli {

enum class ChunkAction { Write, Skip, Gap };

struct ChunkVerdict {
  ChunkAction action = ChunkAction::Skip;
  std::string_view bytes;  // Write: the part of the chunk past `covered`
};

// `end_offset` is the cumulative offset just past the chunk's last byte.
ChunkVerdict place_chunk(std::uint64_t covered, std::uint64_t end_offset,
                         std::string_view chunk);

class OutputCursor {
 public:
  // A fresh snapshot shows everything up to `output_offset`.
  void reset(std::uint64_t output_offset) { covered_ = output_offset; }
  // The verdict for a chunk; a Write advances the cursor to its end.
  ChunkVerdict accept(std::uint64_t end_offset, std::string_view chunk);
  std::uint64_t covered() const { return covered_; }

 private:
  std::uint64_t covered_ = 0;
};

}  // namespace signaltty::cli
