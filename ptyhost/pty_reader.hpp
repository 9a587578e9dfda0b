// ptyhost/pty_reader.hpp: PtyReader, the one thread beside the event loop:
// it reads the PTY master into a byte ring while the loop feeds what was
// read before to the terminal, the OSC scanner and the broker.
// Runs in: ptyhost; the reader thread does only read/poll on the master,
// the ring, and two eventfds; everything else stays on the loop's thread.
// Never: allocates, logs or takes a signal on the reader thread; reads more
// than the ring holds (a loop that stops taking bytes stops the reader, and
// then the pane's program blocks on a full PTY, as behind a slow terminal);
// drops or reorders a byte.
//
// Why a thread: a PTY master hands out at most 4 KiB per read(2), and the
// kernel refills it from a queue of about 64 KiB through a worker that the
// reader waits on. Read and processed in turn on one thread, every MB costs
// the kernel's time plus ours; with the reading on a thread of its own the
// two overlap, and a busy pane moves output at the pace of the slower one.
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
// A reader that has read nothing for this long, with every byte taken,
// gives the ring's pages back to the kernel.
inline constexpr int kReaderQuietMs = 1000;

class PtyReader {
 public:
  explicit PtyReader(boost::asio::io_context& io);
  ~PtyReader();  // stop()
  PtyReader(const PtyReader&) = delete;
  PtyReader& operator=(const PtyReader&) = delete;

  // Starts the thread on `master_fd` (non-blocking; the caller keeps it
  // open until stop() returns). The thread runs with every signal blocked.
  Status start(int master_fd);
  // Ends the thread and waits for it; bytes still in the ring stay there.
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
  // holds (at once, by a post, if that is already so). One at a time.
  void when_ready(std::function<void()> ready);

 private:
  static void* thread_main(void* self);
  void run();
  // False when stop() asked the thread to end.
  bool wait_readable();
  void wait_for_room();
  void wake_loop();
  bool has_news() const;

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

  // The loop is (about to be) waiting on `wakeup_`: whoever turns this from
  // true to false makes sure `ready` runs (the reader by writing the
  // eventfd, the loop by posting it).
  std::atomic<bool> loop_waiting_{false};
  boost::asio::posix::stream_descriptor wakeup_;  // an eventfd
  std::function<void()> ready_;

  // The reader is (about to be) waiting for room in the ring.
  std::atomic<bool> room_waiting_{false};
  std::mutex room_mutex_;
  std::condition_variable room_;  // room in the ring; also: the thread is up
  bool thread_running_ = false;   // under room_mutex_
  UniqueFd stop_fd_;  // wakes a reader in poll(2) for stop()
};

}  // namespace signaltty::ptyhost
