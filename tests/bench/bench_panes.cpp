// tests/bench/bench_panes.cpp: pane figures of signaltty side by side with
// tmux from one run, printed as ratios because the machine is shared:
//   1. throughput: `cat` of 200 MB of each of two generated corpora through
//      a bare PTY, a 120x40 signaltty pane and a 120x40 tmux pane, each with
//      no client and with one client that takes every byte, every row also
//      as a ratio to the bare PTY. The colour corpus: SGR 16/256/truecolour
//      and attributes, accents, CJK, box drawing, lines of 0-200 columns and
//      a few long wrapping ones. The plain corpus: source files, build logs
//      (a few coloured diagnostics) and `seq` runs, 1-2% escape bytes.
//      One client: for signaltty an attached connection decoding every
//      pty.data; for tmux both a control-mode client (`tmux -C attach`)
//      unescaping every %output line and a real `tmux attach` client on a
//      120x40 PTY whose terminal output is read and dropped;
//   2. memory (RSS, PSS, private): a fresh idle ptyhost, one idle ptyhost
//      after 6000 lines of 120 columns (5000 kept), and the broker before
//      and with 50 idle panes (its launcher reported beside them), against
//      the tmux server holding the same (history-limit 5000); "idle" means
//      quiet for kIdleSettle, on both sides; and the wakeups (context
//      switches of every thread) of the broker, the 50 ptyhosts and the tmux
//      server over kIdleWakeWindow with those 50 panes idle;
//   3. latency: `echo hi$((N+0))` typed into a shell pane until the line
//      `hiN` comes back on an attached connection, against tmux control mode;
//   4. restart-to-ready: SIGKILL the broker over 50 live panes and time a new
//      one from exec until server.status reports all 50 live.
// How: the real signaltty-broker on temporary XDG dirs, tmux on a private
// server (-L, -f /dev/null, status off, TMUX_TMPDIR inside the temp tree). A
// throughput pane's program blocks on a FIFO, so the clock starts when the
// benchmark releases it; it prints a random end marker after the payload.
// Without a client both sides are polled every 10 ms for the marker on
// screen (signaltty: pane.read over a connection that is not attached; tmux:
// capture-pane through a control client attached to another session); with
// one, the client's own stream is scanned for it. Each configuration runs
// twice, interleaved, and the best run counts; a run whose stream stalls
// (nothing for 10 s) is reported as failed with what it had received.
// The bare PTY's own ratio to tmux is printed beside each goal against tmux:
// it is what a pane that cost nothing could reach on this machine, since the
// kernel's PTY path (the writer's n_tty_write and the flush worker) bounds
// every side.
// Usage: bench_panes [--stream-mb N] [--rounds N] [--corpus colour|plain]
//                    [memory] [latency] [throughput]
// Runs in: `ctest -L bench` / packaging/dev.sh bench.
// Never: touches the user's broker, tmux server or dirs; signals a process
// it did not start (directly or through its broker or tmux server); waits
// for a result by sleeping (every wait polls against a deadline).
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/base64.hpp"
#include "common/hex.hpp"
#include "common/unique_fd.hpp"
#include "tests/integration/harness.hpp"

namespace {

using namespace signaltty::itest;
using signaltty::UniqueFd;
using Millis = std::chrono::duration<double, std::milli>;
using Seconds = std::chrono::duration<double>;

// ---- what is measured --------------------------------------------------------

constexpr int kCols = 120;
constexpr int kRows = 40;
constexpr std::uint64_t kStreamMb = 200;  // MB = 10^6 bytes
constexpr std::uint32_t kStreamSeed = 20250601;
// Each throughput configuration runs this many times, interleaved; the best
// run is reported (the machine is shared: the best is the least disturbed).
constexpr int kThroughputRounds = 2;
// Lines printed into the scrollback pane, and the history both sides keep.
constexpr int kPrintedLines = 6000;
constexpr int kHistoryLines = 5000;
constexpr int kIdlePanes = 50;
constexpr int kLatencySamples = 1000;   // per side, in interleaved blocks
constexpr int kLatencyBlock = 50;       // samples a side takes in turn
constexpr int kLatencyWarmup = 20;      // per side, once, not recorded
constexpr int kRestartRounds = 3;

// ---- how long things may take ------------------------------------------------

constexpr std::chrono::milliseconds kMarkerPoll{10};
constexpr std::chrono::milliseconds kReadyPoll{1};
constexpr std::chrono::milliseconds kRssSamplePeriod{100};
constexpr std::chrono::seconds kRssSettle{3};
// An idle pane is one that has printed nothing for a while: a ptyhost gives
// back its read buffers and free heap once it has read nothing for a
// second, checking once a second (kQuietGiveBack in ptyhost/pane_host.hpp),
// so idle footprints are taken this long after the last spawn or output.
constexpr std::chrono::milliseconds kIdleSettle{2500};
// How long the idle panes' wakeups are counted: longer than every periodic
// check a quiet pane could still cost (the tail refresh was every 2 s).
constexpr std::chrono::seconds kIdleWakeWindow{10};
constexpr std::chrono::seconds kRunTimeout{180};
// A stream that delivers nothing for this long while the payload runs has
// stalled: the run fails (and says so) instead of waiting out kRunTimeout.
constexpr std::chrono::seconds kStallTimeout{10};
// How long a closed pane's ptyhost and program get to exit before SIGKILL.
constexpr std::chrono::seconds kCloseGrace{5};
constexpr std::chrono::seconds kRestartTimeout{20};
// Sweeps for processes a rig's broker left behind (a program may fork while
// its ptyhost is being killed, hence more than one).
constexpr int kSweepRounds = 5;
constexpr std::size_t kReaderInitialBytes = 1u << 20;
constexpr std::size_t kPtyReadBytes = 64u << 10;
constexpr std::size_t kGenerateChunkBytes = 4u << 20;

// ---- interruption ------------------------------------------------------------

// Set by SIGINT/SIGTERM; every wait below checks it so that an interrupted
// run still unwinds through the destructors that end what it started.
volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;  // no SA_RESTART: poll() returns EINTR
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

class Interrupted : public HarnessError {
 public:
  Interrupted() : HarnessError("interrupted") {}
};

void check_interrupted() {
  if (g_interrupted) throw Interrupted();
}

// A bounded pause between two polls of something that has no event. The
// quiet one is for cleanup, which must finish even when interrupted.
void pause_quietly(std::chrono::milliseconds period) {
  ::poll(nullptr, 0, static_cast<int>(period.count()));
}
void pause_for(std::chrono::milliseconds period) {
  pause_quietly(period);
  check_interrupted();
}

int poll_ms(Deadline deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// ---- /proc ---------------------------------------------------------------------

std::string proc_text(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool pid_alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const std::string stat = proc_text(pid, "stat");
  const auto close = stat.rfind(')');
  return close == std::string::npos || stat.size() < close + 3 || stat[close + 2] != 'Z';
}

// Never throws: cleanup waits with it.
bool wait_gone(pid_t pid, Deadline deadline) {
  while (pid_alive(pid)) {
    if (Clock::now() >= deadline) return false;
    pause_quietly(kMarkerPoll);
  }
  return true;
}

// A process's resident set and, where /proc lets us read its smaps, its
// proportional share (shared pages split between their users) and its
// private pages (what it alone costs).
struct Footprint {
  std::uint64_t rss_kib = 0;
  std::optional<std::uint64_t> pss_kib;
  std::optional<std::uint64_t> private_kib;
  Footprint& operator+=(const Footprint& o) {
    rss_kib += o.rss_kib;
    const auto add = [](std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
      a = a && b ? std::optional(*a + *b) : std::nullopt;
    };
    add(pss_kib, o.pss_kib);
    add(private_kib, o.private_kib);
    return *this;
  }
};

// The sum of the smaps_rollup fields named, nullopt if none is readable.
std::optional<std::uint64_t> smaps_kib(pid_t pid, std::initializer_list<std::string_view> keys) {
  std::istringstream in(proc_text(pid, "smaps_rollup"));
  std::optional<std::uint64_t> sum;
  for (std::string line; std::getline(in, line);) {
    for (std::string_view key : keys) {
      if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ':')
        sum = sum.value_or(0) + std::strtoull(line.c_str() + key.size() + 1, nullptr, 10);
    }
  }
  return sum;
}

Footprint footprint(pid_t pid) {
  return {vm_rss_kib(pid), smaps_kib(pid, {"Pss"}), smaps_kib(pid, {"Private_Clean", "Private_Dirty"})};
}

// The footprint once RSS stopped moving (two equal samples in a row), or the
// last sample when it keeps moving past the settle budget.
Footprint settled_footprint(pid_t pid) {
  const Deadline deadline = deadline_after(kRssSettle);
  std::uint64_t last = vm_rss_kib(pid);
  while (Clock::now() < deadline) {
    pause_for(kRssSamplePeriod);
    const std::uint64_t now = vm_rss_kib(pid);
    if (now == last) break;
    last = now;
  }
  return footprint(pid);
}

double mib(std::uint64_t kib) { return static_cast<double>(kib) / 1024.0; }

// ---- processes the benchmark forks itself -----------------------------------

struct ChildStdio {
  int in = -1;
  int out = -1;
  int err = -1;
};
enum class Detach { OwnGroup, SessionWithTerminal };

[[noreturn]] void exec_child(char* const* argv, char* const* envp, ChildStdio io, Detach detach) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (detach == Detach::SessionWithTerminal) {
    if (::setsid() < 0 || ::ioctl(io.in, TIOCSCTTY, 0) < 0) ::_exit(126);
  } else {
    ::setpgid(0, 0);
  }
  if (::dup2(io.in, 0) < 0 || ::dup2(io.out, 1) < 0 || ::dup2(io.err, 2) < 0) ::_exit(126);
  ::close_range(3, ~0u, 0);
  ::execve(argv[0], argv, envp);
  ::_exit(127);
}

