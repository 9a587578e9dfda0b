// cli/signal_pipe.cpp: install, drain and uninstall of the self-pipe.
// Runs in: CLI. Never: lets the handler block (the pipe is non-blocking)
// or change errno for the code it interrupted.
#include "cli/signal_pipe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace signaltty::cli {
namespace {

// The installed pipe's write end, -1 when none: read by the handler.
std::atomic<int> g_signal_write_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free slot");

void on_signal(int sig) {
  const int saved_errno = errno;
  const int fd = g_signal_write_fd.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const auto byte = static_cast<unsigned char>(sig);
    (void)!::write(fd, &byte, 1);  // a full pipe already holds a wake-up
  }
  errno = saved_errno;
}

}  // namespace

Result<std::unique_ptr<SignalPipe>> SignalPipe::install(std::initializer_list<int> signals) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC | O_NONBLOCK) < 0)
    return Error::from_errno(ErrorCode::Internal, "pipe2", errno);
  auto pipe = std::make_unique<SignalPipe>(Token{});
  pipe->read_end_.reset(ends[0]);
  pipe->write_end_.reset(ends[1]);
  int expected = -1;
  if (!g_signal_write_fd.compare_exchange_strong(expected, ends[1]))
    return Error{ErrorCode::Internal, "a signal pipe is already installed"};
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig : signals) {
    Saved saved{sig, {}};
    if (::sigaction(sig, &action, &saved.action) < 0)
      return Error::from_errno(ErrorCode::Internal, "sigaction", errno);
    pipe->saved_.push_back(saved);
  }
  return pipe;
}

SignalPipe::~SignalPipe() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it)
    ::sigaction(it->signal, &it->action, nullptr);
  int mine = write_end_.get();
  g_signal_write_fd.compare_exchange_strong(mine, -1);
}

std::vector<int> SignalPipe::drain() {
  std::vector<int> caught;
  unsigned char bytes[64];
  for (;;) {
    const ssize_t n = ::read(read_end_.get(), bytes, sizeof(bytes));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return caught;
    caught.insert(caught.end(), bytes, bytes + n);
  }
}

}  // namespace signaltty::cli
