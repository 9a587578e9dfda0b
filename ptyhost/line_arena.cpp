// ptyhost/line_arena.cpp: LineArena.
// Runs in: ptyhost. Never: moves a line's bytes once written (a view stays
// valid until its line is popped).
#include "ptyhost/line_arena.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/check.hpp"

namespace signaltty::ptyhost {

LineArena::Line LineArena::operator[](std::size_t index) const {
  check_invariant(index < count_, "LineArena index past the end", OnBreak::Abort);
  const Ref& r = ref(index);
  const Chunk& chunk = chunks_[static_cast<std::size_t>(r.chunk - first_chunk_)];
  return {r.seq, std::string_view(chunk.data.get() + r.offset, r.size)};
}

void LineArena::push(std::uint64_t seq, std::string_view bytes) {
  check_invariant(!full(), "LineArena push past its line cap", OnBreak::Abort);
  check_invariant(bytes.size() <= std::numeric_limits<std::uint32_t>::max(), "history line size",
                  OnBreak::Abort);
  if (chunks_.empty() || chunks_.back().size - chunks_.back().used < bytes.size()) {
    const std::size_t size = std::max(kChunkBytes, bytes.size());
    chunks_.push_back(Chunk{std::make_unique_for_overwrite<char[]>(size), size, 0});
  }
  Chunk& chunk = chunks_.back();
  if (!bytes.empty()) std::memcpy(chunk.data.get() + chunk.used, bytes.data(), bytes.size());
  if (count_ == refs_.size()) grow_refs();
  refs_[(first_ + count_) % refs_.size()] =
      Ref{seq, first_chunk_ + chunks_.size() - 1, static_cast<std::uint32_t>(chunk.used),
          static_cast<std::uint32_t>(bytes.size())};
  ++count_;
  chunk.used += bytes.size();
}

// A chunk goes once no line in it is left: lines leave oldest first, so
// that is every chunk before the new oldest line's.
void LineArena::pop_front() {
  check_invariant(count_ > 0, "LineArena pop of an empty arena", OnBreak::Abort);
  first_ = (first_ + 1) % refs_.size();
  --count_;
  const std::uint64_t keep_from = count_ > 0 ? ref(0).chunk : first_chunk_ + chunks_.size() - 1;
  while (first_chunk_ < keep_from) {
    chunks_.pop_front();
    ++first_chunk_;
  }
  if (count_ == 0 && !chunks_.empty()) chunks_.back().used = 0;
}

void LineArena::clear() {
  first_chunk_ += chunks_.size();
  chunks_.clear();
  refs_ = std::vector<Ref>();  // its storage goes too
  first_ = 0;
  count_ = 0;
}

// Doubles the table up to the cap, oldest line first again.
void LineArena::grow_refs() {
  std::vector<Ref> grown(std::min(max_lines_, std::max<std::size_t>(64, refs_.size() * 2)));
  for (std::size_t i = 0; i < count_; ++i) grown[i] = ref(i);
  refs_ = std::move(grown);
  first_ = 0;
}

std::size_t LineArena::memory_bytes() const {
  std::size_t bytes = refs_.capacity() * sizeof(Ref) + chunks_.size() * sizeof(Chunk);
  for (const Chunk& chunk : chunks_) bytes += chunk.size;
  return bytes;
}

}  // namespace signaltty::ptyhost
