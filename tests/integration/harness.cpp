// tests/integration/harness.cpp: temporary dirs, child processes and the
// socket client of harness.hpp.
// Runs in: the integration test binary.
// Never: sleeps blindly; signals a process it did not start.
#include "tests/integration/harness.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#ifndef SIGNALTTY_BIN_DIR
#error "SIGNALTTY_BIN_DIR must name the directory holding the built programs"
#endif
#ifndef SIGNALTTY_PEER_PROBE
#error "SIGNALTTY_PEER_PROBE must name the peer_probe helper"
#endif

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// Bytes read from a socket per recv().
constexpr std::size_t kReadChunkBytes = 256u << 10;
// The client compacts its input buffer once this much of it was consumed.
constexpr std::size_t kCompactAfterBytes = 1u << 20;
// Pause between two readiness probes of a starting broker; the wait returns
// early when the broker exits.
constexpr std::chrono::milliseconds kReadyRetry{20};
// How much of each broker's stderr a failing test prints.
constexpr std::size_t kStderrTailBytes = 16u << 10;

std::string errno_text(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

int remaining_ms(Deadline deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

void make_dir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) != 0) throw HarnessError(errno_text("mkdir " + path));
  ::chmod(path.c_str(), mode);  // not narrowed by the umask
}

ExitStatus from_siginfo(const siginfo_t& info) {
  ExitStatus st;
  if (info.si_code == CLD_EXITED)
    st.code = info.si_status;
  else
    st.signal = info.si_status;
  return st;
}

std::string read_proc_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The parent pid from /proc/<pid>/stat (after the ")" that ends comm).
pid_t parent_of(const std::string& pid) {
  const std::string stat = read_proc_file("/proc/" + pid + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

// Ptyhosts outlive a killed broker by design. Those the brokers of this
// test started (their command line names a directory under `root`) and
// their programs' process groups are SIGKILLed when the test ends.
void kill_leftover_ptyhosts(const std::string& root) {
  std::vector<std::string> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    pids.push_back(name);
  }
  std::vector<pid_t> hosts;
  for (const auto& pid : pids) {
    std::string cmdline = read_proc_file("/proc/" + pid + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find("signaltty-ptyhost") != std::string::npos &&
        cmdline.find(" " + root + "/") != std::string::npos)
      hosts.push_back(static_cast<pid_t>(std::stol(pid)));
  }
  if (hosts.empty()) return;
  for (const auto& pid : pids) {
    const pid_t parent = parent_of(pid);
    if (std::find(hosts.begin(), hosts.end(), parent) == hosts.end()) continue;
    const auto child = static_cast<pid_t>(std::stol(pid));
    ::kill(-child, SIGKILL);  // the pane's program leads its own session
    ::kill(child, SIGKILL);
  }
  for (const pid_t host : hosts) ::kill(host, SIGKILL);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

Deadline deadline_after(Clock::duration d) { return Clock::now() + d; }

std::string program_path(std::string_view name) {
  return std::string(SIGNALTTY_BIN_DIR) + "/" + std::string(name);
}

std::string peer_probe_path() { return SIGNALTTY_PEER_PROBE; }

// ---- TempDirs ----------------------------------------------------------------

TempDirs::TempDirs() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/signaltty-it-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) throw HarnessError(errno_text("mkdtemp " + templ));
  root_ = templ;
  make_dir(runtime_dir(), 0700);
  make_dir(state_home(), 0700);
  make_dir(config_home(), 0700);
  make_dir(home(), 0700);
}

TempDirs::~TempDirs() {
  kill_leftover_ptyhosts(root_);
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

std::string TempDirs::state_file(std::string_view name) const {
  return state_dir() + "/" + std::string(name);
}

std::string TempDirs::scratch(std::string_view name) const {
  return root_ + "/" + std::string(name);
}

std::vector<std::string> base_env(const TempDirs& dirs) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> env{
      "XDG_RUNTIME_DIR=" + dirs.runtime_dir(),
      "XDG_STATE_HOME=" + dirs.state_home(),
      "XDG_CONFIG_HOME=" + dirs.config_home(),
      "HOME=" + dirs.home(),
      std::string("PATH=") + (path && *path ? path : "/usr/local/bin:/usr/bin:/bin"),
      "SIGNALTTY_LOGIND=0",
  };
  for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"}) {
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  return env;
}

