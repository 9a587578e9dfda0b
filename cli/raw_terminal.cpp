// cli/raw_terminal.cpp: raw mode in, saved settings and sane output modes
// back out, from the destructor or from a crash signal's handler.
// Runs in: CLI. Never: calls anything but tcsetattr, write and raise from
// the crash handler (all async-signal-safe).
#include "cli/raw_terminal.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace signaltty::cli {

const std::string_view kOutputModesReset =
    "\x1b[?1049l"                       // leave the alternate screen
    "\x1b" "7\x1b[r\x1b" "8"            // full scroll region, cursor kept
    "\x1b[0m\x1b[?25h\x1b[ q"           // attributes, visible default cursor
    "\x1b[?1l\x1b>"                     // normal cursor keys and keypad
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l"  // mouse
    "\x1b[?1004l\x1b[?2004l"            // focus reporting, bracketed paste
    "\x1b[4l\x1b[?7h\x1b(B\x1b[>4m";    // insert off, autowrap on, ASCII G0, modifyOtherKeys

namespace {

// What a crash handler needs to undo raw mode: the one RawTerminal that
// holds the terminal. `armed` is set after the other fields are written.
struct CrashRestore {
  std::atomic<bool> armed{false};
  int in_fd = -1;
  int out_fd = -1;
  bool reset_output = false;
  termios saved{};
};
CrashRestore g_crash_restore;

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void on_crash(int sig) {
  if (g_crash_restore.armed.exchange(false)) {
    if (g_crash_restore.reset_output) write_all(g_crash_restore.out_fd, kOutputModesReset);
    ::tcsetattr(g_crash_restore.in_fd, TCSANOW, &g_crash_restore.saved);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Once per process: crash signals restore the terminal, then do what they
// would have done. A handler someone else installed is left alone.
void install_crash_handlers() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_crash;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (int sig : kCrashSignals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
        ::sigaction(sig, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

}  // namespace

Status RawTerminal::enter() {
  if (saved_ || !::isatty(in_fd_)) return {};
  termios original{};
  if (::tcgetattr(in_fd_, &original) < 0)
    return Error::from_errno(ErrorCode::IoError, "tcgetattr", errno);
  raw_ = original;
  ::cfmakeraw(&raw_);
  install_crash_handlers();
  g_crash_restore.in_fd = in_fd_;
  g_crash_restore.out_fd = out_fd_;
  g_crash_restore.reset_output = ::isatty(out_fd_) == 1;
  g_crash_restore.saved = original;
  g_crash_restore.armed = true;
  saved_ = original;
  if (::tcsetattr(in_fd_, TCSANOW, &raw_) < 0) {
    const int err = errno;
    g_crash_restore.armed = false;
    saved_.reset();
    return Error::from_errno(ErrorCode::IoError, "tcsetattr", err);
  }
  return {};
}

void RawTerminal::reapply() {
  if (saved_) ::tcsetattr(in_fd_, TCSANOW, &raw_);
}

void RawTerminal::restore() {
  if (!saved_) return;
  g_crash_restore.armed = false;
  if (::isatty(out_fd_) == 1) write_all(out_fd_, kOutputModesReset);
  ::tcsetattr(in_fd_, TCSADRAIN, &*saved_);
  saved_.reset();
}

}  // namespace signaltty::cli
