// tests/ptyhost/ptyhost_harness.hpp: what the ptyhost process tests share:
// a temporary 0700 socket dir, a signaltty-ptyhost started in its own
// session (and killed only by its pid), and a test broker speaking frames.
// Runs in: the ptyhost process tests. Never: sleeps; every wait is a poll
// with a deadline.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/protocol/frame.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::ptyhost::testing {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer's ptyhost moves output about ten times slower: the 20 MB
// of the hostile-output test alone take 13 s there.
inline constexpr std::chrono::seconds kDeadline{60};
#else
inline constexpr std::chrono::seconds kDeadline{15};
#endif

// mkdtemp (0700), removed with its contents at the end. The test process
// holds the directory's broker lock (common/protocol/ptyhost_handshake.hpp)
// for the directory's life: it is the broker its ptyhosts accept.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  UniqueFd broker_lock_;
};

// Waits up to `deadline` for `pid` (any process) to end, via a pidfd.
bool wait_process_gone(pid_t pid, Clock::time_point deadline);
bool process_alive(pid_t pid);
// Waits through inotify on the file's directory until `path` exists (true),
// the deadline passes, or `keep_waiting` (checked on each wake-up) says no.
bool wait_file(const std::string& path, Clock::time_point deadline,
               const std::function<bool()>& keep_waiting = [] { return true; });
// "Key:\tvalue" of /proc/<pid>/status.
std::string proc_status_field(pid_t pid, const std::string& key);

class PtyhostProcess {
 public:
  // Starts signaltty-ptyhost --pane <new id> --dir <dir>; its stderr goes
  // to log_path when one is given.
  PtyhostProcess(const std::string& dir, const std::string& log_path);
  ~PtyhostProcess();
  pid_t pid() const { return pid_; }
  const std::string& pane_id() const { return pane_id_; }
  std::string socket_path() const { return dir_ + "/" + pane_id_ + ".sock"; }
  // Blocks until the socket is published (or the process died).
  bool wait_ready();
  // The exit status (waitpid form) once the process ends before deadline.
  std::optional<int> wait_exit(Clock::time_point deadline);

 private:
  std::string dir_;
  std::string pane_id_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

struct Reply {
  bool ok = false;
  Json result;
  std::string code;  // error code when !ok
  Json details;
};

// Speaks the broker's side. Collects Output frames (checking that each
// continues exactly where the previous ended), Events and State frames while
// it waits for what a test asks for.
class TestBroker {
 public:
  explicit TestBroker(const std::string& socket_path);
  bool connected() const { return fd_.valid(); }
  // Closes our end, as a broker that goes away.
  void disconnect() { fd_.reset(); }
  // The ptyhost's first frame.
  Json read_hello();
  void send_ack(int version = 1, std::uint64_t features = 1);
  // read_hello + send_ack.
  Json handshake();

  void send_control(const Json& doc);
  void send_raw(const std::string& bytes);
  void send_input(std::uint64_t rid, std::uint32_t budget_ms, const std::string& bytes);
  std::uint64_t next_rid() { return ++rid_; }

  // Sends {op, rid, ...fields} and waits for its Reply.
  Reply request(const std::string& op, Json fields = Json::object());
  Reply await_reply(std::uint64_t rid);
  Json await_event(const std::string& kind);
  // Waits until the streamed output contains `text`.
  bool await_output(const std::string& text);
  // True once the ptyhost closed the connection (EOF) before the deadline.
  bool await_disconnect();

  const std::string& output() const { return output_; }
  std::uint64_t last_end_offset() const { return last_end_; }
  bool offsets_contiguous() const { return contiguous_; }
  std::optional<std::uint64_t> first_output_start() const { return first_start_; }
  const std::vector<Json>& events() const { return events_; }
  std::optional<std::string> state_frame(std::uint64_t rid) const;
  // Order in which frames arrived: "state:<rid>", "reply:<rid>", "output".
  const std::vector<std::string>& arrivals() const { return arrivals_; }

 private:
  // One frame, or nullopt at EOF/deadline.
  std::optional<protocol::Frame> next_frame(Clock::time_point deadline);
  void absorb(const protocol::Frame& frame);

  UniqueFd fd_;
  protocol::FrameReader reader_;
  bool eof_ = false;
  std::uint64_t rid_ = 0;
  std::map<std::uint64_t, Reply> replies_;
  std::map<std::uint64_t, std::string> states_;
  std::vector<Json> events_;
  std::vector<std::string> arrivals_;
  std::string output_;
  std::optional<std::uint64_t> first_start_;
  std::uint64_t last_end_ = 0;
  bool contiguous_ = true;
};

// A pane with a live ptyhost and a handshaken broker, for one test.
struct Pane {
  TempDir dir;
  PtyhostProcess host;
  TestBroker broker;
  Pane();
  // Spawns argv with the default environment (PATH, TERM, LANG).
  Reply spawn(const std::vector<std::string>& argv, int cols = 80, int rows = 24);
  Reply spawn_with(const Json& fields);
  std::int64_t child_pid = -1;
};

std::vector<std::string> default_env();

}  // namespace signaltty::ptyhost::testing