// ---- ChildProcess ------------------------------------------------------------

std::string ExitStatus::describe() const {
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(code);
}

namespace {
namespace SIGNALTTY_UNITY_ID {

struct ExecPlan {
  std::vector<std::string> argv_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;
  std::optional<std::uint64_t> fsize;
};

std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Output files are created (and truncated) here, so the child only appends.
void create_output(const std::string& path) {
  if (path.empty()) return;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd) throw HarnessError(errno_text("create " + path));
}

ExecPlan make_plan(const SpawnSpec& spec) {
  ExecPlan plan;
  plan.argv_storage = spec.argv;
  plan.env_storage = spec.env;
  plan.argv = c_array(plan.argv_storage);
  plan.envp = c_array(plan.env_storage);
  plan.stdin_path = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
  plan.stdout_path = spec.stdout_path.empty() ? "/dev/null" : spec.stdout_path;
  plan.stderr_path = spec.stderr_path.empty() ? "/dev/null" : spec.stderr_path;
  plan.fsize = spec.file_size_limit_bytes;
  create_output(spec.stdout_path);
  create_output(spec.stderr_path);
  return plan;
}

// Between fork and exec: async-signal-safe calls only.
bool redirect(int target, const char* path, int flags) {
  int fd = ::open(path, flags, 0644);
  if (fd < 0) return false;
  if (fd != target) {
    if (::dup2(fd, target) < 0) return false;
    ::close(fd);
  }
  return true;
}

[[noreturn]] void exec_child(const ExecPlan& plan) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);
  const int out_flags = O_WRONLY | O_APPEND;
  if (!redirect(0, plan.stdin_path.c_str(), O_RDONLY) ||
      !redirect(1, plan.stdout_path.c_str(), out_flags) ||
      !redirect(2, plan.stderr_path.c_str(), out_flags))
    ::_exit(126);
  if (plan.fsize) {
    struct rlimit rl {static_cast<rlim_t>(*plan.fsize), static_cast<rlim_t>(*plan.fsize)};
    if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) ::_exit(126);
  }
  ::close_range(3, ~0u, 0);
  ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  ::_exit(127);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

ChildProcess::ChildProcess(const SpawnSpec& spec) {
  if (spec.argv.empty()) throw HarnessError("spawn: empty argv");
  ExecPlan plan = make_plan(spec);
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_ = ::fork();
  if (pid_ == 0) exec_child(plan);
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid_ < 0) {
    errno = fork_errno;
    throw HarnessError(errno_text("fork"));
  }
  ::setpgid(pid_, pid_);  // also done by the child; whichever runs first wins
  pidfd_.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
}

ChildProcess::~ChildProcess() { kill_group_and_reap(); }

// The child is reaped only here: until then its pid, and so its group id,
// cannot be reused, and the group kill reaches only what it started.
void ChildProcess::kill_group_and_reap() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  if (!exit_) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void ChildProcess::send_signal(int sig) {
  if (!exit_ && pid_ > 0) ::kill(pid_, sig);
}

bool ChildProcess::running() { return !wait_exit(Clock::now()).has_value(); }

// Observes the exit without reaping (WNOWAIT); see kill_group_and_reap.
std::optional<ExitStatus> ChildProcess::wait_exit(Deadline deadline) {
  for (;;) {
    if (exit_) return exit_;
    siginfo_t info{};
    int r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid_) {
      exit_ = from_siginfo(info);
      return exit_;
    }
    if (r < 0 && errno != EINTR) throw HarnessError(errno_text("waitid"));
    if (Clock::now() >= deadline) return std::nullopt;
    // Without a pidfd, poll() on nothing is a bounded pause between checks.
    int wait_ms = pidfd_ ? remaining_ms(deadline) : std::min(remaining_ms(deadline), 10);
    pollfd pfd{pidfd_.get(), POLLIN, 0};
    ::poll(&pfd, pidfd_ ? 1 : 0, wait_ms);
  }
}