// One child in a process group of its own (a session for a PTY child); its
// group is SIGKILLed and the child reaped on destruction unless it was
// reaped already.
class ForkedChild {
 public:
  ForkedChild(std::vector<std::string> argv, std::vector<std::string> env, ChildStdio io,
              Detach detach) {
    std::vector<char*> args, envp;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_ = ::fork();
    if (pid_ == 0) exec_child(args.data(), envp.data(), io, detach);
    const int fork_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = fork_errno;
    if (pid_ < 0) throw HarnessError(errno_text("fork"));
    if (detach == Detach::OwnGroup) ::setpgid(pid_, pid_);
  }
  ~ForkedChild() {
    if (reaped_) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;

  pid_t pid() const { return pid_; }
  // Reaps the child; false if it still runs at the deadline. Never throws.
  bool wait_exit(Deadline deadline) {
    while (!reaped_) {
      const pid_t r = ::waitpid(pid_, nullptr, WNOHANG);
      if (r == pid_ || (r < 0 && errno == ECHILD)) reaped_ = true;
      if (reaped_) break;
      if (Clock::now() >= deadline) return false;
      pause_quietly(kReadyPoll);
    }
    return true;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

UniqueFd open_null() { return UniqueFd(::open("/dev/null", O_RDWR | O_CLOEXEC)); }

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw HarnessError(program + " not found in PATH");
}

// ---- lines from a descriptor -------------------------------------------------

// Newline-separated lines read from a descriptor it does not own, without a
// copy per line: each view is valid until the next call.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd), buf_(kReaderInitialBytes, '\0') {}

  // The next line without its '\n'; nullopt at EOF or at the deadline.
  std::optional<std::string_view> next(Deadline deadline) {
    for (;;) {
      const void* nl = std::memchr(buf_.data() + scanned_, '\n', end_ - scanned_);
      if (nl) {
        const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data());
        std::string_view line(buf_.data() + begin_, at - begin_);
        begin_ = scanned_ = at + 1;
        return line;
      }
      scanned_ = end_;
      if (eof_) return std::nullopt;
      make_room();
      if (!fill(deadline)) return std::nullopt;
    }
  }
  bool eof() const { return eof_; }

 private:
  void make_room() {
    if (begin_ > 0 && (end_ == buf_.size() || begin_ > buf_.size() / 2)) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      scanned_ -= begin_;
      begin_ = 0;
    }
    if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
  }
  bool fill(Deadline deadline) {
    for (;;) {
      check_interrupted();
      pollfd pfd{fd_, POLLIN, 0};
      const int r = ::poll(&pfd, 1, poll_ms(deadline));
      if (r == 0 && Clock::now() >= deadline) return false;
      if (r == 0) continue;  // one poll() waits at most a minute
      if (r < 0) {
        if (errno != EINTR) throw HarnessError(errno_text("poll"));
        check_interrupted();
        continue;
      }
      const ssize_t n = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
      if (n > 0) {
        end_ += static_cast<std::size_t>(n);
        return true;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      eof_ = true;
      return true;
    }
  }

  int fd_;
  std::string buf_;
  std::size_t begin_ = 0, scanned_ = 0, end_ = 0;
  bool eof_ = false;
};

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HarnessError(errno_text("write"));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Finds a marker in a byte stream that arrives in chunks of any size.
class MarkerScan {
 public:
  explicit MarkerScan(std::string marker) : marker_(std::move(marker)) {}
  bool feed(std::string_view bytes) {
    if (found_) return true;
    const std::size_t keep = marker_.size() - 1;
    std::string edge = carry_;
    edge.append(bytes.substr(0, keep));
    found_ = edge.find(marker_) != std::string::npos || bytes.find(marker_) != std::string_view::npos;
    if (bytes.size() >= keep) {
      carry_.assign(bytes.substr(bytes.size() - keep));
    } else {
      carry_.append(bytes);
      if (carry_.size() > keep) carry_.erase(0, carry_.size() - keep);
    }
    return found_;
  }

 private:
  std::string marker_;
  std::string carry_;
  bool found_ = false;
};

// ---- generated terminal text -------------------------------------------------

struct Token {
  std::string_view text;
  int cols;
};
constexpr Token kWords[] = {{"build", 5},   {"error", 5},   {"warning", 7}, {"request", 7},
                            {"cache", 5},   {"pane", 4},    {"agent", 5},   {"tokens", 6},
                            {"ok", 2},      {"retry", 5},   {"done", 4},    {"src/main.cpp", 12},
                            {"=>", 2},      {"0x7f3a", 6},  {"GET", 3},     {"/api/v1/items", 13}};
constexpr Token kAccented[] = {{"héllo", 5}, {"naïve", 5}, {"café", 4},   {"Ünïcödé", 7},
                               {"ñandú", 5}, {"Ωμέγα", 5}, {"Straße", 6}, {"façade", 6}};
constexpr Token kWide[] = {{"世界", 4}, {"日本語", 6}, {"데이터", 6}, {"表示", 4},
                           {"完了", 4}, {"検索", 4},   {"中文字", 6}, {"ｱｲｳ", 3}};
constexpr Token kBoxes[] = {{"┌──┐", 4}, {"│", 1},    {"├─┤", 3},  {"└──┘", 4},
                            {"═══", 3},  {"╔╗╚╝", 4}, {"━━━━", 4}, {"▒▓█", 3}};
constexpr std::string_view kAttrs[] = {"1", "2", "3", "4", "7", "9", "22", "23", "24", "27", "0"};

// A deterministic stream (same seed, same bytes on every machine: no
// <random> distributions, whose output is implementation-defined).
class TerminalText {
 public:
  explicit TerminalText(std::uint32_t seed) : rng_(seed) {}

  // One line of 0-200 columns, now and then a long one that wraps.
  void append_line(std::string& out) {
    const int shape = pick(100);
    const int target = shape < 8 ? 0 : shape < 70 ? 1 + pick(80) : shape < 90 ? 80 + pick(41)
                     : shape < 98 ? 121 + pick(80) : 200 + pick(600);
    int cols = 0;
    while (cols < target) {
      if (pick(100) < 30) append_sgr(out);
      const Token t = token();
      out += t.text;
      out += ' ';
      cols += t.cols + 1;
    }
    if (pick(100) < 60) out += "\x1b[0m";
    out += '\n';
  }
  // One line of exactly `cols` ASCII columns with a colour.
  void append_full_line(std::string& out, int cols) {
    append_sgr(out);
    std::string text;
    while (static_cast<int>(text.size()) < cols) {
      text += kWords[pick(std::size(kWords))].text;
      text += ' ';
    }
    text.resize(static_cast<std::size_t>(cols));
    out += text;
    out += "\x1b[0m\n";
  }

 private:
  int pick(std::size_t n) { return static_cast<int>(rng_() % n); }
  Token token() {
    const int kind = pick(100);
    if (kind < 70) return kWords[pick(std::size(kWords))];
    if (kind < 80) return kAccented[pick(std::size(kAccented))];
    if (kind < 90) return kWide[pick(std::size(kWide))];
    return kBoxes[pick(std::size(kBoxes))];
  }
  std::string colour(int base) {
    switch (pick(4)) {
      case 0: return std::to_string(base + pick(8));
      case 1: return std::to_string(base + 60 + pick(8));
      case 2: return std::to_string(base + 8) + ";5;" + std::to_string(pick(256));
      default:
        return std::to_string(base + 8) + ";2;" + std::to_string(pick(256)) + ";" +
               std::to_string(pick(256)) + ";" + std::to_string(pick(256));
    }
  }
  void append_sgr(std::string& out) {
    const int kind = pick(10);
    out += "\x1b[";
    out += kind < 5 ? colour(30) : kind < 7 ? colour(40) : std::string(kAttrs[pick(std::size(kAttrs))]);
    out += 'm';
  }

  std::mt19937 rng_;
};

void write_full_lines(const std::string& path, int lines) {
  TerminalText gen(kStreamSeed + 1);
  std::string text;
  for (int i = 0; i < lines; ++i) gen.append_full_line(text, kCols);
  write_text_file(path, text);
}

// Plain output as a build prints it: source files (tab and space indented,
// comments, blank lines), compiler and build-tool lines with now and then a
// coloured diagnostic, and runs of `seq`; about 1-2% escape bytes.
constexpr std::string_view kIdents[] = {"buffer", "size", "offset", "result", "count", "value",
                                        "index", "config", "status", "reader", "stream", "items"};
constexpr std::string_view kTypes[] = {"int", "std::size_t", "auto", "const char*", "bool",
                                       "std::string", "std::uint64_t", "double"};
constexpr std::string_view kFiles[] = {"src/main.cpp", "src/net/socket.cpp", "lib/util/strings.c",
                                       "src/parser/lexer.cpp", "tests/unit/io_test.cpp",
                                       "include/core/types.hpp", "src/db/query.rs", "app/views.py"};

class PlainText {
 public:
  explicit PlainText(std::uint32_t seed) : rng_(seed) {}

  void append_block(std::string& out) {
    const int kind = pick(10);
    if (kind < 5) return append_source(out, 40 + pick(260));
    if (kind < 8) return append_build_log(out, 20 + pick(120));
    append_seq(out, 50 + pick(950));
  }

 private:
  int pick(std::size_t n) { return static_cast<int>(rng_() % n); }
  std::string_view ident() { return kIdents[pick(std::size(kIdents))]; }
  std::string_view file() { return kFiles[pick(std::size(kFiles))]; }

