// ptyhost/rendered_ring.cpp: history storage and the tail / rendered reads.
// Runs in: ptyhost. Never: touches the grid beyond reading its rows.
#include "ptyhost/rendered_ring.hpp"

#include <algorithm>
#include <vector>

#include "ptyhost/compact_row.hpp"

namespace signaltty::ptyhost {

void RenderedRing::push(std::uint64_t seq, std::string_view cells) {
  if (history_.full()) {
    floor_ = std::max(floor_, history_.front().seq);
    history_.pop_front();
    forget_cached_before(++first_number_);
  }
  history_.push(seq, cells);
}

std::deque<HistoryLine> RenderedRing::history() const {
  std::deque<HistoryLine> out;
  for (std::size_t i = 0; i < history_.size(); ++i) {
    const LineArena::Line line = history_[i];
    out.push_back(HistoryLine{line.seq, std::string(line.bytes)});
  }
  return out;
}

void RenderedRing::clear_history() {
  first_number_ += history_.size();
  history_.clear();
  forget_cached_before(first_number_);
  floor_ = take_seq();
}

void RenderedRing::restore(std::uint64_t head, std::uint64_t floor,
                           std::deque<HistoryLine> history) {
  head_ = head;
  floor_ = floor;
  first_number_ += history_.size();
  history_.clear();
  for (const HistoryLine& line : history) {
    if (history_.full()) break;  // the blob's reader caps the count already
    history_.push(line.seq, line.cells);
  }
  forget_cached_before(first_number_);
}

void RenderedRing::forget_cached_before(std::uint64_t number) {
  if (cache_.empty() || cache_.begin()->first >= number * 2) return;
  const auto end = cache_.lower_bound(number * 2);
  for (auto it = cache_.begin(); it != end; ++it) cache_bytes_ -= it->second.size();
  cache_.erase(cache_.begin(), end);
}

void RenderedRing::append_history(std::size_t index, TextStyle style, std::string& out) const {
  const std::uint64_t key = (first_number_ + index) * 2 + (style == TextStyle::Ansi ? 1 : 0);
  if (const auto hit = cache_.find(key); hit != cache_.end()) {
    out += hit->second;
    return;
  }
  Row row;
  std::string text;
  // A line that does not decode was not written by encode_row (restore
  // checks every line); it reads as empty rather than as garbage.
  if (decode_row(history_[index].bytes, row)) render_row(row, style, text);
  out += text;
  while (cache_bytes_ + text.size() > kRenderCacheBytes && !cache_.empty() &&
         cache_.begin()->first < key) {
    cache_bytes_ -= cache_.begin()->second.size();
    cache_.erase(cache_.begin());
  }
  if (cache_bytes_ + text.size() > kRenderCacheBytes) return;
  cache_bytes_ += text.size();
  cache_.emplace(key, std::move(text));
}

std::uint64_t RenderedRing::seq_at(std::span<const Row* const> screen, std::size_t index) const {
  if (index < history_.size()) return history_[index].seq;
  return screen[index - history_.size()]->seq;
}

void RenderedRing::append_line(std::span<const Row* const> screen, std::size_t index,
                               TextStyle style, std::string& out) const {
  if (index >= history_.size()) {
    render_row(*screen[index - history_.size()], style, out);
  } else {
    append_history(index, style, out);
  }
}

TailRead RenderedRing::tail(std::span<const Row* const> screen, std::size_t lines,
                            TextStyle style) const {
  const std::size_t total = history_.size() + screen.size();
  const std::size_t count = std::min(lines, total);
  TailRead read;
  read.truncated = total > lines;
  NewestFirst picked;
  for (std::size_t i = total; i-- > total - count;) {
    if (!picked.take(*this, screen, i, style)) {
      read.truncated = true;
      break;
    }
  }
  read.text = picked.joined();
  return read;
}

RenderedRead RenderedRing::rendered(std::span<const Row* const> screen, std::uint64_t after_seq,
                                    std::size_t lines, TextStyle style) const {
  RenderedRead read;
  read.next_seq = head_;
  read.seq = head_;
  read.dropped = after_seq < floor_ || after_seq > head_;
  // Newest first, so `lines` (and the byte cap) keep the newest; one extra
  // find means truncated.
  NewestFirst picked;
  for (std::size_t i = history_.size() + screen.size(); i-- > 0;) {
    const std::uint64_t seq = seq_at(screen, i);
    if (seq <= after_seq) continue;
    if (picked.count() == lines || !picked.take(*this, screen, i, style)) {
      read.truncated = true;
      break;
    }
    read.seq = std::min(read.seq, seq);
  }
  read.text = picked.joined();
  return read;
}

bool RenderedRing::NewestFirst::take(const RenderedRing& ring, std::span<const Row* const> screen,
                                     std::size_t index, TextStyle style) {
  std::string line;
  ring.append_line(screen, index, style, line);
  const std::size_t with_separator = line.size() + (lines_.empty() ? 0 : 1);
  if (!lines_.empty() && bytes_ + with_separator > limits::kReadMaxTextBytes) return false;
  bytes_ += with_separator;
  lines_.push_back(std::move(line));
  return true;
}

std::string RenderedRing::NewestFirst::joined() const {
  std::string text;
  text.reserve(bytes_);
  for (std::size_t n = lines_.size(); n-- > 0;) {
    text += lines_[n];
    if (n != 0) text += '\n';
  }
  return text;
}

std::size_t RenderedRing::memory_bytes() const {
  constexpr std::size_t kInlineChars = 15;  // libstdc++ keeps short strings inline
  constexpr std::size_t kMapNodeBytes = 48 + sizeof(std::string);  // rb-tree node with key
  std::size_t bytes = sizeof(*this) + history_.memory_bytes();
  for (const auto& [key, text] : cache_)
    bytes += kMapNodeBytes + (text.capacity() > kInlineChars ? text.capacity() + 1 : 0);
  return bytes;
}

}  // namespace signaltty::ptyhost
