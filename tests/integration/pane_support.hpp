// tests/integration/pane_support.hpp: what the pane and survival tests
// share: a fixture that also removes the ptyhosts and pane programs its
// brokers started (they live in sessions of their own, outside the
// broker's process group), and small helpers over the pane methods.
// Runs in: the integration test binary.
// Never: signals a process this test did not start: only processes whose
// command line names this test's runtime dir (ptyhosts) or whose
// environment names this test's socket (pane programs and their children).
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/base64.hpp"
#include "tests/integration/harness.hpp"

namespace signaltty::itest {

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

// A listening Unix socket at `path`, for a stand-in ptyhost.
inline UniqueFd listen_unix_socket(const std::string& path) {
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (!listener || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener.get(), 4) != 0)
    throw HarnessError("fake ptyhost: bind/listen failed");
  return listener;
}

// Empty when the process is gone, even mid-read: /proc read(2)s then fail
// with ESRCH, which std::ifstream turns into an exception.
inline std::string proc_file(pid_t pid, const std::string& name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) out.clear();
    break;
  }
  ::close(fd);
  return out;
}

inline bool pid_alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const std::string stat = proc_file(pid, "stat");
  const auto close = stat.rfind(')');
  return close == std::string::npos || stat.size() < close + 3 || stat[close + 2] != 'Z';
}

// A field of /proc/<pid>/status ("PPid", ...), trimmed.
inline std::string proc_status(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::string v = line.substr(key.size() + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  }
  return {};
}

// The result of a call that may take longer than a quick step.
inline Json call_within(Client& client, std::string_view method, const Json& params,
                        Deadline deadline) {
  Json response = client.request(method, params, deadline);
  if (!is_ok(response))
    throw HarnessError(std::string(method) + " " + params.dump() + " failed: " + response.dump());
  return response["result"];
}

inline bool wait_until(const std::function<bool()>& done, Deadline deadline = deadline_after()) {
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    // Polling /proc and files has no event to wait on; a short poll(2) pause.
    ::poll(nullptr, 0, 10);
  }
  return true;
}

inline bool wait_gone(pid_t pid, Deadline deadline = deadline_after()) {
  return wait_until([pid] { return !pid_alive(pid); }, deadline);
}

class PaneTest : public BrokerTest {
 protected:
  void TearDown() override {
    BrokerTest::TearDown();
    kill_leftovers();
  }

  // Every process of ours that a broker of this test started.
  std::vector<pid_t> leftovers() const {
    std::vector<pid_t> out;
    const std::string runtime = dirs_.runtime_dir();
    const std::string socket_env = "SIGNALTTY_SOCKET=" + dirs_.socket_path();
    std::unique_ptr<DIR, DirCloser> proc(::opendir("/proc"));
    while (const dirent* e = proc ? ::readdir(proc.get()) : nullptr) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0 || pid == ::getpid()) continue;
      const std::string cmdline = proc_file(pid, "cmdline");
      const std::string environ = proc_file(pid, "environ");
      const bool ptyhost = cmdline.find("signaltty-ptyhost") != std::string::npos &&
                           cmdline.find(runtime) != std::string::npos;
      const bool program = environ.find(socket_env + '\0') != std::string::npos ||
                           (environ.size() >= socket_env.size() &&
                            environ.compare(environ.size() - socket_env.size(), socket_env.size(),
                                            socket_env) == 0);
      if ((ptyhost || program) && pid_alive(pid)) out.push_back(pid);
    }
    return out;
  }

  void kill_leftovers() {
    for (int round = 0; round < 50; ++round) {
      auto pids = leftovers();
      if (pids.empty()) return;
      for (pid_t pid : pids) ::kill(pid, SIGKILL);
      for (pid_t pid : pids) wait_gone(pid, deadline_after(std::chrono::seconds(2)));
    }
  }

  Json make_workspace(Client& client, const std::string& name = "w") {
    return client.call("workspace.create", {{"name", name}, {"cwd", dirs_.home()}})["workspace"];
  }
  Json spawn(Client& client, const std::string& workspace_id, const std::vector<std::string>& argv,
             Json extra = Json::object()) {
    extra["workspace_id"] = workspace_id;
    extra["argv"] = argv;
    return client.call("pane.spawn", extra)["pane"];
  }
  // A shell loop that prints `line-<n>` every `period` seconds, forever.
  static std::vector<std::string> counter_argv(const std::string& period = "0.02") {
    return {"/bin/sh", "-c", "i=0; while :; do i=$((i+1)); echo line-$i; sleep " + period + "; done"};
  }
  Json wait_output(Client& client, const std::string& pane_id, const std::string& match,
                   Json extra = Json::object(), std::chrono::seconds timeout = kStepTimeout) {
    extra["pane_id"] = pane_id;
    extra["match"] = match;
    extra["timeout_s"] = timeout.count();
    return call_within(client, "pane.wait_for_output", extra,
                       deadline_after(timeout + std::chrono::seconds(5)));
  }
  Json get_pane(Client& client, const std::string& pane_id) {
    return client.call("pane.get", {{"pane_id", pane_id}})["pane"];
  }
  void input(Client& client, const std::string& pane_id, const std::string& text) {
    client.call("pane.input", {{"pane_id", pane_id}, {"data_b64", base64_encode(text)}});
  }
};

}  // namespace signaltty::itest