  void append_source(std::string& out, int lines) {
    int depth = 0;
    const bool tabs = pick(3) == 0;
    for (int i = 0; i < lines; ++i) {
      const int shape = pick(100);
      if (shape < 10) {
        out += '\n';
        continue;
      }
      const bool closing = shape >= 30 && shape < 40 && depth > 0;
      if (closing) --depth;
      for (int d = 0; d < depth; ++d) out += tabs ? "\t" : "  ";
      if (closing) {
        out += '}';
      } else if (shape < 20) {
        out += "// ";
        for (int w = 3 + pick(10); w > 0; --w) (out += ident()) += ' ';
      } else if (shape < 30 && depth < 4) {
        out += "if (";
        (out += ident()) += " < ";
        (out += ident()) += ".size()) {";
        ++depth;
      } else {
        (out += kTypes[pick(std::size(kTypes))]) += ' ';
        (out += ident()) += " = ";
        (out += ident()) += '(';
        for (int a = pick(4); a > 0; --a) (out += ident()) += a > 1 ? ", " : "";
        out += ");";
      }
      out += '\n';
    }
  }
  void append_build_log(std::string& out, int lines) {
    for (int i = 0; i < lines; ++i) {
      const int shape = pick(100);
      if (shape < 40) {
        out += "[" + std::to_string(pick(101)) + "%] Building CXX object ";
        (out += file()) += ".o\n";
      } else if (shape < 75) {
        out += "/usr/bin/c++ -DNDEBUG -O2 -g -Wall -Wextra -Iinclude -Ibuild/gen -std=c++20 -c ";
        (out += file()) += " -o build/obj/";
        (out += ident()) += ".o\n";
      } else if (shape < 85) {
        // A diagnostic as gcc colours it.
        out += "\x1b[01m\x1b[K";
        out += file();
        out += ":" + std::to_string(1 + pick(900)) + ":" + std::to_string(1 + pick(80)) +
               ":\x1b[m\x1b[K \x1b[01;35m\x1b[Kwarning: \x1b[m\x1b[Kunused variable '";
        out += ident();
        out += "' [-Wunused-variable]\n";
      } else {
        out += "make[2]: Leaving directory '/home/user/project/build/";
        (out += ident()) += "'\n";
      }
    }
  }
  void append_seq(std::string& out, int lines) {
    for (int i = 0; i < lines; ++i) (out += std::to_string(seq_++)) += '\n';
  }

  std::mt19937 rng_;
  std::uint64_t seq_ = 1;
};

enum class CorpusKind { Colour, Plain };

struct CorpusFile {
  std::uint64_t bytes = 0;
  std::uint64_t escapes = 0;  // ESC bytes and the bytes of their sequences (approximate: ESC..final)
};

// Counts bytes inside escape sequences (ESC up to a final byte 0x40-0x7e).
std::uint64_t escape_bytes(std::string_view text) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') continue;
    std::size_t j = i + 1;
    if (j < text.size() && text[j] == '[') ++j;
    while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
    n += j + 1 - i;
    i = j;
  }
  return n;
}

// Writes at least `bytes` of the corpus; returns its size and escape bytes.
CorpusFile write_corpus(const std::string& path, CorpusKind kind, std::uint64_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TerminalText colour(kStreamSeed);
  PlainText plain(kStreamSeed + 2);
  CorpusFile file;
  std::string chunk;
  while (file.bytes < bytes) {
    chunk.clear();
    while (chunk.size() < kGenerateChunkBytes) {
      if (kind == CorpusKind::Colour) colour.append_line(chunk);
      else plain.append_block(chunk);
    }
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    file.bytes += chunk.size();
    file.escapes += escape_bytes(chunk);
  }
  if (!out) throw HarnessError("cannot write " + path);
  return file;
}

// ---- the payload programs ----------------------------------------------------

// One throughput run: its start FIFO and its end marker.
struct RunTicket {
  int index = 0;
  std::string name;  // unique among every payload's runs
  std::string fifo;
  std::string marker;
};

class Payload {
 public:
  // `label` keeps the FIFOs and session names of two payloads apart.
  Payload(const TempDirs& files, std::string label, std::string file, std::uint64_t bytes)
      : files_(files), label_(std::move(label)), file_(std::move(file)), bytes_(bytes) {}
  std::uint64_t bytes() const { return bytes_; }
  const std::string& file() const { return file_; }

  RunTicket next_ticket() {
    ++runs_;
    RunTicket t{runs_, label_ + "-" + std::to_string(runs_),
                files_.scratch("go-" + label_ + "-" + std::to_string(runs_)), "BENCH-END-" + random_hex()};
    if (::mkfifo(t.fifo.c_str(), 0600) != 0) throw HarnessError(errno_text("mkfifo " + t.fifo));
    return t;
  }
  // Waits for the go line on the FIFO, cats the file, prints the marker.
  std::vector<std::string> argv(const RunTicket& t) const {
    return {"/bin/sh", "-c",
            "read go < \"$1\"; cat \"$2\"; printf '\\n%s\\n' \"$3\"; exec sleep 100000", "sh",
            t.fifo, file_, t.marker};
  }

 private:
  std::string random_hex() {
    char out[17];
    std::snprintf(out, sizeof out, "%08x%08x", rd_(), rd_());
    return out;
  }

  const TempDirs& files_;
  std::string label_;
  std::string file_;
  std::uint64_t bytes_;
  int runs_ = 0;
  std::random_device rd_;
};

// Opens the FIFO once the pane program reads it and writes the go line.
void release(const RunTicket& t, Deadline deadline) {
  for (;;) {
    UniqueFd fd(::open(t.fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd) return write_all(fd.get(), "go\n");
    if (errno != ENXIO) throw HarnessError(errno_text("open " + t.fifo));
    if (Clock::now() >= deadline) throw HarnessError("the pane program never opened its FIFO");
    pause_for(kReadyPoll);
  }
}

// Cats `file`, prints `marker` on a line of its own, then idles.
std::vector<std::string> print_then_idle_argv(const std::string& file, const std::string& marker) {
  return {"/bin/sh", "-c", "cat \"$1\"; printf '%s\\n' \"$2\"; exec sleep 100000", "sh", file,
          marker};
}

// ---- signaltty ------------------------------------------------------------------

UniqueFd connect_unix(const std::string& path) {
  auto probe = Client::try_connect(path);
  if (!probe) throw HarnessError(errno_text("connect " + path));
  // The harness client owns its descriptor; a stream connection wants its
  // own, blocking one.
  UniqueFd fd(::dup(probe->fd()));
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// A pty.data event decoded without a JSON parser (the payload is base64 and
// a number; a general parser would make the client the bottleneck).
struct PtyChunk {
  std::string bytes;
  std::uint64_t end_offset = 0;
};

std::optional<PtyChunk> parse_pty_data(std::string_view line) {
  static constexpr std::string_view kEvent = "\"event\":\"pty.data\"";
  static constexpr std::string_view kData = "\"data_b64\":\"";
  static constexpr std::string_view kOffset = "\"output_offset\":";
  if (line.find(kEvent) == std::string_view::npos) return std::nullopt;
  const auto data_at = line.find(kData);
  const auto offset_at = line.find(kOffset);
  if (data_at == std::string_view::npos || offset_at == std::string_view::npos)
    throw HarnessError("pty.data without data_b64 or output_offset");
  const auto begin = data_at + kData.size();
  const auto end = line.find('"', begin);
  auto bytes = signaltty::base64_decode(line.substr(begin, end - begin));
  if (!bytes) throw HarnessError("pty.data with invalid base64");
  PtyChunk chunk{std::move(*bytes), 0};
  const char* num = line.data() + offset_at + kOffset.size();
  if (std::from_chars(num, line.data() + line.size(), chunk.end_offset).ec != std::errc())
    throw HarnessError("pty.data with a bad output_offset");
  return chunk;
}

// A connection that attaches to one pane and reads its pty.data stream.
class PaneViewer {
 public:
  PaneViewer(const std::string& socket, const std::string& pane_id)
      : fd_(connect_unix(socket)), lines_(fd_.get()), pane_id_(pane_id) {
    send("pane.attach", {{"pane_id", pane_id}});
    for (;;) {
      auto line = next_line(deadline_after());
      if (line->find("\"type\":\"event\"") != std::string_view::npos) continue;
      Json response = Json::parse(*line);
      if (!is_ok(response)) throw HarnessError("pane.attach failed: " + response.dump());
      end_offset_ = response["result"]["output_offset"];
      return;
    }
  }

  void send(std::string_view method, const Json& params) {
    Json req{{"protocol", "signaltty/1"}, {"id", "v" + std::to_string(++requests_)},
             {"method", method}, {"params", params}};
    write_all(fd_.get(), req.dump() + "\n");
  }
  void input(std::string_view text) {
    send("pane.input", {{"pane_id", pane_id_}, {"data_b64", signaltty::base64_encode(text)}});
  }

  // The next chunk of output, nullopt at the deadline; responses in between
  // are checked and dropped. Throws on a gap in the offsets (output lost)
  // and on EOF.
  std::optional<std::string> next_chunk(Deadline deadline) {
    for (;;) {
      auto next = lines_.next(deadline);
      if (!next && lines_.eof()) throw HarnessError("the broker closed the viewer connection");
      if (!next) return std::nullopt;
      const std::string_view line = *next;
      if (auto chunk = parse_pty_data(line)) {
        if (chunk->end_offset - chunk->bytes.size() != end_offset_)
          throw HarnessError("pty.data offsets jump from " + std::to_string(end_offset_) + " to " +
                             std::to_string(chunk->end_offset - chunk->bytes.size()));
        end_offset_ = chunk->end_offset;
        return std::move(chunk->bytes);
      }
      if (line.find("\"type\":\"event\"") != std::string_view::npos) continue;
      Json response = Json::parse(line);
      if (!is_ok(response)) throw HarnessError("request failed: " + response.dump());
    }
  }

 private:
  std::optional<std::string_view> next_line(Deadline deadline) {
    auto line = lines_.next(deadline);
    if (!line)
      throw HarnessError(lines_.eof() ? "the broker closed the viewer connection"
                                      : "timed out reading the viewer connection");
    return line;
  }

  UniqueFd fd_;
  LineReader lines_;
  std::string pane_id_;
  std::uint64_t end_offset_ = 0;
  std::uint64_t requests_ = 0;
};

// Every process a broker of this rig started: ptyhosts (their command line
// names the rig's runtime dir) and pane programs (their environment names
// the rig's socket).
std::vector<pid_t> rig_processes(const TempDirs& dirs) {
  std::vector<pid_t> out;
  const std::string runtime = dirs.runtime_dir();
  const std::string socket_env = "SIGNALTTY_SOCKET=" + dirs.socket_path();
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  while (const dirent* e = proc ? ::readdir(proc.get()) : nullptr) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0 || pid == ::getpid()) continue;
    const std::string cmdline = proc_text(pid, "cmdline");
    const std::string environ = proc_text(pid, "environ");
    const bool ptyhost = cmdline.find("signaltty-ptyhost") != std::string::npos &&
                         cmdline.find(runtime) != std::string::npos;
    const bool program = (std::string(1, '\0') + environ + '\0').find('\0' + socket_env + '\0') !=
                         std::string::npos;
    if ((ptyhost || program) && pid_alive(pid)) out.push_back(pid);
  }
  return out;
}