RunResult run_program(const TempDirs& dirs, std::vector<std::string> argv,
                      std::vector<std::string> env, std::string_view stdin_text,
                      Deadline deadline) {
  const std::string base = dirs.scratch("run-" + unique_suffix());
  SpawnSpec spec{std::move(argv), std::move(env), base + ".out", base + ".err", base + ".in", {}};
  write_text_file(spec.stdin_path, stdin_text);
  ChildProcess child(spec);
  auto status = child.wait_exit(deadline);
  if (!status) throw HarnessError(spec.argv[0] + " did not exit before the deadline");
  return RunResult{*status, read_text_file(spec.stdout_path), read_text_file(spec.stderr_path)};
}

// ---- BrokerProcess -------------------------------------------------------------

namespace {
namespace SIGNALTTY_UNITY_ID {

std::string socket_from_args(const std::vector<std::string>& args, const TempDirs& dirs) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--socket") return args[i + 1];
  return dirs.socket_path();
}

// True iff a fresh connection to `socket_path` gets an ok server.status.
bool answers_status(const std::string& socket_path, Deadline deadline) {
  auto client = Client::try_connect(socket_path);
  if (!client) return false;
  try {
    return is_ok(client->request("server.status", Json::object(), deadline));
  } catch (const HarnessError&) {
    return false;
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

BrokerProcess::BrokerProcess(const TempDirs& dirs, BrokerOptions options)
    : socket_path_(socket_from_args(options.args, dirs)),
      stderr_path_(dirs.scratch("broker-" + unique_suffix() + ".stderr")) {
  SpawnSpec spec;
  spec.argv.push_back(program_path("signaltty-broker"));
  spec.argv.insert(spec.argv.end(), options.args.begin(), options.args.end());
  spec.env = base_env(dirs);
  spec.env.insert(spec.env.end(), options.env.begin(), options.env.end());
  spec.stdout_path = stderr_path_;
  spec.stderr_path = stderr_path_;
  spec.file_size_limit_bytes = options.file_size_limit_bytes;
  child_ = std::make_unique<ChildProcess>(spec);
}

std::string BrokerProcess::stderr_text() const { return read_text_file(stderr_path_); }

bool BrokerProcess::wait_ready(Deadline deadline) {
  for (;;) {
    if (answers_status(socket_path_, deadline)) return true;
    if (!child_->running() || Clock::now() >= deadline) return false;
    child_->wait_exit(std::min(deadline, Clock::now() + kReadyRetry));
  }
}

std::unique_ptr<BrokerProcess> start_broker(const TempDirs& dirs, BrokerOptions options) {
  auto broker = std::make_unique<BrokerProcess>(dirs, std::move(options));
  if (broker->wait_ready(deadline_after(kStartTimeout))) return broker;
  auto status = broker->wait_exit(Clock::now());
  throw HarnessError("broker not ready (" + (status ? status->describe() : "still running") +
                     "); stderr:\n" + broker->stderr_text());
}

// ---- Client ------------------------------------------------------------------

std::optional<Client> Client::try_connect(const std::string& socket_path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path)) throw HarnessError("socket path too long");
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) throw HarnessError(errno_text("socket"));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    return std::nullopt;
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
  return Client(std::move(fd));
}

Client::Client(const std::string& socket_path) {
  auto c = try_connect(socket_path);
  if (!c) throw HarnessError(errno_text("connect " + socket_path));
  *this = std::move(*c);
}

Json Client::send_request(std::string_view method, const Json& params) {
  Json id = "c" + std::to_string(next_id_++);
  Json req = {{"protocol", "signaltty/1"}, {"id", id}, {"method", method}, {"params", params}};
  if (!token_.empty()) req["token"] = token_;
  std::string line = req.dump() + "\n";
  if (send_raw(line) != line.size())
    throw HarnessError("could not send " + std::string(method) + " (connection closed or stuck)");
  return id;
}

Json Client::await_response(const Json& id, Deadline deadline) {
  auto early = std::find_if(strays_.begin(), strays_.end(),
                            [&](const Json& r) { return r.value("id", Json()) == id; });
  if (early != strays_.end()) {
    Json response = std::move(*early);
    strays_.erase(early);
    return response;
  }
  for (;;) {
    auto msg = read_message(deadline);
    if (!msg)
      throw HarnessError(std::string(eof_ ? "connection closed" : "timed out") +
                         " waiting for the response to " + id.dump());
    if (msg->value("type", "") == "event") {
      events_.push_back(std::move(*msg));
    } else if (msg->value("id", Json()) == id) {
      return *msg;
    } else {
      strays_.push_back(std::move(*msg));
    }
  }
}

