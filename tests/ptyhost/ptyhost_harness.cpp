// tests/ptyhost/ptyhost_harness.cpp: process, socket and frame plumbing for
// the ptyhost process tests. Runs in: the test binary (and, between fork
// and exec, the child that becomes the ptyhost).
#include "ptyhost_harness.hpp"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/ids.hpp"
#include "common/protocol/ptyhost_handshake.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

// poll(2) one fd for `events` until the deadline.
bool poll_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, ms_until(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

std::string ptyhost_binary() {
  std::string path = SIGNALTTY_BIN_DIR;
  path += "/signaltty-ptyhost";
  return path;
}

Reply to_reply(const Json& doc) {
  Reply r;
  r.ok = doc.value("ok", false);
  r.result = doc.value("result", Json::object());
  if (!r.ok && doc.contains("error")) {
    r.code = doc["error"].value("code", "");
    r.details = doc["error"].value("details", Json::object());
  }
  return r;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

// ---- files and processes ------------------------------------------------

TempDir::TempDir() {
  char tmpl[] = "/tmp/sigtty-ptyhost-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
  const std::string lock_path = file(std::string(protocol::ptyhost::kBrokerLockName));
  broker_lock_.reset(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (!broker_lock_ || ::fcntl(broker_lock_.get(), F_SETLK, &lock) != 0)
    throw std::runtime_error("cannot take the broker lock in " + path_);
}

TempDir::~TempDir() {
  ::nftw(
      path_.c_str(),
      [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
      FTW_DEPTH | FTW_PHYS);
}

bool wait_process_gone(pid_t pid, Clock::time_point deadline) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd) return errno == ESRCH;
  return poll_for(pidfd.get(), POLLIN, deadline);
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0; }

bool wait_file(const std::string& path, Clock::time_point deadline,
               const std::function<bool()>& keep_waiting) {
  UniqueFd watch(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!watch) return false;
  const std::string dir = path.substr(0, path.find_last_of('/'));
  ::inotify_add_watch(watch.get(), dir.c_str(), IN_CREATE | IN_MOVED_TO);
  for (;;) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return true;
    if (!keep_waiting()) return false;
    if (!poll_for(watch.get(), POLLIN, deadline)) return false;
    char drain[4096];
    while (::read(watch.get(), drain, sizeof drain) > 0) {
    }
  }
}

std::string proc_status_field(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::string value = line.substr(key.size() + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return {};
}

PtyhostProcess::PtyhostProcess(const std::string& dir, const std::string& log_path)
    : dir_(dir), pane_id_(new_id("pane")) {
  const std::string binary = ptyhost_binary();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::setsid();  // own session and process group, as the launcher does
    int null_fd = ::open("/dev/null", O_RDWR);
    int log_fd = log_path.empty() ? null_fd
                                  : ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(log_fd, 2);
    ::close_range(3, ~0U, 0);
    const char* argv[] = {"signaltty-ptyhost", "--pane", pane_id_.c_str(), "--dir", dir_.c_str(),
                          nullptr};
    const char* envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", nullptr};
    ::execve(binary.c_str(), const_cast<char* const*>(argv), const_cast<char* const*>(envp));
    ::_exit(127);
  }
}

PtyhostProcess::~PtyhostProcess() {
  if (pid_ <= 0 || reaped_) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

bool PtyhostProcess::wait_ready() {
  return wait_file(socket_path(), Clock::now() + kDeadline, [this] { return process_alive(pid_); });
}

std::optional<int> PtyhostProcess::wait_exit(Clock::time_point deadline) {
  if (reaped_) return std::nullopt;
  if (!wait_process_gone(pid_, deadline)) return std::nullopt;
  int status = 0;
  if (::waitpid(pid_, &status, 0) != pid_) return std::nullopt;
  reaped_ = true;
  return status;
}

// ---- the test broker ----------------------------------------------------

TestBroker::TestBroker(const std::string& socket_path) {
  fd_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fd_.reset();
}

std::optional<protocol::Frame> TestBroker::next_frame(Clock::time_point deadline) {
  for (;;) {
    auto frame = reader_.next();
    if (!frame.ok()) throw std::runtime_error("bad frame from ptyhost: " + frame.error().message);
    if (frame->has_value()) return std::move(**frame);
    if (eof_ || !fd_) return std::nullopt;
    if (!poll_for(fd_.get(), POLLIN, deadline)) return std::nullopt;
    char buf[65536];
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      continue;
    }
    reader_.append(std::string_view(buf, static_cast<std::size_t>(n)));
  }
}

void TestBroker::absorb(const protocol::Frame& frame) {
  using protocol::FrameType;
  if (frame.type == FrameType::Output) {
    auto tagged = protocol::split_tagged(frame.payload);
    const std::uint64_t end = tagged->first;
    const std::uint64_t start = end - tagged->second.size();
    if (!first_start_) first_start_ = start;
    else if (start != last_end_) contiguous_ = false;
    last_end_ = end;
    output_.append(tagged->second);
    arrivals_.push_back("output");
  } else if (frame.type == FrameType::State) {
    auto tagged = protocol::split_tagged(frame.payload);
    states_[tagged->first] = std::string(tagged->second);
    arrivals_.push_back("state:" + std::to_string(tagged->first));
  } else {
    Json doc = Json::parse(frame.payload);
    const std::string op = doc.value("op", "");
    if (op == "reply") {
      const std::uint64_t rid = doc.value("rid", std::uint64_t{0});
      replies_[rid] = to_reply(doc);
      arrivals_.push_back("reply:" + std::to_string(rid));
    } else if (op == "event") {
      events_.push_back(doc);
    }
  }
}

Json TestBroker::read_hello() {
  auto frame = next_frame(Clock::now() + kDeadline);
  if (!frame || frame->type != protocol::FrameType::Control) return Json();
  return Json::parse(frame->payload);
}

void TestBroker::send_ack(int version, std::uint64_t features) {
  send_control({{"op", "hello"}, {"version", version}, {"features", features}});
}

Json TestBroker::handshake() {
  Json hello = read_hello();
  send_ack();
  return hello;
}

void TestBroker::send_raw(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd_.get(), bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

void TestBroker::send_control(const Json& doc) {
  send_raw(protocol::encode_frame(protocol::FrameType::Control, doc.dump()));
}

void TestBroker::send_input(std::uint64_t rid, std::uint32_t budget_ms, const std::string& bytes) {
  send_raw(protocol::encode_input_frame(rid, budget_ms, bytes));
}

Reply TestBroker::request(const std::string& op, Json fields) {
  const std::uint64_t rid = next_rid();
  fields["op"] = op;
  fields["rid"] = rid;
  send_control(fields);
  return await_reply(rid);
}

Reply TestBroker::await_reply(std::uint64_t rid) {
  const auto deadline = Clock::now() + kDeadline;
  while (!replies_.count(rid)) {
    auto frame = next_frame(deadline);
    if (!frame) return Reply{false, Json(), "NO_REPLY", Json()};
    absorb(*frame);
  }
  return replies_[rid];
}

Json TestBroker::await_event(const std::string& kind) {
  const auto deadline = Clock::now() + kDeadline;
  for (std::size_t seen = 0;;) {
    for (; seen < events_.size(); ++seen)
      if (events_[seen].value("kind", "") == kind) return events_[seen];
    auto frame = next_frame(deadline);
    if (!frame) return Json();
    absorb(*frame);
  }
}

bool TestBroker::await_output(const std::string& text) {
  const auto deadline = Clock::now() + kDeadline;
  while (output_.find(text) == std::string::npos) {
    auto frame = next_frame(deadline);
    if (!frame) return false;
    absorb(*frame);
  }
  return true;
}

bool TestBroker::await_disconnect() {
  const auto deadline = Clock::now() + kDeadline;
  for (;;) {
    auto frame = next_frame(deadline);
    if (!frame) return eof_;
    absorb(*frame);
  }
}

std::optional<std::string> TestBroker::state_frame(std::uint64_t rid) const {
  auto it = states_.find(rid);
  if (it == states_.end()) return std::nullopt;
  return it->second;
}

// ---- a pane ---------------------------------------------------------------

std::vector<std::string> default_env() {
  return {"PATH=/usr/local/bin:/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8"};
}

Pane::Pane()
    : host(dir.path(), dir.file("ptyhost.log")),
      broker((host.wait_ready(), host.socket_path())) {
  broker.handshake();
}

Reply Pane::spawn(const std::vector<std::string>& argv, int cols, int rows) {
  return spawn_with({{"argv", argv}, {"env", default_env()}, {"cwd", "/"}, {"cols", cols},
                     {"rows", rows}});
}

Reply Pane::spawn_with(const Json& fields) {
  Reply r = broker.request("spawn", fields);
  if (r.ok) child_pid = r.result.value("child_pid", std::int64_t{-1});
  return r;
}

}  // namespace signaltty::ptyhost::testing