// The broker's launcher: the child it forks before it confines itself
// (comm "sigtty-launcher"); 0 if there is none.
pid_t launcher_of(pid_t broker) {
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  while (const dirent* e = proc ? ::readdir(proc.get()) : nullptr) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0 || proc_text(pid, "comm") != "sigtty-launcher\n") continue;
    const std::string stat = proc_text(pid, "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == broker) return pid;
  }
  return 0;
}

// A broker on fresh temporary dirs, one client and one workspace. Each pane
// gets a tab of its own, so every pane is 120x40.
class SignalttyRig {
 public:
  SignalttyRig() : broker_(start_broker(dirs_)), client_(broker_->socket_path()) {
    workspace_ = client_.call("workspace.create", {{"name", "bench"}, {"cwd", dirs_.home()}})
                     ["workspace"]["id"];
  }
  ~SignalttyRig() {
    if (broker_) {
      broker_->sigterm();
      broker_->wait_exit(deadline_after());
      broker_.reset();
    }
    for (int round = 0; round < kSweepRounds; ++round) {
      const auto pids = rig_processes(dirs_);
      if (pids.empty()) break;
      for (pid_t pid : pids) ::kill(pid, SIGKILL);
      for (pid_t pid : pids) wait_gone(pid, deadline_after(std::chrono::seconds(2)));
    }
  }
  SignalttyRig(const SignalttyRig&) = delete;
  SignalttyRig& operator=(const SignalttyRig&) = delete;

  Client& client() { return client_; }
  const std::string& socket() const { return broker_->socket_path(); }
  pid_t broker_pid() const { return broker_->pid(); }

  Json spawn(const std::vector<std::string>& argv) {
    check_interrupted();
    const std::string tab = client_.call("tab.create", {{"workspace_id", workspace_}})["tab"]["id"];
    Json pane = client_.call("pane.spawn", {{"workspace_id", workspace_}, {"tab_id", tab},
                                            {"argv", argv}, {"cols", kCols}, {"rows", kRows}})["pane"];
    if (pane["pty_size"] != Json({{"cols", kCols}, {"rows", kRows}}))
      throw HarnessError("pane spawned at " + pane["pty_size"].dump());
    return pane;
  }
  // Closes the pane and waits until its ptyhost and program are gone; one
  // the broker lost track of is SIGKILLed after a grace period.
  void close(const Json& pane) {
    client_.call("pane.close", {{"pane_id", pane["id"]}, {"signal", "KILL"}});
    for (const char* key : {"ptyhost_pid", "pid"}) {
      if (!pane[key].is_number()) continue;
      const pid_t pid = pane[key].get<pid_t>();
      if (wait_gone(pid, deadline_after(kCloseGrace))) continue;
      std::printf("  (%s %d outlived pane.close; killed)\n", key, static_cast<int>(pid));
      ::kill(pid, SIGKILL);
      wait_gone(pid, deadline_after());
    }
  }
  std::string live_state(const Json& pane) {
    Json r = client_.request("pane.get", {{"pane_id", pane["id"]}});
    return is_ok(r) ? r["result"]["pane"]["live"].dump() : r["error"].dump();
  }
  bool screen_shows(const Json& pane, const std::string& text, Deadline deadline) {
    Json r = client_.request("pane.read", {{"pane_id", pane["id"]}, {"mode", "screen"}}, deadline);
    if (!is_ok(r)) throw HarnessError("pane.read failed: " + r.dump());
    return r["result"]["text"].get<std::string>().find(text) != std::string::npos;
  }
  Json wait_output(const Json& pane, const std::string& match) {
    Json params{{"pane_id", pane["id"]}, {"match", match}, {"timeout_s", kRunTimeout.count()}};
    Json r = client_.request("pane.wait_for_output", params, deadline_after(kRunTimeout + kStepTimeout));
    if (!is_ok(r)) throw HarnessError("pane.wait_for_output failed: " + r.dump());
    return r["result"];
  }

  // True once a fresh connection gets server.status with `live_panes`.
  bool reports_live(int live_panes, Deadline deadline) {
    auto c = Client::try_connect(broker_->socket_path());
    if (!c) return false;
    try {
      Json r = c->request("server.status", Json::object(), deadline);
      return is_ok(r) && r["result"]["live_panes"] == live_panes;
    } catch (const HarnessError&) {
      return false;  // accepted, then closed or stalled: not ready yet
    }
  }

  struct Restart {
    Millis ready;
    std::string adoption_log;  // the broker's "N adopted ...; X ms" figure
  };
  // SIGKILLs the broker, starts a new one on the same dirs and times it
  // from exec until server.status answers with `live_panes` live.
  Restart kill_and_restart(int live_panes) {
    broker_->sigkill();
    if (!broker_->wait_exit(deadline_after())) throw HarnessError("the broker survived SIGKILL");
    broker_.reset();
    const auto t0 = Clock::now();
    broker_ = std::make_unique<BrokerProcess>(dirs_);
    const Deadline deadline = deadline_after(kRestartTimeout);
    for (;;) {
      if (reports_live(live_panes, deadline)) break;
      if (!broker_->running() || Clock::now() >= deadline)
        throw HarnessError("the restarted broker never reported " + std::to_string(live_panes) +
                           " live panes; stderr:\n" + broker_->stderr_text());
      pause_for(kReadyPoll);
    }
    const Millis took = Clock::now() - t0;
    client_ = Client(broker_->socket_path());
    std::smatch m;
    const std::string log = broker_->stderr_text();
    static const std::regex adopted("([0-9]+) adopted [^\n]*; ([0-9]+) ms");
    return {took, std::regex_search(log, m, adopted) ? m[1].str() + " adopted in " + m[2].str() + " ms"
                                                      : std::string("no adoption line")};
  }

 private:
  TempDirs dirs_;
  std::unique_ptr<BrokerProcess> broker_;
  Client client_;
  std::string workspace_;
};

// ---- tmux -------------------------------------------------------------------------

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// A private tmux server: its own socket name, no config file, its socket
// directory inside the benchmark's temp tree. It keeps running with no
// session, keeps 5000 lines of history and sizes detached windows 120x40.
class TmuxServer {
 public:
  TmuxServer(const TempDirs& files, const std::string& tmux, const std::string& label)
      : files_(files), tmux_(tmux), name_("bench-" + std::to_string(::getpid()) + "-" + label) {
    const std::string tmpdir = files.scratch("tmux");
    ::mkdir(tmpdir.c_str(), 0700);
    const char* path = std::getenv("PATH");
    env_ = {"HOME=" + files.home(), "TMUX_TMPDIR=" + tmpdir, "LANG=C.UTF-8",
            "TERM=xterm-256color", std::string("PATH=") + (path && *path ? path : "/usr/bin:/bin")};
    run({"start-server", ";", "set", "-g", "exit-empty", "off", ";", "set", "-g", "history-limit",
         std::to_string(kHistoryLines), ";", "set", "-g", "status", "off", ";", "set", "-g",
         "default-size", std::to_string(kCols) + "x" + std::to_string(kRows)});
    try {
      pid_ = std::stoi(run({"display", "-p", "#{pid}"}));
    } catch (const std::exception&) {
      run_program(files_, argv({"kill-server"}), env_);  // no destructor runs for us
      throw;
    }
  }
  ~TmuxServer() {
    std::vector<pid_t> panes;
    try {
      std::istringstream out(run({"list-panes", "-a", "-F", "#{pane_pid}"}));
      for (std::string line; std::getline(out, line);) panes.push_back(std::stoi(line));
      run({"kill-server"});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_panes: stopping tmux: %s\n", e.what());
    }
    if (!wait_gone(pid_, deadline_after())) ::kill(pid_, SIGKILL);
    for (pid_t pid : panes) {
      if (!pid_alive(pid)) continue;
      ::kill(-pid, SIGKILL);  // a pane's program leads its own session
      ::kill(pid, SIGKILL);
    }
  }
  TmuxServer(const TmuxServer&) = delete;
  TmuxServer& operator=(const TmuxServer&) = delete;

  pid_t pid() const { return pid_; }
  std::vector<std::string> argv(std::vector<std::string> args) const {
    args.insert(args.begin(), {tmux_, "-L", name_, "-f", "/dev/null"});
    return args;
  }
  const std::vector<std::string>& env() const { return env_; }

  // Runs one tmux command line; its stdout, trimmed.
  std::string run(std::vector<std::string> args) {
    RunResult r = run_program(files_, argv(std::move(args)), env_);
    if (r.status.code != 0) throw HarnessError("tmux " + r.err);
    return trimmed(r.out);
  }
  pid_t pane_pid(const std::string& target) {
    return std::stoi(run({"display", "-p", "-t", target, "#{pane_pid}"}));
  }

