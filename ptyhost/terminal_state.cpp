// ptyhost/terminal_state.cpp: Terminal's live-upgrade blob (serialize /
// deserialize).
// Runs in: ptyhost, in the old process before re-exec and in its successor.
// Never: trusts a blob's sizes; every count is checked before it is used.
//
// Layout (version 2, host byte order): magic, version, size, the snapshot
// replay that rebuilds libvterm's own state, then our state verbatim: both
// grids, screen and cursor state, pen, last-glyph trace, titles, text modes,
// VtGuard's held tail, and the ring (head, floor, history with seqs).
// libvterm cannot be serialized, so restore replays the snapshot into a
// fresh libvterm and then overwrites our grids and ring with the saved ones.
#include <cstring>
#include <deque>

#include "common/limits.hpp"
#include "ptyhost/compact_row.hpp"
#include "ptyhost/terminal.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr std::string_view kMagic = "signaltty-vt\n";
// 2: history lines in compact cell form (compact_row.hpp) instead of text.
// 3: the alternate grid only while it is shown, after the flag that says so.
constexpr std::uint32_t kVersion = 3;
constexpr std::size_t kMaxReplayBytes = 64u << 20;
constexpr std::size_t kMaxTitleBytes = limits::kVtStringMaxBytes;
constexpr std::size_t kMaxLineBytes = 1u << 20;

void put_cursor(ByteWriter& out, const CursorPos& pos) {
  out.put<std::int32_t>(pos.row);
  out.put<std::int32_t>(pos.col);
}

bool get_cursor(ByteReader& in, CursorPos& pos, int rows, int cols) {
  std::int32_t row = 0;
  std::int32_t col = 0;
  in.get(row);
  in.get(col);
  if (row < 0 || row >= rows || col < 0 || col > cols) return in.fail();
  pos = CursorPos{row, col};
  return in.ok();
}

void put_saved(ByteWriter& out, const std::optional<SavedCursor>& saved) {
  out.put_bool(saved.has_value());
  const SavedCursor slot = saved.value_or(SavedCursor{});
  out.put<std::int32_t>(slot.pos.row);
  out.put<std::int32_t>(slot.pos.col);
  out.put(slot.pen);
  out.put_bool(slot.visible);
  out.put<std::int32_t>(slot.style);
}

// libvterm keeps the slot's position through resizes, so it is only bounded.
bool get_saved(ByteReader& in, std::optional<SavedCursor>& saved) {
  constexpr std::int32_t kMaxCoordinate = 1 << 16;
  bool present = false;
  std::int32_t row = 0;
  std::int32_t col = 0;
  std::int32_t style = 0;
  SavedCursor slot;
  in.get_bool(present);
  in.get(row);
  in.get(col);
  in.get(slot.pen);
  in.get_bool(slot.visible);
  in.get(style);
  if (row < 0 || col < 0 || row > kMaxCoordinate || col > kMaxCoordinate || style < 0 || style > 6)
    return in.fail();
  slot.pos = CursorPos{row, col};
  slot.style = style;
  saved.reset();
  if (present) saved = slot;
  return in.ok();
}

void put_grid(ByteWriter& out, const Grid& grid) {
  for (int r = 0; r < grid.rows(); ++r) {
    const Row& row = grid.row(r);
    out.put(row.seq);
    out.put(row.content_hash);
    out.put_bool(row.dirty);
    out.put_bytes(std::string_view(reinterpret_cast<const char*>(row.cells.data()),
                                   row.cells.size() * sizeof(Cell)));
    out.put<std::uint32_t>(static_cast<std::uint32_t>(row.marks.size()));
    for (const MarkEntry& entry : row.marks) {
      out.put<std::int32_t>(entry.col);
      out.put(entry.marks);
    }
  }
}

bool get_row(ByteReader& in, Row& row, int cols) {
  std::string cells;
  in.get(row.seq);
  in.get(row.content_hash);
  in.get_bool(row.dirty);
  in.get_bytes(cells, static_cast<std::size_t>(cols) * sizeof(Cell));
  if (cells.size() != static_cast<std::size_t>(cols) * sizeof(Cell)) return in.fail();
  std::memcpy(row.cells.data(), cells.data(), cells.size());
  std::uint32_t marks = 0;
  in.get(marks);
  if (marks > static_cast<std::uint32_t>(cols)) return in.fail();
  row.marks.clear();
  for (std::uint32_t i = 0; i < marks && in.ok(); ++i) {
    MarkEntry entry;
    std::int32_t col = 0;
    in.get(col);
    in.get(entry.marks);
    if (col < 0 || col >= cols) return in.fail();
    entry.col = col;
    row.marks.push_back(entry);
  }
  return in.ok();
}

