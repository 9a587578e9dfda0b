// cli/output_cursor.cpp: the offset rules for pty.data chunks.
// Runs in: CLI. Never: computes a chunk's start offset (end - size could
// underflow on a malformed chunk); it compares what is new with the size.
#include "cli/output_cursor.hpp"

namespace signaltty::cli {

ChunkVerdict place_chunk(std::uint64_t covered, std::uint64_t end_offset,
                         std::string_view chunk) {
  if (end_offset <= covered) return {ChunkAction::Skip, {}};
  const std::uint64_t fresh = end_offset - covered;
  if (fresh > chunk.size()) return {ChunkAction::Gap, {}};
  return {ChunkAction::Write, chunk.substr(chunk.size() - static_cast<std::size_t>(fresh))};
}

ChunkVerdict OutputCursor::accept(std::uint64_t end_offset, std::string_view chunk) {
  ChunkVerdict verdict = place_chunk(covered_, end_offset, chunk);
  if (verdict.action == ChunkAction::Write) covered_ = end_offset;
  return verdict;
}

}  // namespace signaltty::cli