Json Client::request(std::string_view method, const Json& params, Deadline deadline) {
  return await_response(send_request(method, params), deadline);
}

std::vector<Json> Client::request_pipelined(std::string_view method,
                                            const std::vector<Json>& params, std::size_t window) {
  std::vector<Json> ids;
  std::vector<Json> responses;
  for (std::size_t sent = 0; responses.size() < params.size();) {
    while (sent < params.size() && sent - responses.size() < std::max<std::size_t>(window, 1))
      ids.push_back(send_request(method, params[sent++]));
    responses.push_back(await_response(ids[responses.size()]));
  }
  return responses;
}

Json Client::call(std::string_view method, const Json& params) {
  Json response = request(method, params);
  if (!is_ok(response))
    throw HarnessError(std::string(method) + " " + params.dump() + " failed: " + response.dump());
  return response["result"];
}

Json Client::call_error(std::string_view method, const Json& params) {
  Json response = request(method, params);
  if (is_ok(response))
    throw HarnessError(std::string(method) + " " + params.dump() +
                       " succeeded, expected an error: " + response.dump());
  return response["error"];
}

std::size_t Client::send_raw(std::string_view bytes, Deadline deadline) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd_.get(), bytes.data() + sent, bytes.size() - sent,
                       MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) break;  // EPIPE, ECONNRESET: the broker closed
    pollfd pfd{fd_.get(), POLLOUT, 0};
    if (::poll(&pfd, 1, remaining_ms(deadline)) == 0) break;
  }
  return sent;
}

std::optional<std::string> Client::take_buffered_line() {
  std::size_t pos = inbuf_.find('\n', std::max(consumed_, scanned_));
  if (pos == std::string::npos) {
    scanned_ = inbuf_.size();
    return std::nullopt;
  }
  std::string line = inbuf_.substr(consumed_, pos - consumed_);
  consumed_ = scanned_ = pos + 1;
  if (consumed_ >= kCompactAfterBytes) {
    inbuf_.erase(0, consumed_);
    consumed_ = scanned_ = 0;
  }
  return line;
}

void Client::read_now() {
  for (;;) {
    const std::size_t old = inbuf_.size();
    inbuf_.resize(old + kReadChunkBytes);
    ssize_t n = ::recv(fd_.get(), inbuf_.data() + old, kReadChunkBytes, MSG_DONTWAIT);
    inbuf_.resize(old + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    // 0 is EOF; ECONNRESET means the broker closed with our bytes unread,
    // after everything it had sent was read.
    if (n == 0 || errno != EAGAIN) eof_ = true;
    return;
  }
}

bool Client::fill(Deadline deadline) {
  pollfd pfd{fd_.get(), POLLIN, 0};
  for (;;) {
    int r = ::poll(&pfd, 1, remaining_ms(deadline));
    if (r > 0) {
      read_now();
      return true;
    }
    if (r == 0 || errno != EINTR) return false;
  }
}

std::optional<std::string> Client::read_line(Deadline deadline) {
  for (;;) {
    if (auto line = take_buffered_line()) return line;
    if (eof_) return std::nullopt;
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<Json> Client::read_message(Deadline deadline) {
  auto line = read_line(deadline);
  if (!line) return std::nullopt;
  Json msg = Json::parse(*line, nullptr, false);
  if (msg.is_discarded()) throw HarnessError("broker sent a line that is not JSON: " + line->substr(0, 200));
  return msg;
}

std::optional<Json> Client::next_event(Deadline deadline) {
  for (;;) {
    if (!events_.empty()) {
      Json ev = std::move(events_.front());
      events_.pop_front();
      return ev;
    }
    auto msg = read_message(deadline);
    if (!msg) return std::nullopt;
    if (msg->value("type", "") == "event") return msg;
    strays_.push_back(std::move(*msg));
  }
}

bool Client::wait_closed(Deadline deadline) {
  while (!eof_) {
    inbuf_.clear();
    consumed_ = scanned_ = 0;
    if (!fill(deadline)) return false;
  }
  return true;
}

std::vector<std::string> Client::read_available() {
  if (!eof_) read_now();
  std::vector<std::string> lines;
  while (auto line = take_buffered_line()) lines.push_back(std::move(*line));
  return lines;
}

std::string error_code(const Json& response) {
  if (is_ok(response)) return "";
  const Json& err = response.value("error", Json::object());
  return err.is_object() ? err.value("code", "") : "";
}

bool is_ok(const Json& response) {
  return response.is_object() && response.value("ok", false) == true;
}

// ---- files ---------------------------------------------------------------------

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_text_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw HarnessError("cannot write " + path);
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

JournalScan read_journal(const std::string& state_dir) {
  JournalScan scan;
  for (const char* name : {"audit.jsonl.1", "audit.jsonl"}) {
    std::ifstream in(state_dir + "/" + name, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      Json rec = Json::parse(line, nullptr, false);
      if (rec.is_discarded() || !rec.is_object())
        scan.unparsable.push_back(line);
      else
        scan.records.push_back(std::move(rec));
    }
  }
  return scan;
}

namespace {
namespace SIGNALTTY_UNITY_ID {
std::uint64_t proc_status_kib(pid_t pid, std::string_view key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0 && line.size() > key.size() && line[key.size()] == ':')
      return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10);
  }
  throw HarnessError("no " + std::string(key) + " in /proc/" + std::to_string(pid) + "/status");
}
}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

std::uint64_t vm_rss_kib(pid_t pid) { return proc_status_kib(pid, "VmRSS"); }
std::uint64_t vm_hwm_kib(pid_t pid) { return proc_status_kib(pid, "VmHWM"); }

std::uint64_t wakeups(pid_t pid) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(
           "/proc/" + std::to_string(pid) + "/task", ec)) {
    std::istringstream status(read_proc_file(task.path().string() + "/status"));
    for (std::string line; std::getline(status, line);)
      if (line.find("ctxt_switches:") != std::string::npos)
        total += std::strtoull(line.c_str() + line.find(':') + 1, nullptr, 10);
  }
  return total;
}