bool get_grid(ByteReader& in, Grid& grid) {
  for (int r = 0; r < grid.rows() && in.ok(); ++r) get_row(in, grid.row(r), grid.cols());
  return in.ok();
}

void put_ring(ByteWriter& out, const RenderedRing& ring) {
  out.put(ring.head());
  out.put(ring.dropped_floor());
  const LineArena& lines = ring.lines();
  out.put<std::uint64_t>(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out.put(lines[i].seq);
    out.put_bytes(lines[i].bytes);
  }
}

bool get_ring(ByteReader& in, RenderedRing& ring) {
  std::uint64_t head = 0;
  std::uint64_t floor = 0;
  std::uint64_t count = 0;
  in.get(head);
  in.get(floor);
  in.get(count);
  if (count > limits::kHistoryMaxLines || floor > head) return in.fail();
  std::deque<HistoryLine> history;
  Row scratch;
  for (std::uint64_t i = 0; i < count && in.ok(); ++i) {
    HistoryLine line;
    in.get(line.seq);
    in.get_bytes(line.cells, kMaxLineBytes);
    if (line.seq > head || !decode_row(line.cells, scratch)) return in.fail();
    history.push_back(std::move(line));
  }
  if (in.ok()) ring.restore(head, floor, std::move(history));
  return in.ok();
}

}  // namespace

std::string Terminal::serialize() {
  SnapshotInput replay_in = snapshot_input(modes());
  const std::string text_modes = text_modes_.restore_sequence();
  replay_in.text_modes = text_modes;
  ByteWriter out;
  out.put_bytes(kMagic);
  out.put(kVersion);
  out.put<std::int32_t>(main_.cols());
  out.put<std::int32_t>(main_.rows());
  out.put_bytes(build_snapshot(replay_in));
  put_grid(out, main_);
  out.put_bool(alt_active_);
  if (alt_active_) put_grid(out, *alt_);
  put_saved(out, saved_cursor_);
  put_cursor(out, cursor_);
  out.put_bool(cursor_visible_);
  out.put(pen_);
  put_cursor(out, last_glyph_.pos);
  out.put<std::int32_t>(last_glyph_.width);
  out.put_bool(last_glyph_.at_margin);
  out.put_bool(last_glyph_.cursor_moved);
  out.put_bytes(title_);
  out.put_bytes(icon_name_);
  text_modes_.encode(out);
  guard_.encode(out);
  put_ring(out, ring_);
  return std::move(out).take();
}

Result<std::unique_ptr<Terminal>> Terminal::deserialize(std::string_view blob) {
  ByteReader in(blob);
  std::string magic;
  std::uint32_t version = 0;
  in.get_bytes(magic, kMagic.size());
  in.get(version);
  if (!in.ok() || magic != kMagic || version != kVersion)
    return Error{ErrorCode::BadProtocol, "terminal state: unknown format or version"};
  std::int32_t cols = 0;
  std::int32_t rows = 0;
  in.get(cols);
  in.get(rows);
  if (!in.ok() || cols < limits::kMinCols || cols > signaltty::limits::kPaneColsMax || rows < 1 ||
      rows > signaltty::limits::kPaneRowsMax)
    return Error{ErrorCode::BadProtocol, "terminal state: bad size"};
  auto terminal = std::make_unique<Terminal>(TerminalSize{cols, rows});
  std::string replay;
  in.get_bytes(replay, kMaxReplayBytes);
  if (in.ok()) terminal->feed(replay);
  terminal->restore_from(in);
  if (!in.ok() || !in.at_end())
    return Error{ErrorCode::BadProtocol, "terminal state: truncated or corrupt"};
  return terminal;
}

void Terminal::restore_from(ByteReader& in) {
  const int rows = main_.rows();
  const int cols = main_.cols();
  get_grid(in, main_);
  in.get_bool(alt_active_);
  if (alt_active_) {
    if (!alt_) alt_.emplace(rows, cols, Pen{});
    get_grid(in, *alt_);
  } else {
    alt_.reset();
  }
  get_saved(in, saved_cursor_);
  get_cursor(in, cursor_, rows, cols);
  in.get_bool(cursor_visible_);
  in.get(pen_);
  vterm_pen_behind_ = true;  // libvterm's pen is the replay's: set it to this one when it matters
  get_cursor(in, last_glyph_.pos, rows, cols);
  std::int32_t width = 0;
  in.get(width);
  last_glyph_.width = width;
  in.get_bool(last_glyph_.at_margin);
  in.get_bool(last_glyph_.cursor_moved);
  in.get_bytes(title_, kMaxTitleBytes);
  in.get_bytes(icon_name_, kMaxTitleBytes);
  text_modes_.decode(in);
  guard_.decode(in);
  get_ring(in, ring_);
}

}  // namespace signaltty::ptyhost