 private:
  const TempDirs& files_;
  std::string tmux_;
  std::string name_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
};

// `%output` data with tmux's octal escapes (\ooo) undone.
void unescape_output(std::string_view escaped, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '\\' && i + 3 < escaped.size()) {
      out += static_cast<char>((escaped[i + 1] - '0') * 64 + (escaped[i + 2] - '0') * 8 +
                               (escaped[i + 3] - '0'));
      i += 3;
    } else {
      out += escaped[i];
    }
  }
}

// A control-mode client (`tmux -C attach -t SESSION`) on pipes.
class TmuxControl {
 public:
  TmuxControl(TmuxServer& server, const std::string& session) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw HarnessError(errno_text("pipe2"));
    UniqueFd child_in(in[0]), child_out(out[1]);
    to_tmux_.reset(in[1]);
    from_tmux_.reset(out[0]);
    UniqueFd null = open_null();
    child_ = std::make_unique<ForkedChild>(server.argv({"-C", "attach", "-t", session}),
                                           server.env(),
                                           ChildStdio{child_in.get(), child_out.get(), null.get()},
                                           Detach::OwnGroup);
    lines_ = std::make_unique<LineReader>(from_tmux_.get());
  }
  ~TmuxControl() {
    to_tmux_.reset();  // EOF on stdin ends a control client
    child_->wait_exit(deadline_after(std::chrono::seconds(2)));
  }

  void send(const std::string& command) { write_all(to_tmux_.get(), command + "\n"); }

  // Runs a command and returns its output block (notifications skipped).
  std::vector<std::string> call(const std::string& command, Deadline deadline) {
    send(command);
    std::vector<std::string> block;
    bool inside = false;
    for (;;) {
      auto line = lines_->next(deadline);
      if (!line) throw HarnessError("tmux control client: no answer to " + command);
      // Blocks answering this client's own commands carry flags 1.
      if (!inside) {
        inside = line->starts_with("%begin ") && line->ends_with(" 1");
        continue;
      }
      if (line->starts_with("%end ")) return block;
      if (line->starts_with("%error ")) throw HarnessError("tmux " + command + ": " + join(block));
      block.emplace_back(*line);
    }
  }

  // The next %output data (unescaped into `out`); false at the deadline.
  bool next_output(std::string& out, Deadline deadline) {
    static constexpr std::string_view kOutput = "%output ";
    for (;;) {
      auto line = lines_->next(deadline);
      if (!line) return false;
      if (!line->starts_with(kOutput)) continue;
      std::string_view rest = line->substr(kOutput.size());
      const auto space = rest.find(' ');
      unescape_output(space == std::string_view::npos ? std::string_view() : rest.substr(space + 1), out);
      return true;
    }
  }

 private:
  static std::string join(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }

  UniqueFd to_tmux_, from_tmux_;
  std::unique_ptr<ForkedChild> child_;
  std::unique_ptr<LineReader> lines_;
};

bool block_contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// ---- 1. throughput ------------------------------------------------------------

enum class Viewing { NoClient, OneClient };

// A run that produced no figure; the benchmark reports it and carries on.
class RunFailed : public HarnessError {
 public:
  using HarnessError::HarnessError;
};

struct Rate {
  double mb_per_s = 0;
  std::uint64_t delivered_bytes = 0;  // what the one client received
};

Rate rate(std::uint64_t bytes, Clock::time_point t0, std::uint64_t delivered = 0) {
  return {static_cast<double>(bytes) / Seconds(Clock::now() - t0).count() / 1e6, delivered};
}

// What a one-client run has received; a stall becomes RunFailed.
class Delivery {
 public:
  Delivery(const std::string& marker, Deadline deadline) : scan_(marker), deadline_(deadline) {}
  // The wait for the next chunk: the run's deadline or the stall limit.
  Deadline next_wait() const { return std::min(deadline_, deadline_after(kStallTimeout)); }
  bool feed(std::string_view chunk) {
    bytes_ += chunk.size();
    last_ = Clock::now();
    return scan_.feed(chunk);
  }
  std::uint64_t bytes() const { return bytes_; }
  [[noreturn]] void stalled(Clock::time_point t0, const std::string& detail) const {
    char b[160];
    std::snprintf(b, sizeof b, "stream stalled after %.1f MB in %.1f s (%.1f MB/s until then)",
                  static_cast<double>(bytes_) / 1e6, Seconds(last_ - t0).count(),
                  static_cast<double>(bytes_) / 1e6 / std::max(1e-9, Seconds(last_ - t0).count()));
    throw RunFailed(b + detail);
  }

 private:
  MarkerScan scan_;
  Deadline deadline_;
  std::uint64_t bytes_ = 0;
  Clock::time_point last_ = Clock::now();
};

Rate bare_pty_run(const Payload& payload) {
  int master = -1, slave = -1;
  winsize size{static_cast<unsigned short>(kRows), static_cast<unsigned short>(kCols), 0, 0};
  if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0) throw HarnessError(errno_text("openpty"));
  UniqueFd m(master), s(slave);
  const auto t0 = Clock::now();
  ForkedChild cat({"/bin/cat", payload.file()}, {}, {s.get(), s.get(), s.get()},
                  Detach::SessionWithTerminal);
  s.reset();
  std::string buf(kPtyReadBytes, '\0');
  const Deadline deadline = deadline_after(kRunTimeout);
  for (;;) {
    check_interrupted();
    pollfd pfd{m.get(), POLLIN, 0};
    const int r = ::poll(&pfd, 1, poll_ms(deadline));
    if (r == 0 && Clock::now() >= deadline) throw RunFailed("bare pty: timed out");
    if (r <= 0) {
      check_interrupted();
      continue;
    }
    const ssize_t n = ::read(m.get(), buf.data(), buf.size());
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    break;  // EIO: every slave descriptor closed
  }
  Rate out = rate(payload.bytes(), t0);
  cat.wait_exit(deadline_after());
  return out;
}

// A pane of the rig that is closed when the run ends, however it ends.
class ScopedPane {
 public:
  ScopedPane(SignalttyRig& rig, Json pane) : rig_(rig), pane_(std::move(pane)) {}
  ~ScopedPane() {
    try {
      rig_.close(pane_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_panes: closing %s: %s\n", pane_["id"].dump().c_str(), e.what());
    }
  }
  const Json& json() const { return pane_; }

 private:
  SignalttyRig& rig_;
  Json pane_;
};

Rate signaltty_run(SignalttyRig& rig, Payload& payload, Viewing viewing) {
  const RunTicket ticket = payload.next_ticket();
  const ScopedPane pane(rig, rig.spawn(payload.argv(ticket)));
  std::optional<PaneViewer> viewer;
  if (viewing == Viewing::OneClient) viewer.emplace(rig.socket(), pane.json()["id"]);
  const Deadline deadline = deadline_after(kRunTimeout);
  const auto t0 = Clock::now();
  release(ticket, deadline_after());
  if (viewer) {
    Delivery delivery(ticket.marker, deadline);
    for (;;) {
      auto chunk = viewer->next_chunk(delivery.next_wait());
      if (!chunk) delivery.stalled(t0, "; the pane's live state is now " + rig.live_state(pane.json()));
      if (delivery.feed(*chunk)) return rate(payload.bytes(), t0, delivery.bytes());
    }
  }
  while (!rig.screen_shows(pane.json(), ticket.marker, deadline)) {
    if (Clock::now() >= deadline) throw RunFailed("signaltty: the end marker never showed");
    pause_for(kMarkerPoll);
  }
  return rate(payload.bytes(), t0);
}

// A tmux session that is killed when the run ends, however it ends.
class ScopedSession {
 public:
  ScopedSession(TmuxServer& tmux, std::string name, const std::vector<std::string>& argv)
      : tmux_(tmux), name_(std::move(name)) {
    std::vector<std::string> args{"new-session", "-d", "-s", name_, "--"};
    args.insert(args.end(), argv.begin(), argv.end());
    tmux_.run(args);
    program_ = tmux_.pane_pid(name_);
  }
  ~ScopedSession() {
    try {
      tmux_.run({"kill-session", "-t", name_});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_panes: tmux kill-session %s: %s\n", name_.c_str(), e.what());
    }
    wait_gone(program_, deadline_after());
  }
  const std::string& name() const { return name_; }

 private:
  TmuxServer& tmux_;
  std::string name_;
  pid_t program_ = -1;
};

// `probe` is a control client attached to another session: it polls the
// screen without being a client of the measured pane.
Rate tmux_run(TmuxServer& tmux, TmuxControl& probe, Payload& payload, Viewing viewing) {
  const RunTicket ticket = payload.next_ticket();
  const ScopedSession session(tmux, "run-" + ticket.name, payload.argv(ticket));
  std::optional<TmuxControl> viewer;
  if (viewing == Viewing::OneClient) {
    viewer.emplace(tmux, session.name());
    viewer->call("refresh-client -C " + std::to_string(kCols) + "x" + std::to_string(kRows),
                 deadline_after());
  }
  const std::string size = tmux.run({"display", "-p", "-t", session.name(), "#{pane_width}x#{pane_height}"});
  if (size != std::to_string(kCols) + "x" + std::to_string(kRows))
    throw HarnessError("tmux pane is " + size);
  const Deadline deadline = deadline_after(kRunTimeout);
  const auto t0 = Clock::now();
  release(ticket, deadline_after());
  if (viewer) {
    Delivery delivery(ticket.marker, deadline);
    std::string data;
    for (;;) {
      if (!viewer->next_output(data, delivery.next_wait())) delivery.stalled(t0, "");
      if (delivery.feed(data)) return rate(payload.bytes(), t0, delivery.bytes());
    }
  }
  while (!block_contains(probe.call("capture-pane -p -t " + session.name(), deadline), ticket.marker)) {
    if (Clock::now() >= deadline) throw RunFailed("tmux: the end marker never showed");
    pause_for(kMarkerPoll);
  }
  return rate(payload.bytes(), t0);
}

// A real tmux client (`tmux attach -t SESSION`) on a 120x40 PTY of its own,
// whose terminal output the benchmark reads (and drops) as a terminal would.
class TmuxTerminalClient {
 public:
  TmuxTerminalClient(TmuxServer& server, const std::string& session) {
    int master = -1, slave = -1;
    winsize size{static_cast<unsigned short>(kRows), static_cast<unsigned short>(kCols), 0, 0};
    if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0) throw HarnessError(errno_text("openpty"));
    master_.reset(master);
    UniqueFd s(slave);
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    child_ = std::make_unique<ForkedChild>(server.argv({"attach", "-t", session}), server.env(),
                                           ChildStdio{s.get(), s.get(), s.get()},
                                           Detach::SessionWithTerminal);
    // Attached once the server lists it; its first screen is drained meanwhile.
    const Deadline deadline = deadline_after();
    std::string sink;
    while (server.run({"list-clients", "-t", session}).empty()) {
      if (Clock::now() >= deadline) throw HarnessError("tmux attach never attached");
      read_some(sink, kReadyPoll);
    }
  }
  ~TmuxTerminalClient() {
    master_.reset();  // the client sees its terminal hang up and exits
    child_->wait_exit(deadline_after(std::chrono::seconds(2)));
  }

