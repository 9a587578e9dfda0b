// ptyhost/pty_reader.cpp: the reader thread, the loop's own reads, and the
// loop's side of the ring.
// Runs in: ptyhost. Never: lets the reader touch anything but the master,
// the ring, its counters and the two eventfds.
//
// The wakeups between the threads follow one pattern: one side publishes
// (head_, tail_ or owner_), then looks at the other side's "waiting" flag;
// the waiting side raises its flag, then looks again before it sleeps. All
// these accesses are sequentially consistent, so at least one side sees the
// other's write and no wakeup is lost. The thread's own waits (for room, for
// the reads) are a condition variable's, whose predicate the other side
// changes before it takes the mutex to notify.
#include "ptyhost/pty_reader.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <boost/asio/post.hpp>

#include "common/check.hpp"

namespace signaltty::ptyhost {
namespace {

// A thread stack far above what read/poll need; only touched pages count.
constexpr std::size_t kReaderStackBytes = 128u << 10;

void signal_eventfd(int fd) {
  const std::uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: the wakeup is pending.
  while (::write(fd, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

}  // namespace

PtyReader::PtyReader(boost::asio::io_context& io) : io_(io), watch_(io), wakeup_(io) {}

PtyReader::~PtyReader() { stop(); }

Status PtyReader::start(int master_fd) {
  check_invariant(!started_ && !thread_running_, "PtyReader started twice", OnBreak::Abort);
  const int wakeup = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakeup < 0) return Error::from_errno(ErrorCode::Internal, "eventfd", errno, "reader wakeup");
  wakeup_.assign(wakeup);
  stop_fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!stop_fd_) return Error::from_errno(ErrorCode::Internal, "eventfd", errno, "reader stop");
  watch_fd_.reset(::fcntl(master_fd, F_DUPFD_CLOEXEC, 0));
  if (!watch_fd_) return Error::from_errno(ErrorCode::Internal, "fcntl", errno, "PTY master watch");
  master_ = master_fd;

  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  ::pthread_attr_setstacksize(&attr, kReaderStackBytes);
  // Created with every signal blocked, so SIGCHLD and the rest keep going
  // to the loop's thread.
  sigset_t all, previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  const int rc = ::pthread_create(&thread_, &attr, &PtyReader::thread_main, this);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::pthread_attr_destroy(&attr);
  if (rc != 0) return Error::from_errno(ErrorCode::Internal, "pthread_create", rc, "PTY reader");
  started_ = true;
  // The C library sets a new thread up (rseq, robust futex list) in the
  // thread itself: that is done before anyone confines the process.
  std::unique_lock lock(mutex_);
  thread_wake_.wait(lock, [&] { return thread_running_; });
  return {};
}

void PtyReader::stop() {
  if (!started_) return;
  started_ = false;
  stop_.store(true);
  {
    std::lock_guard lock(mutex_);
    thread_wake_.notify_one();
  }
  signal_eventfd(stop_fd_.get());
  check_invariant(::pthread_join(thread_, nullptr) == 0, "joining the PTY reader");
  boost::system::error_code ignored;
  wakeup_.cancel(ignored);
  if (watch_.is_open()) watch_.release();  // aborts a pending wait
  // The caller's close of the master hangs the PTY up only once no other
  // descriptor of it is left open.
  watch_fd_.reset();
  ready_ = nullptr;
}

// ---- the reader thread ---------------------------------------------------

void* PtyReader::thread_main(void* self) {
  auto* reader = static_cast<PtyReader*>(self);
  {
    std::lock_guard lock(reader->mutex_);
    reader->thread_running_ = true;
    reader->thread_wake_.notify_all();
  }
  reader->run();
  return nullptr;
}

void PtyReader::run() {
  while (wait_for_reads()) {
    for (;;) {
      if (stop_.load()) return;
      const std::uint64_t head = head_.load(std::memory_order_relaxed);  // ours while we read
      const std::uint64_t tail = tail_.load();
      if (!has_room(head, tail)) {
        wait_for_room();
        continue;
      }
      const ssize_t n = read_into_ring(head, tail);
      if (n > 0) {
        wake_loop();
        // A read short of a line-discipline buffer took all there was (or
        // all that fit before the ring's end): poll, as the loop does,
        // without a read that would only say EAGAIN.
        if (static_cast<std::size_t>(n) >= kBulkBytes) continue;
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        // EOF, or EIO once no process holds the slave: every byte before it
        // is in the ring.
        eof_.store(true);
        wake_loop();
        return;
      }
      const Waited waited = wait_readable();
      if (waited == Waited::Stopped) return;
      if (waited == Waited::HandedBack) break;
    }
  }
}

bool PtyReader::wait_for_reads() {
  std::unique_lock lock(mutex_);
  thread_wake_.wait(lock, [&] { return stop_.load() || owner_.load() == Reads::Thread; });
  return !stop_.load();
}

// After kHandBackMs of nothing, with the ring empty, the ring's pages go
// back and the reads go back to the loop: no byte is in the ring and the
// loop holds no view into it (it consumes what it peeked before it peeks
// again). owner_ turns last, after the thread's last touch of the ring.
PtyReader::Waited PtyReader::wait_readable() {
  pollfd fds[2] = {{master_, POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
  for (;;) {
    const int rc = ::poll(fds, 2, kHandBackMs);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) {
      if (tail_.load() != head_.load(std::memory_order_relaxed)) continue;
      ring_.give_back();
      owner_.store(Reads::Loop);
      wake_loop();
      return Waited::HandedBack;
    }
    // poll only fails on bad arguments; a read tells EOF and errors apart.
    return (fds[1].revents & POLLIN) != 0 ? Waited::Stopped : Waited::Readable;
  }
}

void PtyReader::wait_for_room() {
  std::unique_lock lock(mutex_);
  room_waiting_.store(true);
  thread_wake_.wait(lock, [&] {
    return stop_.load() || has_room(head_.load(std::memory_order_relaxed), tail_.load());
  });
  room_waiting_.store(false);
}

void PtyReader::wake_loop() {
  if (loop_waiting_.load() && loop_waiting_.exchange(false)) signal_eventfd(wakeup_.native_handle());
}

// ---- a read into the ring, by whichever side reads now ----------------------

bool PtyReader::has_room(std::uint64_t head, std::uint64_t tail) const {
  return ring_.size() - static_cast<std::size_t>(head - tail) >= kReadRoomMin;
}

ssize_t PtyReader::read_into_ring(std::uint64_t head, std::uint64_t tail) {
  const std::size_t size = ring_.size();
  const std::size_t used = static_cast<std::size_t>(head - tail);
  const std::size_t at = static_cast<std::size_t>(head % size);
  const ssize_t n = ::read(master_, ring_.data() + at, std::min(size - used, size - at));
  if (n > 0) {
    ring_.mark_used();
    head_.store(head + static_cast<std::uint64_t>(n));
  }
  return n;
}

// ---- the loop's own reads --------------------------------------------------

// The loop waits on its own descriptor of the master, registered with the
// reactor only while the loop reads, so that a burst on the thread does not
// wake the loop for each of its reads.
void PtyReader::watch_master() {
  if (!watch_.is_open()) {
    boost::system::error_code ec;
    watch_.assign(watch_fd_.get(), ec);
    if (ec) {
      // The reactor could not take it (out of memory): the thread reads.
      hand_to_thread();
      return when_ready(std::exchange(ready_, nullptr));
    }
  }
  watch_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                    [this](const boost::system::error_code& ec) {
                      if (ec) return;
                      read_on_loop();
                      if (auto ready = std::exchange(ready_, nullptr)) ready();
                    });
}

// Reads what is there, up to kBulkBytes: reaching it hands the reads to the
// thread. A read short of a line-discipline buffer took everything there
// was, and the next wait's EPOLL_CTL_MOD reports what came since, so it
// ends the reading without a read that would only say EAGAIN. An empty ring
// starts again at its first page, so that drops of output keep touching
// the same few pages.
void PtyReader::read_on_loop() {
  const std::size_t size = ring_.size();
  std::uint64_t tail = tail_.load(std::memory_order_relaxed);
  std::uint64_t head = head_.load(std::memory_order_relaxed);  // ours while we read
  if (head == tail && head % size != 0) {
    head = tail = (head / size + 1) * size;
    tail_.store(tail);
    head_.store(head);
  }
  std::size_t got = 0;
  while (got < kBulkBytes && has_room(head, tail)) {
    const ssize_t n = read_into_ring(head, tail);
    if (n > 0) {
      head += static_cast<std::uint64_t>(n);
      got += static_cast<std::size_t>(n);
      if (static_cast<std::size_t>(n) < kBulkBytes) return;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      eof_.store(true);
      return;
    }
  }
  if (got >= kBulkBytes) hand_to_thread();
}

void PtyReader::hand_to_thread() {
  if (watch_.is_open()) watch_.release();
  ++hand_offs_;
  owner_.store(Reads::Thread);
  std::lock_guard lock(mutex_);
  thread_wake_.notify_one();
}

void PtyReader::give_back_if_idle() {
  if ((started_ && owner_.load() != Reads::Loop) || head_.load() != tail_.load()) return;
  ring_.give_back();
}

// ---- the loop's side of the ring -------------------------------------------

std::string_view PtyReader::peek(std::size_t max) const {
  const std::uint64_t tail = tail_.load(std::memory_order_relaxed);  // ours alone
  const std::size_t size = ring_.size();
  const std::size_t at = static_cast<std::size_t>(tail % size);
  const auto waiting = static_cast<std::size_t>(head_.load(std::memory_order_acquire) - tail);
  return {ring_.data() + at, std::min({waiting, size - at, max})};
}

void PtyReader::consume(std::size_t n) {
  tail_.store(tail_.load(std::memory_order_relaxed) + n);
  if (room_waiting_.load()) {
    std::lock_guard lock(mutex_);
    thread_wake_.notify_one();
  }
}

bool PtyReader::has_bytes_or_eof() const {
  return head_.load() != tail_.load(std::memory_order_relaxed) || eof_.load();
}

bool PtyReader::has_news() const { return has_bytes_or_eof() || owner_.load() == Reads::Loop; }

bool PtyReader::at_eof() const {
  return eof_.load() && head_.load() == tail_.load(std::memory_order_relaxed);
}

void PtyReader::post_ready() {
  boost::asio::post(io_, [this] {
    if (auto ready = std::exchange(ready_, nullptr)) ready();
  });
}

void PtyReader::when_ready(std::function<void()> ready) {
  ready_ = std::move(ready);
  if (owner_.load() == Reads::Loop) {
    // The thread is not reading, and will not until the loop says so.
    if (has_bytes_or_eof()) return post_ready();
    return watch_master();
  }
  loop_waiting_.store(true);
  if (has_news() && loop_waiting_.exchange(false)) return post_ready();
  // Either nothing is there yet, or the thread took the flag and is writing
  // the eventfd: both end in the wait below.
  wakeup_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                     [this](const boost::system::error_code& ec) {
                       if (ec) return;
                       std::uint64_t count = 0;
                       [[maybe_unused]] const ssize_t n =
                           ::read(wakeup_.native_handle(), &count, sizeof count);
                       if (auto ready = std::exchange(ready_, nullptr)) ready();
                     });
}

}  // namespace signaltty::ptyhost
