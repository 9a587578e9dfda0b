// ptyhost/rendered_ring.hpp: RenderedRing, a pane's history of content lines
// with their seqs, and the tail / rendered reads over history plus screen.
// Runs in: ptyhost; rows enter when they scroll off the top of the main
// screen (terminal.cpp), reads come from the broker.
// Never: splits raw bytes into lines; every line comes from the grid.
//
// docs/rules.md "Rendered ring": seqs start at 1 and grow by one per new or changed
// line; the screen's rows carry their own seqs (grid.hpp), so a repainted row
// takes a fresh seq in place and history only grows by scrolling. Seqs along
// the ring are therefore not sorted: a read returns, in screen order, every
// line whose seq is newer than the cursor.
//
// `dropped` (a cursor that may have missed lines) is kept as a floor: the
// highest seq ever evicted or cleared. Cursors below it, and cursors ahead
// of the head, read as dropped.
//
// History keeps each line's cells in compact form (compact_row.hpp), not
// text, packed into shared chunks (line_arena.hpp): a line is rendered only
// when a read asks for it, and the renderings
// of the newest lines read are cached (up to kRenderCacheBytes) until the
// line leaves history. The cache is derived state: the live-upgrade blob
// carries the compact lines only and a successor renders anew.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ptyhost/grid.hpp"
#include "ptyhost/line_arena.hpp"
#include "ptyhost/line_render.hpp"
#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {

struct TailRead {
  std::string text;
  bool truncated = false;
};

struct RenderedRead {
  std::string text;
  std::uint64_t seq = 0;       // oldest (lowest) seq returned, or the head
  std::uint64_t next_seq = 0;  // the head: pass back as the next after_seq
  bool dropped = false;
  bool truncated = false;
};

// A history line as the live-upgrade blob carries it.
struct HistoryLine {
  std::uint64_t seq = 0;
  std::string cells;  // the row as encode_row wrote it

  bool operator==(const HistoryLine&) const = default;
};

class RenderedRing {
 public:
  std::uint64_t take_seq() { return ++head_; }
  std::uint64_t head() const { return head_; }
  std::uint64_t dropped_floor() const { return floor_; }
  std::size_t size() const { return history_.size(); }
  // Oldest first; views valid until the next push, clear or restore.
  const LineArena& lines() const { return history_; }
  // A copy of every history line, oldest first.
  std::deque<HistoryLine> history() const;

  // Renderings of history lines kept for later reads, in bytes of text.
  static constexpr std::size_t kRenderCacheBytes = 256u << 10;

  // Appends one scrolled-off line (encode_row's form), evicting the oldest
  // at the cap.
  void push(std::uint64_t seq, std::string_view cells);
  // pane.clear: forgets history; every cursor up to now reads as dropped.
  void clear_history();
  // Live-upgrade restore of a ring written by history()/head()/floor().
  void restore(std::uint64_t head, std::uint64_t floor, std::deque<HistoryLine> history);

  // `screen` is the active grid's content rows, top to bottom.
  TailRead tail(std::span<const Row* const> screen, std::size_t lines, TextStyle style) const;
  RenderedRead rendered(std::span<const Row* const> screen, std::uint64_t after_seq,
                        std::size_t lines, TextStyle style) const;
  std::size_t memory_bytes() const;

 private:
  // Lines of a read gathered newest first, until limits::kReadMaxTextBytes
  // (the newest line is always taken); joined oldest first.
  class NewestFirst {
   public:
    // False (and nothing taken) when the line would pass the byte cap.
    bool take(const RenderedRing& ring, std::span<const Row* const> screen, std::size_t index,
              TextStyle style);
    std::size_t count() const { return lines_.size(); }
    std::string joined() const;

   private:
    std::vector<std::string> lines_;
    std::size_t bytes_ = 0;
  };

  std::uint64_t seq_at(std::span<const Row* const> screen, std::size_t index) const;
  void append_line(std::span<const Row* const> screen, std::size_t index, TextStyle style,
                   std::string& out) const;

  // The text of history line `index` in `style`, from the cache or
  // rendered (and cached while there is room or it is newer than the
  // oldest cached line).
  void append_history(std::size_t index, TextStyle style, std::string& out) const;
  void forget_cached_before(std::uint64_t number);

  LineArena history_{limits::kHistoryMaxLines};
  std::uint64_t head_ = 0;
  std::uint64_t floor_ = 0;
  // Number of history_[0] among every line ever pushed: cache keys survive
  // evictions and clears.
  std::uint64_t first_number_ = 0;
  // Key: line number * 2 + style.
  mutable std::map<std::uint64_t, std::string> cache_;
  mutable std::size_t cache_bytes_ = 0;
};

}  // namespace signaltty::ptyhost
