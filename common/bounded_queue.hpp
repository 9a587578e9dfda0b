// common/bounded_queue.hpp: a FIFO with a byte cap and an explicit overflow
// policy, for every writer that queues towards a peer that may stop reading
// (a client connection's out-queue, a held viewer's output, the broker's link
// to a ptyhost and the ptyhost's connection to the broker).
// Runs in: any process; one thread per queue (no locking).
// Never: holds more than its cap, or decides what becomes of the peer:
// push() reports the overflow and the owner acts on it (drops the client,
// refuses the request, ...).
//
// Usage (a socket writer, one gathered write in flight at a time):
//   BoundedQueue<std::string> out(cap_bytes, OverflowPolicy::kDropReader);
//   if (!out.push(std::move(line))) return drop_client();
//   std::vector<std::string> batch = out.take_batch(kMaxLinesPerWrite);
//   ... async_write(batch) ...; then out.finish_batch();
#pragma once

#include <cstddef>
#include <deque>
#include <utility>
#include <vector>

namespace signaltty {

// What push() does with an item that would take the queue past its cap.
enum class OverflowPolicy {
  // The item is refused; what is queued stays, and a later, smaller push
  // may fit (a request queue answering RATE_LIMITED).
  kRefuseItem,
  // The item is refused, everything queued is discarded, and every later
  // push is refused too: the reader is being dropped (a client that
  // stopped reading must reconnect and resynchronise).
  kDropReader,
};

// The bytes an item holds: its size() unless the queue is told otherwise.
struct ItemSize {
  template <typename T>
  std::size_t operator()(const T& item) const {
    return item.size();
  }
};

template <typename T, typename SizeOf = ItemSize>
class BoundedQueue {
 public:
  BoundedQueue(std::size_t cap_bytes, OverflowPolicy policy)
      : cap_bytes_(cap_bytes), policy_(policy) {}

  // False when the item was refused (see OverflowPolicy).
  [[nodiscard]] bool push(T item) {
    if (overflowed_) return false;
    const std::size_t size = SizeOf{}(item);
    if (bytes() + size > cap_bytes_) {
      if (policy_ == OverflowPolicy::kDropReader) {
        overflowed_ = true;
        dropped_bytes_ = bytes();
        clear();
      }
      return false;
    }
    queued_bytes_ += size;
    items_.push_back(std::move(item));
    return true;
  }

  // Moves up to `max_items` from the front out for one write; their bytes
  // stay counted against the cap until finish_batch().
  std::vector<T> take_batch(std::size_t max_items) {
    std::vector<T> batch;
    while (!items_.empty() && batch.size() < max_items) {
      const std::size_t size = SizeOf{}(items_.front());
      queued_bytes_ -= size;
      in_flight_bytes_ += size;
      batch.push_back(std::move(items_.front()));
      items_.pop_front();
    }
    return batch;
  }
  // The batch taken last is written.
  void finish_batch() { in_flight_bytes_ = 0; }

  // Every queued item, oldest first; the queue is left empty.
  std::deque<T> drain() {
    queued_bytes_ = 0;
    return std::exchange(items_, {});
  }
  void clear() {
    items_.clear();
    queued_bytes_ = 0;
    in_flight_bytes_ = 0;
  }

  bool empty() const { return items_.empty(); }
  // Queued plus taken but not yet written.
  std::size_t bytes() const { return queued_bytes_ + in_flight_bytes_; }
  // kDropReader only: the cap was hit; nothing more is accepted.
  bool overflowed() const { return overflowed_; }
  // kDropReader only: the bytes (queued and in flight) the queue held when
  // it dropped the reader; 0 until then.
  std::size_t dropped_bytes() const { return dropped_bytes_; }

 private:
  std::size_t cap_bytes_;
  OverflowPolicy policy_;
  std::deque<T> items_;
  std::size_t queued_bytes_ = 0;
  std::size_t in_flight_bytes_ = 0;
  bool overflowed_ = false;
  std::size_t dropped_bytes_ = 0;
};

}  // namespace signaltty
