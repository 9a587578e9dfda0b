// tests/integration/harness.hpp: drives the real signaltty programs from
// tests: fresh XDG directories, child processes in their own process group
// (the broker, the CLI, helpers), and a JSONL client for the broker socket.
// Runs in: the integration test binary.
// Never: sleeps blindly (every wait is poll() against a deadline); signals
// any process but the ones it started; touches the user's real XDG dirs.
//
// Usage:
//   TempDirs dirs;
//   auto broker = start_broker(dirs);                 // ready: server.status answered
//   Client client(broker->socket_path());
//   Json ws = client.call("workspace.create", {{"name", "api"}})["workspace"];
//   broker->sigterm();
//   EXPECT_EQ(broker->wait_exit(deadline_after())->code, 0);
//
// Steps that must succeed for a test to mean anything (connecting, a
// response arriving, a broker becoming ready) throw HarnessError, which
// GoogleTest reports as a failure of the running test with its message.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/unique_fd.hpp"

namespace signaltty::itest {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

// A step that should be quick (a request, an exit after SIGTERM). Generous:
// CI shares two cores with builds.
inline constexpr std::chrono::seconds kStepTimeout{10};
// From exec to the first answered server.status. Under a sanitizer a broker
// that replays a long journal at start takes several times longer (36,000
// records: over 20 s under AddressSanitizer beside a build).
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr std::chrono::seconds kStartTimeout{120};
#else
inline constexpr std::chrono::seconds kStartTimeout{20};
#endif

Deadline deadline_after(Clock::duration d = kStepTimeout);

class HarnessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The build's copy of a program, e.g. program_path("signaltty-broker").
std::string program_path(std::string_view name);
// The helper that connects, prints the broker's first line and whether the
// broker then closed (see peer_probe.cpp).
std::string peer_probe_path();

// ---- temporary directories -------------------------------------------------

// A fresh directory tree under $TMPDIR (or /tmp), removed on destruction:
//   <root>/run      XDG_RUNTIME_DIR (0700)
//   <root>/state    XDG_STATE_HOME
//   <root>/config   XDG_CONFIG_HOME
//   <root>/home     HOME
class TempDirs {
 public:
  TempDirs();
  ~TempDirs();
  TempDirs(const TempDirs&) = delete;
  TempDirs& operator=(const TempDirs&) = delete;

  const std::string& root() const { return root_; }
  std::string runtime_dir() const { return root_ + "/run"; }
  std::string state_home() const { return root_ + "/state"; }
  std::string config_home() const { return root_ + "/config"; }
  std::string home() const { return root_ + "/home"; }
  // The broker's defaults under these XDG dirs (docs/rules.md, Paths and environment).
  std::string socket_dir() const { return runtime_dir() + "/signaltty"; }
  std::string socket_path() const { return socket_dir() + "/signaltty.sock"; }
  std::string state_dir() const { return state_home() + "/signaltty"; }
  std::string state_file(std::string_view name) const;
  // A scratch path under the root, for a test's own files.
  std::string scratch(std::string_view name) const;

 private:
  std::string root_;
};

// The controlled environment every program starts with: the XDG dirs of
// `dirs`, HOME, PATH, SIGNALTTY_LOGIND=0, and sanitizer options if set.
std::vector<std::string> base_env(const TempDirs& dirs);

// ---- child processes -------------------------------------------------------

struct ExitStatus {
  int code = -1;   // exit code; -1 when a signal ended the process
  int signal = 0;  // the signal that ended it; 0 when it exited
  std::string describe() const;
};

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<std::string> env;   // "NAME=value"
  std::string stdout_path;        // created/truncated; empty → /dev/null
  std::string stderr_path;        // may equal stdout_path; empty → /dev/null
  std::string stdin_path;         // empty → /dev/null
  std::optional<std::uint64_t> file_size_limit_bytes;  // RLIMIT_FSIZE
};

