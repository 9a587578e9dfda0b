// ptyhost/line_arena.hpp: LineArena, a FIFO of history lines (a seq and
// the row's compact bytes, compact_row.hpp) packed end to end into shared
// chunks.
// Runs in: ptyhost, under the rendered ring (rendered_ring.hpp): a line
// goes in as it scrolls off the screen, the oldest goes out past the cap.
// Never: allocates per line. A busy pane scrolls tens of thousands of lines
// a second through a 5000-line history; one heap string per line cost a
// malloc and a free each, and pinned their scattered pages afterwards.
//
// Usage:
//   LineArena arena(5000);
//   if (arena.full()) arena.pop_front();
//   arena.push(seq, bytes);             // newest
//   arena[0].bytes                      // oldest; valid until it is popped
//   arena.pop_front();
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

namespace signaltty::ptyhost {

class LineArena {
 public:
  // Lines share chunks of this size; a longer line gets a chunk of its own.
  static constexpr std::size_t kChunkBytes = 64u << 10;

  struct Line {
    std::uint64_t seq = 0;
    std::string_view bytes;
  };

  // Holds at most `max_lines`: its line table never grows past them.
  explicit LineArena(std::size_t max_lines) : max_lines_(max_lines) {}

  std::size_t size() const { return count_; }
  bool full() const { return count_ == max_lines_; }
  bool empty() const { return count_ == 0; }
  // 0 is the oldest line.
  Line operator[](std::size_t index) const;
  Line front() const { return (*this)[0]; }

  // The arena must not be full().
  void push(std::uint64_t seq, std::string_view bytes);
  void pop_front();
  void clear();
  // Chunks and the line table, as allocated.
  std::size_t memory_bytes() const;

 private:
  struct Chunk {
    std::unique_ptr<char[]> data;
    std::size_t size = 0;
    std::size_t used = 0;
  };
  struct Ref {
    std::uint64_t seq = 0;
    std::uint64_t chunk = 0;  // number of its chunk among every chunk ever made
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
  };

  const Ref& ref(std::size_t index) const { return refs_[(first_ + index) % refs_.size()]; }
  void grow_refs();

  std::size_t max_lines_;
  std::deque<Chunk> chunks_;
  std::uint64_t first_chunk_ = 0;  // number of chunks_.front()
  // A circular table of the lines, oldest at first_.
  std::vector<Ref> refs_;
  std::size_t first_ = 0;
  std::size_t count_ = 0;
};

}  // namespace signaltty::ptyhost