  // Appends what the client wrote within `wait` to `out`; false if nothing.
  bool read_some(std::string& out, std::chrono::milliseconds wait) {
    check_interrupted();
    pollfd pfd{master_.get(), POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(wait.count())) <= 0) return false;
    char buf[kPtyReadBytes];
    const ssize_t n = ::read(master_.get(), buf, sizeof buf);
    if (n <= 0) return false;
    out.append(buf, static_cast<std::size_t>(n));
    return true;
  }

 private:
  UniqueFd master_;
  std::unique_ptr<ForkedChild> child_;
};

Rate tmux_client_run(TmuxServer& tmux, Payload& payload) {
  const RunTicket ticket = payload.next_ticket();
  const ScopedSession session(tmux, "run-" + ticket.name, payload.argv(ticket));
  TmuxTerminalClient client(tmux, session.name());
  const std::string size = tmux.run({"display", "-p", "-t", session.name(), "#{pane_width}x#{pane_height}"});
  if (size != std::to_string(kCols) + "x" + std::to_string(kRows))
    throw HarnessError("tmux pane is " + size + " under a real client");
  const Deadline deadline = deadline_after(kRunTimeout);
  const auto t0 = Clock::now();
  release(ticket, deadline_after());
  Delivery delivery(ticket.marker, deadline);
  std::string data;
  for (;;) {
    data.clear();
    const Deadline wait = delivery.next_wait();
    while (!client.read_some(data, kMarkerPoll)) {
      if (Clock::now() >= wait) delivery.stalled(t0, "");
    }
    if (delivery.feed(data)) return rate(payload.bytes(), t0, delivery.bytes());
  }
}

struct Series {
  std::vector<Rate> runs;
  std::vector<std::string> failures;

  std::optional<Rate> best() const {
    if (runs.empty()) return std::nullopt;
    return *std::max_element(runs.begin(), runs.end(),
                             [](const Rate& a, const Rate& b) { return a.mb_per_s < b.mb_per_s; });
  }
  std::string list() const {
    std::string s;
    for (const auto& r : runs) {
      char b[32];
      std::snprintf(b, sizeof b, "%s%.1f", s.empty() ? "" : " ", r.mb_per_s);
      s += b;
    }
    for (std::size_t i = 0; i < failures.size(); ++i) s += s.empty() ? "failed" : " failed";
    return s;
  }
};

// One corpus's figures; tmux_client is a real `tmux attach` on a PTY.
struct CorpusFigures {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint64_t escapes = 0;
  Series bare, sig_none, sig_one, tmux_none, tmux_one, tmux_client;
};

struct ThroughputFigures {
  std::vector<CorpusFigures> corpora;
};

struct Options {
  bool memory = true, latency = true, throughput = true;
  std::uint64_t stream_mb = kStreamMb;
  int rounds = kThroughputRounds;
  bool colour = true, plain = true;  // the corpora the throughput runs
};

// Runs one configuration once; a failed run is recorded, not fatal.
void step(const char* name, Series& series, const std::function<Rate()>& run) {
  check_interrupted();
  try {
    series.runs.push_back(run());
    std::printf("  %-24s %8.1f MB/s\n", name, series.runs.back().mb_per_s);
  } catch (const Interrupted&) {
    throw;
  } catch (const HarnessError& e) {
    check_interrupted();
    series.failures.push_back(e.what());
    std::printf("  %-24s FAILED: %s\n", name, e.what());
  }
  std::fflush(stdout);
}

ThroughputFigures measure_throughput(const TempDirs& files, const std::string& tmux_path,
                                     const Options& options) {
  ThroughputFigures f;
  struct Source {
    const char* name;
    CorpusKind kind;
    std::unique_ptr<Payload> payload;
  };
  std::vector<Source> sources;
  for (const auto& [name, kind] : {std::pair{"colour", CorpusKind::Colour}, std::pair{"plain", CorpusKind::Plain}}) {
    if (!(kind == CorpusKind::Colour ? options.colour : options.plain)) continue;
    std::printf("throughput: generating the %s corpus...\n", name);
    std::fflush(stdout);
    const std::string file = files.scratch(std::string("stream-") + name + ".txt");
    const CorpusFile written = write_corpus(file, kind, options.stream_mb * 1'000'000);
    CorpusFigures& c = f.corpora.emplace_back();
    c.name = name;
    c.bytes = written.bytes;
    c.escapes = written.escapes;
    sources.push_back({name, kind, std::make_unique<Payload>(files, name, file, written.bytes)});
  }
  SignalttyRig rig;
  TmuxServer tmux(files, tmux_path, "tp");
  tmux.run({"new-session", "-d", "-s", "probe", "--", "sleep", "100000"});
  TmuxControl probe(tmux, "probe");
  for (int round = 1; round <= options.rounds; ++round) {
    for (std::size_t i = 0; i < sources.size(); ++i) {
      Payload& payload = *sources[i].payload;
      CorpusFigures& c = f.corpora[i];
      std::printf("throughput round %d/%d, %s corpus (%.1f MB each)\n", round, options.rounds,
                  c.name.c_str(), static_cast<double>(c.bytes) / 1e6);
      step("bare pty", c.bare, [&] { return bare_pty_run(payload); });
      step("signaltty, no client", c.sig_none, [&] { return signaltty_run(rig, payload, Viewing::NoClient); });
      step("tmux, no client", c.tmux_none, [&] { return tmux_run(tmux, probe, payload, Viewing::NoClient); });
      step("signaltty, one client", c.sig_one, [&] { return signaltty_run(rig, payload, Viewing::OneClient); });
      step("tmux, one client (-C)", c.tmux_one, [&] { return tmux_run(tmux, probe, payload, Viewing::OneClient); });
      step("tmux, attached client", c.tmux_client, [&] { return tmux_client_run(tmux, payload); });
    }
  }
  return f;
}

// ---- 2. memory and 4. restart ---------------------------------------------------

struct IdleWakeups {
  std::uint64_t count = 0;
  double per_s() const { return static_cast<double>(count) / std::chrono::duration<double>(kIdleWakeWindow).count(); }
};

// The wakeups of `pids` together over kIdleWakeWindow.
IdleWakeups idle_wakeups(const std::vector<pid_t>& pids) {
  const auto total = [&pids] {
    std::uint64_t sum = 0;
    for (pid_t pid : pids) sum += wakeups(pid);
    return sum;
  };
  const std::uint64_t before = total();
  pause_for(kIdleWakeWindow);
  return {total() - before};
}

struct MemoryFigures {
  Footprint ptyhost_fresh;       // an idle pane that printed nothing
  Footprint ptyhost_history;     // after the 6000 lines, idle
  std::uint64_t history_lines = 0;
  Footprint tmux_empty;          // the server with no session
  Footprint tmux_history;        // the server holding that one pane
  std::string tmux_history_lines;
  Footprint sig_fifty;           // broker + 50 ptyhosts
  Footprint sig_broker;
  Footprint sig_broker_empty;    // the same broker before its first pane
  Footprint sig_launcher;        // the broker's launcher (not in sig_fifty)
  Footprint tmux_fifty;          // the server with 50 windows
  // Wakeups (context switches) over kIdleWakeWindow with those 50 idle.
  IdleWakeups sig_broker_wakeups, sig_ptyhost_wakeups, tmux_wakeups;
  std::vector<SignalttyRig::Restart> restarts;
};

void measure_history(const TempDirs& files, const std::string& tmux_path, MemoryFigures& f) {
  const std::string lines_file = files.scratch("lines.txt");
  write_full_lines(lines_file, kPrintedLines);
  const std::string marker = "BENCH-HISTORY-END";
  {
    SignalttyRig rig;
    Json fresh = rig.spawn({"/bin/sh", "-c", "exec sleep 100000"});
    pause_for(kIdleSettle);
    f.ptyhost_fresh = settled_footprint(fresh["ptyhost_pid"].get<pid_t>());
    Json pane = rig.spawn(print_then_idle_argv(lines_file, marker));
    rig.wait_output(pane, marker);
    f.history_lines = rig.client().call("pane.get", {{"pane_id", pane["id"]}})["pane"]["scrollback_len"];
    pause_for(kIdleSettle);
    f.ptyhost_history = settled_footprint(pane["ptyhost_pid"].get<pid_t>());
  }
  TmuxServer tmux(files, tmux_path, "hist");
  f.tmux_empty = settled_footprint(tmux.pid());
  std::vector<std::string> args{"new-session", "-d", "-s", "hist", "--"};
  for (const auto& a : print_then_idle_argv(lines_file, marker)) args.push_back(a);
  tmux.run(args);
  const Deadline deadline = deadline_after(kRunTimeout);
  while (tmux.run({"capture-pane", "-p", "-t", "hist"}).find(marker) == std::string::npos) {
    if (Clock::now() >= deadline) throw HarnessError("tmux: history marker never showed");
    pause_for(kMarkerPoll);
  }
  f.tmux_history_lines = tmux.run({"display", "-p", "-t", "hist", "#{history_size}"});
  pause_for(kIdleSettle);
  f.tmux_history = settled_footprint(tmux.pid());
}