// One child in its own process group. Signals are blocked across fork and
// reset to their defaults in the child; only fds 0-2 survive the exec.
class ChildProcess {
 public:
  explicit ChildProcess(const SpawnSpec& spec);
  // SIGKILLs the child's whole process group if the child still runs, then
  // reaps it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Sends `sig` to the child only (not its group).
  void send_signal(int sig);
  // The exit status once the child ended, nullopt if it still runs at the
  // deadline.
  std::optional<ExitStatus> wait_exit(Deadline deadline);
  bool running();

 private:
  void kill_group_and_reap();
  pid_t pid_ = -1;
  UniqueFd pidfd_;  // readable once the child has exited
  std::optional<ExitStatus> exit_;
};

struct RunResult {
  ExitStatus status;
  std::string out;
  std::string err;
};

// Runs a program to completion with `env`, capturing stdout and stderr
// through files under `dirs`; stdin_text is fed on stdin. Throws
// HarnessError if it has not exited by the deadline (and kills it).
RunResult run_program(const TempDirs& dirs, std::vector<std::string> argv,
                      std::vector<std::string> env, std::string_view stdin_text = {},
                      Deadline deadline = deadline_after());

// ---- the broker ------------------------------------------------------------

struct BrokerOptions {
  // Extra command-line arguments (--socket, --state-dir, --client-queue-cap-bytes …).
  std::vector<std::string> args;
  // RLIMIT_FSIZE for the broker, to make its file writes fail on purpose.
  std::optional<std::uint64_t> file_size_limit_bytes;
  // "NAME=value" entries added to base_env(dirs).
  std::vector<std::string> env;
};

class BrokerProcess {
 public:
  // Starts signaltty-broker (not waiting for it) with base_env(dirs); its
  // stderr goes to a fresh file under dirs.root().
  BrokerProcess(const TempDirs& dirs, BrokerOptions options = {});

  pid_t pid() const { return child_->pid(); }
  // --socket from the options, else the default under XDG_RUNTIME_DIR.
  const std::string& socket_path() const { return socket_path_; }
  const std::string& stderr_path() const { return stderr_path_; }
  std::string stderr_text() const;

  // Polls connect + server.status until one is answered ok (true), the
  // broker exits or the deadline passes (false).
  bool wait_ready(Deadline deadline);
  // Signals the broker process itself (a crash kills one process, not a
  // group); the group is killed only when this object goes away.
  void sigkill() { child_->send_signal(SIGKILL); }
  void sigterm() { child_->send_signal(SIGTERM); }
  void sigint() { child_->send_signal(SIGINT); }
  std::optional<ExitStatus> wait_exit(Deadline deadline) { return child_->wait_exit(deadline); }
  bool running() { return child_->running(); }

 private:
  std::string socket_path_;
  std::string stderr_path_;
  std::unique_ptr<ChildProcess> child_;
};

// Starts a broker and waits until it answers; throws HarnessError (with the
// broker's stderr) if it exits or is not ready within kStartTimeout.
std::unique_ptr<BrokerProcess> start_broker(const TempDirs& dirs, BrokerOptions options = {});

// ---- the client ------------------------------------------------------------

class Client {
 public:
  // Connects to the broker socket; throws HarnessError if it cannot.
  explicit Client(const std::string& socket_path);
  // nullopt when nothing accepts on the path (yet).
  static std::optional<Client> try_connect(const std::string& socket_path);
  Client(Client&&) = default;
  Client& operator=(Client&&) = default;

  // Sends one request and waits for the response with its id. Events read
  // meanwhile are queued for next_event(); responses to other ids are kept
  // in strays(). Returns the whole response line; throws HarnessError on
  // timeout or EOF.
  Json request(std::string_view method, const Json& params = Json::object(),
               Deadline deadline = deadline_after());
  // The `result` of an ok response; throws HarnessError (carrying the error)
  // otherwise.
  Json call(std::string_view method, const Json& params = Json::object());
  // The `error` object of a failed response; throws HarnessError if it
  // succeeded.
  Json call_error(std::string_view method, const Json& params = Json::object());

  // Sends one request per params object, keeping up to `window` in flight,
  // and returns the response lines in order (throws as request() does).
  std::vector<Json> request_pipelined(std::string_view method, const std::vector<Json>& params,
                                      std::size_t window = 128);

