// ptyhost/pty_reader.cpp: the reader thread and the loop's side of the ring.
// Runs in: ptyhost. Never: lets the reader touch anything but the master,
// the ring, its counters and the two eventfds.
//
// The two hand-offs are the same pattern: one side publishes (head_ or
// tail_), then looks at the other side's "waiting" flag; the waiting side
// raises its flag, then looks at the counter again before it sleeps. All
// four accesses are sequentially consistent, so at least one side sees the
// other's write and no wakeup is lost.
#include "ptyhost/pty_reader.hpp"

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

PtyReader::PtyReader(boost::asio::io_context& io) : io_(io), wakeup_(io) {}

PtyReader::~PtyReader() { stop(); }

Status PtyReader::start(int master_fd) {
  check_invariant(!started_ && !thread_running_, "PtyReader started twice", OnBreak::Abort);
  const int wakeup = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakeup < 0) return Error::from_errno(ErrorCode::Internal, "eventfd", errno, "reader wakeup");
  wakeup_.assign(wakeup);
  stop_fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!stop_fd_) return Error::from_errno(ErrorCode::Internal, "eventfd", errno, "reader stop");
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
  std::unique_lock lock(room_mutex_);
  room_.wait(lock, [&] { return thread_running_; });
  return {};
}

void PtyReader::stop() {
  if (!started_) return;
  started_ = false;
  stop_.store(true);
  {
    std::lock_guard lock(room_mutex_);
    room_.notify_one();
  }
  signal_eventfd(stop_fd_.get());
  check_invariant(::pthread_join(thread_, nullptr) == 0, "joining the PTY reader");
  boost::system::error_code ignored;
  wakeup_.cancel(ignored);
  ready_ = nullptr;
}

// ---- the reader thread ---------------------------------------------------

void* PtyReader::thread_main(void* self) {
  auto* reader = static_cast<PtyReader*>(self);
  {
    std::lock_guard lock(reader->room_mutex_);
    reader->thread_running_ = true;
    reader->room_.notify_all();
  }
  reader->run();
  return nullptr;
}

void PtyReader::run() {
  const std::size_t size = ring_.size();
  for (;;) {
    if (stop_.load()) return;
    const std::uint64_t head = head_.load(std::memory_order_relaxed);  // ours alone
    const std::size_t used = static_cast<std::size_t>(head - tail_.load());
    if (size - used < kReadRoomMin) {
      wait_for_room();
      continue;
    }
    const std::size_t at = static_cast<std::size_t>(head % size);
    const ssize_t n = ::read(master_, ring_.data() + at, std::min(size - used, size - at));
    if (n > 0) {
      ring_.mark_used();
      head_.store(head + static_cast<std::uint64_t>(n));
      wake_loop();
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_readable()) return;
    } else {
      // EOF, or EIO once no process holds the slave: every byte before it
      // is in the ring.
      eof_.store(true);
      wake_loop();
      return;
    }
  }
}

// After kReaderQuietMs of nothing, with the ring empty, its pages go back:
// no byte is in them and the loop holds no view into them (it consumes
// what it peeked before it peeks again).
bool PtyReader::wait_readable() {
  pollfd fds[2] = {{master_, POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
  int timeout = kReaderQuietMs;
  for (;;) {
    const int rc = ::poll(fds, 2, timeout);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) {
      if (tail_.load() == head_.load(std::memory_order_relaxed)) ring_.give_back();
      timeout = -1;
      continue;
    }
    // poll only fails on bad arguments; a read tells EOF and errors apart.
    return (fds[1].revents & POLLIN) == 0;
  }
}

void PtyReader::wait_for_room() {
  std::unique_lock lock(room_mutex_);
  room_waiting_.store(true);
  room_.wait(lock, [&] {
    return stop_.load() ||
           ring_.size() - (head_.load(std::memory_order_relaxed) - tail_.load()) >= kReadRoomMin;
  });
  room_waiting_.store(false);
}

void PtyReader::wake_loop() {
  if (loop_waiting_.load() && loop_waiting_.exchange(false)) signal_eventfd(wakeup_.native_handle());
}

// ---- the loop's side -------------------------------------------------------

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
    std::lock_guard lock(room_mutex_);
    room_.notify_one();
  }
}

bool PtyReader::has_news() const {
  return head_.load() != tail_.load(std::memory_order_relaxed) || eof_.load();
}

bool PtyReader::at_eof() const {
  return eof_.load() && head_.load() == tail_.load(std::memory_order_relaxed);
}

void PtyReader::when_ready(std::function<void()> ready) {
  ready_ = std::move(ready);
  loop_waiting_.store(true);
  if (has_news() && loop_waiting_.exchange(false)) {
    boost::asio::post(io_, [this] {
      if (auto ready = std::exchange(ready_, nullptr)) ready();
    });
    return;
  }
  // Either nothing is there yet, or the reader took the flag and is
  // writing the eventfd: both end in the wait below.
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