void measure_fifty_and_restart(const TempDirs& files, const std::string& tmux_path, MemoryFigures& f) {
  {
    SignalttyRig rig;
    f.sig_broker_empty = settled_footprint(rig.broker_pid());
    std::vector<Json> panes;
    for (int i = 0; i < kIdlePanes; ++i) panes.push_back(rig.spawn({"/bin/sh", "-c", "exec sleep 100000"}));
    pause_for(kIdleSettle);
    f.sig_broker = settled_footprint(rig.broker_pid());
    f.sig_fifty = f.sig_broker;
    if (const pid_t launcher = launcher_of(rig.broker_pid())) f.sig_launcher = settled_footprint(launcher);
    for (const Json& p : panes) f.sig_fifty += settled_footprint(p["ptyhost_pid"].get<pid_t>());
    f.sig_broker_wakeups = idle_wakeups({rig.broker_pid()});
    std::vector<pid_t> ptyhosts;
    for (const Json& p : panes) ptyhosts.push_back(p["ptyhost_pid"].get<pid_t>());
    f.sig_ptyhost_wakeups = idle_wakeups(ptyhosts);
    for (int round = 1; round <= kRestartRounds; ++round) {
      f.restarts.push_back(rig.kill_and_restart(kIdlePanes));
      std::printf("  restart %d/%d: %.1f ms to ready (%s)\n", round, kRestartRounds,
                  f.restarts.back().ready.count(), f.restarts.back().adoption_log.c_str());
      std::fflush(stdout);
    }
  }
  TmuxServer tmux(files, tmux_path, "idle");
  std::vector<std::string> args{"new-session", "-d", "-s", "idle", "--", "/bin/sh", "-c", "exec sleep 100000"};
  for (int i = 1; i < kIdlePanes; ++i)
    for (const char* a : {";", "new-window", "-d", "-t", "idle", "--", "/bin/sh", "-c", "exec sleep 100000"})
      args.push_back(a);
  tmux.run(args);
  const std::string count = tmux.run({"display", "-p", "-t", "idle", "#{session_windows}"});
  if (count != std::to_string(kIdlePanes)) throw HarnessError("tmux has " + count + " windows");
  pause_for(kIdleSettle);
  f.tmux_fifty = settled_footprint(tmux.pid());
  f.tmux_wakeups = idle_wakeups({tmux.pid()});
}

// ---- 3. latency -----------------------------------------------------------------

struct Latency {
  std::vector<double> ms;
  double pct(double p) const {
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0 : s[std::min(s.size() - 1, static_cast<std::size_t>(p * static_cast<double>(s.size())))];
  }
};

// The typed line differs from the printed one: the match is the output.
std::string echo_command(int n) { return "echo hi$((" + std::to_string(n) + "+0))"; }
std::string echo_output(int n) { return "\nhi" + std::to_string(n) + "\r\n"; }

// Reads output until the echo's output line, then on until the shell's next
// prompt so that every sample starts from an idle shell; returns when the
// output line went by.
Clock::time_point await_echo(const std::function<std::string()>& next_output, int n) {
  const std::string needle = echo_output(n);
  std::string seen;
  std::optional<Clock::time_point> echoed;
  for (;;) {
    check_interrupted();
    try {
      seen += next_output();
    } catch (const HarnessError& e) {
      // What came back, escaped, so that a lost echo can be told apart
      // from a late one.
      std::string shown;
      for (char c : seen.substr(seen.size() - std::min<std::size_t>(seen.size(), 200)))
        shown += c >= 0x20 && c < 0x7f ? std::string(1, c) : "\\x" + signaltty::to_hex(std::string_view(&c, 1));
      throw HarnessError(std::string(e.what()) + " (waiting for hi" + std::to_string(n) +
                         "; the last of what came: \"" + shown + "\")");
    }
    const auto at = seen.find(needle);
    if (at == std::string::npos) continue;
    if (!echoed) echoed = Clock::now();
    if (seen.size() > at + needle.size() && (seen.ends_with("$ ") || seen.ends_with("# ")))
      return *echoed;
  }
}

void signaltty_latency(PaneViewer& viewer, int first, int count, Latency* out) {
  for (int n = first; n < first + count; ++n) {
    const auto t0 = Clock::now();
    viewer.input(echo_command(n) + "\r");
    const Deadline deadline = deadline_after();
    const auto t1 = await_echo([&] {
      auto chunk = viewer.next_chunk(deadline);
      if (!chunk) throw HarnessError("signaltty: echo never came back");
      return std::move(*chunk);
    }, n);
    if (out) out->ms.push_back(Millis(t1 - t0).count());
  }
}

void tmux_latency(TmuxControl& control, const std::string& session, int first, int count, Latency* out) {
  std::string data;
  for (int n = first; n < first + count; ++n) {
    const auto t0 = Clock::now();
    control.send("send-keys -t " + session + " '" + echo_command(n) + "' Enter");
    const Deadline deadline = deadline_after();
    const auto t1 = await_echo([&] {
      if (!control.next_output(data, deadline)) throw HarnessError("tmux -C: echo never came back");
      return data;
    }, n);
    if (out) out->ms.push_back(Millis(t1 - t0).count());
  }
}

struct LatencyFigures {
  Latency sig, tmux;
};

LatencyFigures measure_latency(const TempDirs& files, const std::string& tmux_path) {
  LatencyFigures f;
  SignalttyRig rig;
  const Json pane = rig.spawn({"/bin/sh"});
  PaneViewer viewer(rig.socket(), pane["id"]);
  TmuxServer tmux(files, tmux_path, "lat");
  tmux.run({"new-session", "-d", "-s", "lat", "--", "/bin/sh"});
  TmuxControl control(tmux, "lat");
  signaltty_latency(viewer, 0, kLatencyWarmup, nullptr);
  tmux_latency(control, "lat", 0, kLatencyWarmup, nullptr);
  // Small blocks in turn, so that a change in the machine's load between
  // them weighs on both sides alike.
  for (int n = kLatencyWarmup; n < kLatencyWarmup + kLatencySamples; n += kLatencyBlock) {
    signaltty_latency(viewer, n, kLatencyBlock, &f.sig);
    tmux_latency(control, "lat", n, kLatencyBlock, &f.tmux);
  }
  return f;
}

// ---- the report ---------------------------------------------------------------

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

// "RSS 4.00 MiB, PSS 2.20 MiB, private 1.10 MiB"
std::string footprint_text(const Footprint& f) {
  char b[128];
  int n = std::snprintf(b, sizeof b, "RSS %.2f MiB", mib(f.rss_kib));
  if (f.pss_kib) n += std::snprintf(b + n, sizeof b - n, ", PSS %.2f MiB", mib(*f.pss_kib));
  if (f.private_kib) std::snprintf(b + n, sizeof b - n, ", private %.2f MiB", mib(*f.private_kib));
  return b;
}

std::string mb_per_s(const std::optional<Rate>& r) {
  if (!r) return "failed";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB/s", r->mb_per_s);
  return b;
}

std::string ratio(const std::optional<Rate>& a, const std::optional<Rate>& b, const char* unit = "") {
  if (!a || !b) return "n/a";
  char out[32];
  std::snprintf(out, sizeof out, "%.2f%s", a->mb_per_s / b->mb_per_s, unit);
  return out;
}

const char* goal_verdict(const std::optional<Rate>& a, const std::optional<Rate>& b, double goal) {
  return verdict(a && b && a->mb_per_s / b->mb_per_s >= goal);
}

void print_failures(const char* name, const Series& s) {
  for (const auto& f : s.failures) std::printf("  %s run failed: %s\n", name, f.c_str());
}