  // Sends a request without waiting and returns its id.
  Json send_request(std::string_view method, const Json& params = Json::object());
  // Waits for the response to `id` (events queued, other responses kept in
  // strays(), where a later await finds them).
  Json await_response(const Json& id, Deadline deadline = deadline_after());

  // Writes bytes as they are. Returns how many the broker accepted before
  // the deadline or before it closed the connection.
  std::size_t send_raw(std::string_view bytes, Deadline deadline = deadline_after());
  // The next line (without '\n'); nullopt on timeout or EOF (see eof()).
  std::optional<std::string> read_line(Deadline deadline);
  // The next line parsed as JSON; nullopt on timeout or EOF.
  std::optional<Json> read_message(Deadline deadline);
  // The next event, queued ones first; nullopt on timeout or EOF.
  std::optional<Json> next_event(Deadline deadline);
  // Reads and discards until EOF: true if the broker closed in time.
  bool wait_closed(Deadline deadline);
  // Reads whatever is readable now without blocking; returns whole lines.
  std::vector<std::string> read_available();

  bool eof() const { return eof_; }
  int fd() const { return fd_.get(); }
  const std::vector<Json>& strays() const { return strays_; }
  // Every later request carries `token` in its envelope (a pane's
  // SIGNALTTY_TOKEN); "" sends none.
  void use_token(std::string token) { token_ = std::move(token); }

 private:
  explicit Client(UniqueFd fd) : fd_(std::move(fd)) {}
  std::optional<std::string> take_buffered_line();
  bool fill(Deadline deadline);  // false on timeout
  void read_now();

  UniqueFd fd_;
  std::string token_;
  std::string inbuf_;
  std::size_t consumed_ = 0;  // bytes of inbuf_ already returned as lines
  std::size_t scanned_ = 0;   // bytes of inbuf_ known to hold no '\n'
  bool eof_ = false;
  std::uint64_t next_id_ = 1;
  std::deque<Json> events_;
  std::vector<Json> strays_;
};

// The error code of a response line ("" when it is ok).
std::string error_code(const Json& response);
bool is_ok(const Json& response);

// ---- files the broker keeps -------------------------------------------------

std::string read_text_file(const std::string& path);
void write_text_file(const std::string& path, std::string_view text);
bool path_exists(const std::string& path);

// The audit journal as the test reads it: audit.jsonl.1 then audit.jsonl.
struct JournalScan {
  std::vector<Json> records;             // every line that parsed, in file order
  std::vector<std::string> unparsable;   // lines that did not (a torn tail)
};
JournalScan read_journal(const std::string& state_dir);

// From /proc/<pid>/status, in KiB: resident now and its peak.
std::uint64_t vm_rss_kib(pid_t pid);
std::uint64_t vm_hwm_kib(pid_t pid);
// Context switches of every thread of `pid` so far (0 once it is gone): a
// process asleep in the kernel that nothing wakes adds none.
std::uint64_t wakeups(pid_t pid);

// ---- fixture -----------------------------------------------------------------

// One temporary tree per test and the broker(s) started in it. On failure,
// TearDown prints every broker's stderr.
class BrokerTest : public ::testing::Test {
 protected:
  void TearDown() override;

  // Starts a broker in dirs_ and waits until it answers (throws if not).
  BrokerProcess& start(BrokerOptions options = {});
  // Starts a broker that is expected to refuse; waits for its exit.
  ExitStatus start_expecting_exit(BrokerOptions options = {});
  // SIGTERM, expect exit 0, start again with the same options.
  BrokerProcess& restart(BrokerOptions options = {});
  BrokerProcess& broker() { return *broker_; }
  Client connect() { return Client(broker_->socket_path()); }
  // Text of every broker stderr of this test, for failure messages.
  std::string all_stderr() const;

  TempDirs dirs_;
  std::unique_ptr<BrokerProcess> broker_;
  std::vector<std::string> stderr_paths_;
};

}  // namespace signaltty::itest
