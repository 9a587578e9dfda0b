// ptyhost/pty_reader.hpp: PtyReader, who reads the PTY master: the event
// loop itself while output comes in drops, a thread beside it while a burst
// is on, so that the loop feeds what was read before to the terminal, the
// OSC scanner and the broker while the next bytes are read.
// Runs in: ptyhost; the reader thread does only read/poll on the master,
// the ring, and two eventfds; everything else stays on the loop's thread.
// Never: allocates, logs or takes a signal on the reader thread; reads more
// than the ring holds (a loop that stops taking bytes stops the reading,
// and then the pane's program blocks on a full PTY, as behind a slow
// terminal); drops or reorders a byte; lets both threads read at once.
//
// Why a thread: a PTY master hands out at most 4 KiB per read(2), and the
// kernel refills it from a queue of about 64 KiB through a worker that the
// reader waits on. Read and processed in turn on one thread, every MB costs
// the kernel's time plus ours; with the reading on a thread of its own the
// two overlap, and a busy pane moves output at the pace of the slower one.
// Why not always: a keystroke's echo would then wake two threads (the
// reader, then the loop) where one does. So the loop reads until a single
// wakeup brings kBulkBytes, hands the reads to the thread, and the thread
// hands them back after kHandBackMs with nothing to read and the ring empty.
// Both read into the one ring, so the bytes keep their order across the
// hand-offs.
//
// Usage (loop thread):
//   PtyReader reader(io);
//   reader.start(master_fd);                 // before the sandbox: no clone after it
//   reader.when_ready([&] {                  // once, on the loop
//     for (auto bytes = reader.peek(64 << 10); !bytes.empty(); bytes = reader.peek(64 << 10)) {
//       feed(bytes);
//       reader.consume(bytes.size());
//     }
//     if (reader.at_eof()) ...;              // every byte before EOF/EIO was taken
//   });
//   reader.stop();                           // joins; the master may close after it
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "common/errors.hpp"
#include "common/page_buffer.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::ptyhost {

// Bytes read ahead of the loop: four times the kernel's own PTY queue.
inline constexpr std::size_t kReadRingBytes = 256u << 10;
// The reader waits for this much room before its next read (a PTY read
// returns at most one page).
inline constexpr std::size_t kReadRoomMin = 4096;
// One wakeup of the loop that reads this much hands the reads to the
// thread: a whole line-discipline buffer (Linux's holds 4095 bytes), so the
// program writes faster than the loop takes its output a wakeup at a time.
inline constexpr std::size_t kBulkBytes = 4095;
// The thread hands the reads back (and the ring's pages to the kernel) once
// it has read nothing for this long with every byte taken.
inline constexpr int kHandBackMs = 20;

class PtyReader {
 public:
  explicit PtyReader(boost::asio::io_context& io);
  ~PtyReader();  // stop()
  PtyReader(const PtyReader&) = delete;
  PtyReader& operator=(const PtyReader&) = delete;

  // Starts the thread on `master_fd` (non-blocking; the caller keeps it
  // open until stop() returns), waiting for a burst: the loop reads first.
  // The thread runs with every signal blocked.
  Status start(int master_fd);
  // Ends the thread and waits for it, and closes the reader's own
  // descriptor of the master; bytes still in the ring stay there.
  void stop();
  bool running() const { return started_; }

  // ---- the loop's side ----
  // The oldest bytes not yet consumed, contiguous, at most `max`: empty when
  // the ring is.
  std::string_view peek(std::size_t max) const;
  void consume(std::size_t n);
  // The PTY reached EOF or EIO and every byte read before was consumed.
  bool at_eof() const;
  // Runs `ready` once on the loop as soon as peek() has bytes or at_eof()
  // holds (at once, by a post, if that is already so). One at a time. While
  // the loop reads, `ready` may also find nothing, after a hand-back.
  void when_ready(std::function<void()> ready);

  // The thread reads now (a burst is on); otherwise the loop does.
  bool thread_reads() const { return owner_.load() == Reads::Thread; }
  // How often the loop handed the reads to the thread.
  std::uint64_t hand_offs() const { return hand_offs_; }
  // For the loop's quiet check: while the loop reads and every byte was
  // taken, the ring's pages go back to the kernel.
  void give_back_if_idle();

 private:
  enum class Reads { Loop, Thread };
  enum class Waited { Readable, HandedBack, Stopped };

  static void* thread_main(void* self);
  // ---- the thread ----
  void run();
  // Waits until the reads are handed over; false when stop() asked the
  // thread to end.
  bool wait_for_reads();
  Waited wait_readable();
  void wait_for_room();
  void wake_loop();
  // ---- the loop ----
  void watch_master();
  void read_on_loop();
  void hand_to_thread();
  void post_ready();
  bool has_bytes_or_eof() const;
  bool has_news() const;
  // ---- either side, whichever reads now ----
  // At least kReadRoomMin free ahead of `head`.
  bool has_room(std::uint64_t head, std::uint64_t tail) const;
  // One read(2) into the ring at `head`, as much as fits before the ring's
  // end; bytes read are published in head_. Returns what read returned.
  ssize_t read_into_ring(std::uint64_t head, std::uint64_t tail);

  boost::asio::io_context& io_;
  PageBuffer ring_{kReadRingBytes};
  int master_ = -1;
  pthread_t thread_{};
  bool started_ = false;

  // head_: bytes ever read (written by the reader); tail_: bytes ever
  // consumed (written by the loop). The bytes between are ring_[x % size].
  std::atomic<std::uint64_t> head_{0};
  std::atomic<std::uint64_t> tail_{0};
  std::atomic<bool> eof_{false};
  std::atomic<bool> stop_{false};

  // Who reads the master: only the loop turns it to Thread and only the
  // thread back to Loop, each after its last touch of the ring and head_.
  std::atomic<Reads> owner_{Reads::Loop};
  std::uint64_t hand_offs_ = 0;  // the loop's
  // A second descriptor of the master for the loop's readiness wait, on the
  // loop's reactor only while the loop reads.
  UniqueFd watch_fd_;
  boost::asio::posix::stream_descriptor watch_;

  // The loop is (about to be) waiting on `wakeup_`: whoever turns this from
  // true to false makes sure `ready` runs (the reader by writing the
  // eventfd, the loop by posting it).
  std::atomic<bool> loop_waiting_{false};
  boost::asio::posix::stream_descriptor wakeup_;  // an eventfd
  std::function<void()> ready_;

  // The reader is (about to be) waiting for room in the ring.
  std::atomic<bool> room_waiting_{false};
  std::mutex mutex_;
  // The thread waits on it for room in the ring and for the reads; start()
  // for the thread to be up.
  std::condition_variable thread_wake_;
  bool thread_running_ = false;  // under mutex_
  UniqueFd stop_fd_;  // wakes a reader in poll(2) for stop()
};

}  // namespace signaltty::ptyhost