void print_corpus(const CorpusFigures& t) {
  const auto bare = t.bare.best();
  const auto delivered = [](const Series& s) {
    char b[32] = "n/a";
    if (s.best()) std::snprintf(b, sizeof b, "%.1f MB", static_cast<double>(s.best()->delivered_bytes) / 1e6);
    return std::string(b);
  };
  std::printf("throughput, %s corpus: cat of %.1f MB (%.2f%% escape-sequence bytes) into 120x40 panes\n"
              "  (MB = 10^6 bytes), best of %d interleaved runs; all runs (MB/s): bare [%s]\n"
              "  signaltty/none [%s] tmux/none [%s] signaltty/one [%s] tmux -C [%s] tmux attach [%s]\n"
              "  (one client received: signaltty %s, tmux -C %s, tmux attach %s, CRs included)\n",
              t.name.c_str(), static_cast<double>(t.bytes) / 1e6,
              100.0 * static_cast<double>(t.escapes) / static_cast<double>(std::max<std::uint64_t>(t.bytes, 1)),
              static_cast<int>(t.bare.runs.size() + t.bare.failures.size()), t.bare.list().c_str(),
              t.sig_none.list().c_str(), t.tmux_none.list().c_str(), t.sig_one.list().c_str(),
              t.tmux_one.list().c_str(), t.tmux_client.list().c_str(), delivered(t.sig_one).c_str(),
              delivered(t.tmux_one).c_str(), delivered(t.tmux_client).c_str());
  print_failures("signaltty/none", t.sig_none);
  print_failures("signaltty/one", t.sig_one);
  print_failures("tmux/none", t.tmux_none);
  print_failures("tmux -C", t.tmux_one);
  print_failures("tmux attach", t.tmux_client);
  print_failures("bare", t.bare);
  const struct {
    const char* label;
    const Series& series;
    double bare_goal;  // 0: none
  } rows[] = {{"bare pty              ", t.bare, 0},
              {"signaltty, no client  ", t.sig_none, 0.5},
              {"tmux, no client       ", t.tmux_none, 0},
              {"signaltty, one client ", t.sig_one, 0.45},
              {"tmux, one client (-C) ", t.tmux_one, 0},
              {"tmux, attached client ", t.tmux_client, 0}};
  for (const auto& row : rows) {
    const auto r = row.series.best();
    std::printf("  %s %-12s  /bare %s", row.label, mb_per_s(r).c_str(), ratio(r, bare).c_str());
    if (row.bare_goal > 0)
      std::printf(" (goal >= %.2f: %s)", row.bare_goal, goal_verdict(r, bare, row.bare_goal));
    std::printf("\n");
  }
  const auto sig_none = t.sig_none.best(), sig_one = t.sig_one.best();
  std::printf("  signaltty/tmux: no client %s (goal >= 1.5x: %s); one client vs tmux attach %s"
              " (goal >= 1.5x: %s); one client vs tmux -C %s\n",
              ratio(sig_none, t.tmux_none.best(), "x").c_str(),
              goal_verdict(sig_none, t.tmux_none.best(), 1.5),
              ratio(sig_one, t.tmux_client.best(), "x").c_str(),
              goal_verdict(sig_one, t.tmux_client.best(), 1.5),
              ratio(sig_one, t.tmux_one.best(), "x").c_str());
  std::printf("  a pane that cost nothing (the bare PTY) vs tmux: no client %s, attached %s\n",
              ratio(bare, t.tmux_none.best(), "x").c_str(), ratio(bare, t.tmux_client.best(), "x").c_str());
}

void print_throughput(const ThroughputFigures& t) {
  for (const CorpusFigures& c : t.corpora) print_corpus(c);
}

void print_memory(const MemoryFigures& m) {
  std::printf("memory idle ptyhost after %d lines x %d cols (%llu kept): %s (goal RSS <= 4 MiB: %s);"
              " a fresh idle ptyhost: %s\n",
              kPrintedLines, kCols, static_cast<unsigned long long>(m.history_lines),
              footprint_text(m.ptyhost_history).c_str(), verdict(m.ptyhost_history.rss_kib <= 4096),
              footprint_text(m.ptyhost_fresh).c_str());
  std::printf("memory tmux server holding that one pane (%s lines of history): %s; with no session:"
              " %s (RSS +%.2f MiB for the pane)\n",
              m.tmux_history_lines.c_str(), footprint_text(m.tmux_history).c_str(),
              footprint_text(m.tmux_empty).c_str(),
              mib(m.tmux_history.rss_kib) - mib(m.tmux_empty.rss_kib));
  const auto ratio_of = [](const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
    return a && b ? static_cast<double>(*a) / static_cast<double>(*b) : 0.0;
  };
  std::printf("memory %d idle panes: signaltty broker + %d ptyhosts %s (broker alone %s;"
              " its launcher, not in the sum: %s); tmux server %s; ratio RSS %.1fx, PSS %.1fx\n",
              kIdlePanes, kIdlePanes, footprint_text(m.sig_fifty).c_str(),
              footprint_text(m.sig_broker).c_str(), footprint_text(m.sig_launcher).c_str(),
              footprint_text(m.tmux_fifty).c_str(),
              ratio_of(m.sig_fifty.rss_kib, m.tmux_fifty.rss_kib),
              ratio_of(m.sig_fifty.pss_kib, m.tmux_fifty.pss_kib));
  const auto pss = [](const Footprint& f) { return f.pss_kib ? static_cast<double>(*f.pss_kib) : -1.0; };
  const double fresh_pss = pss(m.ptyhost_fresh);
  const double fifty_pss = pss(m.sig_fifty);
  const double broker_growth =
      (static_cast<double>(m.sig_broker.rss_kib) - static_cast<double>(m.sig_broker_empty.rss_kib)) / kIdlePanes;
  const auto priv = [](const Footprint& f) { return f.private_kib ? static_cast<double>(*f.private_kib) : -1.0; };
  const double per_pane_pss = (fifty_pss - pss(m.sig_broker)) / kIdlePanes;
  // A lone ptyhost's PSS carries its whole binary; among 50 the binary's
  // pages are shared, and the per-pane share is what one more pane costs.
  std::printf("memory goals: a fresh idle ptyhost alone PSS %.0f KiB; among %d idle ptyhosts PSS"
              " %.0f KiB and private %.0f KiB per pane (goal <= 300 KiB PSS: %s); %d idle panes"
              " with the broker PSS %.2f MiB (goal <= 20 MiB: %s); broker RSS"
              " %.2f -> %.2f MiB, +%.1f KiB per idle pane (goal <= 32 KiB: %s)\n",
              fresh_pss, kIdlePanes, per_pane_pss, (priv(m.sig_fifty) - priv(m.sig_broker)) / kIdlePanes,
              verdict(fifty_pss >= 0 && per_pane_pss <= 300), kIdlePanes, fifty_pss / 1024.0,
              verdict(fifty_pss >= 0 && fifty_pss <= 20 * 1024), mib(m.sig_broker_empty.rss_kib),
              mib(m.sig_broker.rss_kib), broker_growth, verdict(broker_growth <= 32));
  std::printf("idle wakeups with %d idle panes, over %.0f s: signaltty broker %llu (%.2f/s), the %d"
              " ptyhosts together %llu (%.2f/s); tmux server %llu (%.2f/s)\n",
              kIdlePanes, std::chrono::duration<double>(kIdleWakeWindow).count(),
              static_cast<unsigned long long>(m.sig_broker_wakeups.count), m.sig_broker_wakeups.per_s(),
              kIdlePanes, static_cast<unsigned long long>(m.sig_ptyhost_wakeups.count),
              m.sig_ptyhost_wakeups.per_s(), static_cast<unsigned long long>(m.tmux_wakeups.count),
              m.tmux_wakeups.per_s());
  std::vector<double> ready;
  std::string rounds;
  for (const auto& r : m.restarts) {
    ready.push_back(r.ready.count());
    char b[96];
    std::snprintf(b, sizeof b, "%s%.1f ms (%s)", rounds.empty() ? "" : ", ", r.ready.count(),
                  r.adoption_log.c_str());
    rounds += b;
  }
  std::sort(ready.begin(), ready.end());
  const double median = ready[ready.size() / 2];
  std::printf("restart-to-ready with %d live panes: median %.1f ms (goal <= 250 ms: %s); rounds: %s\n",
              kIdlePanes, median, verdict(median <= 250), rounds.c_str());
}

void print_latency(const LatencyFigures& l) {
  const double sp50 = l.sig.pct(0.5), tp50 = l.tmux.pct(0.5);
  const double sp99 = l.sig.pct(0.99), tp99 = l.tmux.pct(0.99);
  std::printf("latency echo (%zu samples each): signaltty p50 %.3f ms p99 %.3f ms;"
              " tmux -C p50 %.3f ms p99 %.3f ms; ratio p50 %.2fx (goal <= 1.2x: %s)"
              " p99 %.2fx (goal <= 1.5x: %s)\n",
              l.sig.ms.size(), sp50, sp99, tp50, tp99, sp50 / tp50, verdict(sp50 <= 1.2 * tp50),
              sp99 / tp99, verdict(sp99 <= 1.5 * tp99));
}

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<std::string> phases;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--stream-mb" || arg == "--rounds") && i + 1 < argc) {
      const int value = std::max(1, std::atoi(argv[++i]));
      if (arg == "--rounds") o.rounds = value;
      else o.stream_mb = static_cast<std::uint64_t>(value);
    } else if (arg == "--corpus" && i + 1 < argc && (argv[i + 1] == std::string_view("colour") ||
                                                      argv[i + 1] == std::string_view("plain"))) {
      o.colour = argv[++i] == std::string_view("colour");
      o.plain = !o.colour;
    } else if (arg == "memory" || arg == "latency" || arg == "throughput") {
      phases.push_back(arg);
    } else {
      throw HarnessError(
          "usage: bench_panes [--stream-mb N] [--rounds N] [--corpus colour|plain] [memory] [latency]"
          " [throughput]");
    }
  }
  if (!phases.empty()) {
    const auto has = [&](const char* p) { return std::find(phases.begin(), phases.end(), p) != phases.end(); };
    o.memory = has("memory");
    o.latency = has("latency");
    o.throughput = has("throughput");
  }
  return o;
}

}  // namespace

// With no phase named, every phase runs; 200 MB and 2 rounds by default.
int main(int argc, char** argv) {
  install_interrupt_handlers();
  try {
    const Options options = parse_options(argc, argv);
    const std::string tmux = find_in_path("tmux");
    TempDirs files;
    std::optional<MemoryFigures> memory;
    std::optional<LatencyFigures> latency;
    std::optional<ThroughputFigures> throughput;
    if (options.memory) {
      std::printf("memory: a scrollback pane, then %d idle panes and %d broker restarts\n", kIdlePanes,
                  kRestartRounds);
      std::fflush(stdout);
      memory.emplace();
      measure_history(files, tmux, *memory);
      measure_fifty_and_restart(files, tmux, *memory);
    }
    if (options.latency) {
      std::printf("latency: %d echo round trips per side\n", kLatencySamples);
      std::fflush(stdout);
      latency = measure_latency(files, tmux);
    }
    if (options.throughput) throughput = measure_throughput(files, tmux, options);
    std::printf("\n==== signaltty panes vs tmux (one run; the machine is shared: compare the ratios) ====\n");
    if (throughput) print_throughput(*throughput);
    if (memory) print_memory(*memory);
    if (latency) print_latency(*latency);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_panes: %s\n", e.what());
    return 1;
  }
  return 0;
}