// ---- BrokerTest ------------------------------------------------------------------

// What a sanitizer writes when it finds something. A ThreadSanitizer
// report does not stop the process, so without this look a race in a
// broker (or, in that build, a ptyhost: docs/rules.md) would pass unseen.
constexpr std::string_view kSanitizerReports[] = {
    "WARNING: ThreadSanitizer:", "ERROR: AddressSanitizer:", "ERROR: LeakSanitizer:", "runtime error:"};

void BrokerTest::TearDown() {
  for (const auto& path : stderr_paths_) {
    const std::string text = read_text_file(path);
    for (std::string_view report : kSanitizerReports)
      if (text.find(report) != std::string::npos)
        ADD_FAILURE() << path << " holds a sanitizer report (" << report << ")";
  }
  if (HasFailure()) std::cerr << all_stderr();
}

BrokerProcess& BrokerTest::start(BrokerOptions options) {
  broker_.reset();
  broker_ = std::make_unique<BrokerProcess>(dirs_, std::move(options));
  stderr_paths_.push_back(broker_->stderr_path());
  if (!broker_->wait_ready(deadline_after(kStartTimeout))) {
    auto status = broker_->wait_exit(Clock::now());
    throw HarnessError("broker not ready (" + (status ? status->describe() : "still running") +
                       ")");
  }
  return *broker_;
}

ExitStatus BrokerTest::start_expecting_exit(BrokerOptions options) {
  BrokerProcess refused(dirs_, std::move(options));
  stderr_paths_.push_back(refused.stderr_path());
  auto status = refused.wait_exit(deadline_after(kStartTimeout));
  if (!status) throw HarnessError("the broker kept running; expected it to refuse to start");
  return *status;
}

BrokerProcess& BrokerTest::restart(BrokerOptions options) {
  broker_->sigterm();
  auto status = broker_->wait_exit(deadline_after());
  if (!status || status->code != 0)
    throw HarnessError("broker did not exit 0 on SIGTERM: " +
                       (status ? status->describe() : std::string("still running")));
  return start(std::move(options));
}

std::string BrokerTest::all_stderr() const {
  std::string out;
  for (const auto& path : stderr_paths_) {
    std::string text = read_text_file(path);
    if (text.size() > kStderrTailBytes) text = "…" + text.substr(text.size() - kStderrTailBytes);
    out += "---- " + path + " ----\n" + text + "\n";
  }
  return out;
}

}  // namespace signaltty::itest
