// tests/integration/process_fds_test.cpp: what every process a broker
// starts holds open, read from /proc/<pid>/fd on live processes
// (docs/architecture.md, "Who holds which descriptor"): the broker, the
// launcher, each ptyhost, each pane program (one pane spawned from inside
// the other) and a gitworker with its supervisor, caught in the middle of
// a diff. Each role has a list of what it may hold; anything else fails
// the test with its pid, role, fd number and target. Terminals are checked
// down to the PTY: a ptyhost holds its own pane's master (twice: the
// reader waits on a descriptor of its own) and no slave, a
// pane program its own pane's slave on 0-2 and nothing else, and no other
// process any terminal at all.
// Runs in: the integration test binary. With CAP_SYS_PTRACE (root) it
// reads every process; without, the broker, the launcher, the ptyhosts and
// the git supervisor (not dumpable) keep their /proc/<pid>/fd closed, and
// the test checks that it is closed and prints their rows as unread.
#include <unistd.h>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/live_processes.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using ProcessDescriptors = LiveScene;
using PtyhostStderr = PaneTest;

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif

bool under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

bool starts(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// The kernel objects a process may hold without naming a file.
bool event_object(const std::string& target) {
  for (std::string_view kind : {"anon_inode:[eventpoll]", "anon_inode:[eventfd]", "anon_inode:[timerfd]",
                                "anon_inode:[signalfd]", "anon_inode:[pidfd]", "anon_inode:inotify"})
    if (target == kind) return true;
  return starts(target, "pidfd:");  // pidfs (Linux 6.9+)
}

// What the test knows of the scene: the directories, and which PTY index
// is whose pane.
struct Scene {
  std::string root;         // the test's temporary tree (the broker's stderr file)
  std::string state_dir;
  std::string runtime_dir;
  std::string repo;
  std::map<std::string, int> pty_of;  // pane id -> PTY index
};

// Why `role` may hold `fd` -> `target`; "" when it may not.
std::string allowed(const LiveProcess& p, const OpenFd& f, const Scene& scene) {
  const std::string& t = f.target;
  const bool stdio = f.fd <= 2;
  if (p.role == kPaneProgram) {
    const auto pty = scene.pty_of.find(p.pane_id);
    const bool own = pty != scene.pty_of.end() && t == "/dev/pts/" + std::to_string(pty->second);
    return stdio && own ? "its terminal" : "";
  }
  if (t == "/dev/ptmx" || starts(t, "/dev/pts/")) return "";  // judged by the PTY check below
  if (stdio && t == "/dev/null") return "stdio on /dev/null";
  if ((p.role == kBroker || p.role == kLauncher) && stdio && under(t, scene.root))
    return "stdio the test gave it";
  if (kThreadSanitizer && p.role == kPtyhost && f.fd == 2 && under(t, scene.root))
    return "the broker's stderr (ThreadSanitizer build)";
  if (p.role == kBroker) {
    if (starts(t, "socket:[")) return "listener, client, ptyhost, launcher socket";
    if (starts(t, "pipe:[")) return "the event loop's signal pipe, a git run's pipes";
    if (event_object(t)) return "event loop, child pidfd";
    if (under(t, scene.state_dir)) return "state file";
    if (under(t, scene.runtime_dir)) return "runtime lock";
    return "";
  }
  if (p.role == kLauncher) return f.fd == 3 && starts(t, "socket:[") ? "broker channel" : "";
  if (p.role == kPtyhost) {
    if (starts(t, "socket:[")) return "pane socket, broker link";
    if (starts(t, "pipe:[")) return "the event loop's signal pipe";
    if (event_object(t)) return "event loop, child pidfd";
    if (t == scene.runtime_dir + "/signaltty/panes/broker.lock") return "the broker lock (peer check)";
    return "";
  }
  if (p.role == kGitSupervisor) {
    if (starts(t, "pipe:[")) return "status and failure pipes";
    if (event_object(t)) return "the worker's pidfd";
    return "";
  }
  if (p.role == kGitworker) {
    if (stdio && starts(t, "pipe:[")) return "request, reply, errors";
    if (t == scene.repo || under(t, scene.repo)) return "the repository";
    return "";
  }
  return "";
}

// One printed row per descriptor, and a failure per unexpected one.
void check_descriptors(const LiveProcess& p, const std::vector<OpenFd>& fds, const Scene& scene) {
  int masters = 0;
  for (const OpenFd& f : fds) {
    std::string why = allowed(p, f, scene);
    if (p.role == kPtyhost && f.target == "/dev/ptmx") {
      const int index = ptmx_index(p.pid, f.fd);
      ++masters;
      if (index == scene.pty_of.at(p.pane_id)) why = "its pane's PTY master (" + std::to_string(index) + ")";
    }
    std::cout << "  " << p.label() << "  fd " << f.fd << " -> " << f.target << "  "
              << (why.empty() ? "UNEXPECTED" : why) << "\n";
    EXPECT_FALSE(why.empty()) << "pid " << p.pid << " (" << p.role
                              << (p.pane_id.empty() ? "" : " of " + p.pane_id) << ") fd " << f.fd
                              << " -> " << f.target;
  }
  if (p.role == kPtyhost) {
    // Two descriptors of the one master, each checked above to be its own
    // pane's: the pane host's, and the reader's for the loop's readiness
    // wait (ptyhost/pty_reader.hpp).
    EXPECT_EQ(masters, 2) << p.label() << " holds " << masters << " descriptors of PTY masters";
  }
  if (p.role == kPaneProgram) {
    std::set<int> numbers;
    for (const OpenFd& f : fds) numbers.insert(f.fd);
    EXPECT_EQ(numbers, (std::set<int>{0, 1, 2})) << p.label();
  }
}

TEST_F(ProcessDescriptors, EveryProcessHoldsOnlyWhatItsRoleMay) {
  set_up_scene();
  if (IsSkipped() || HasFatalFailure()) return;
  Scene scene{dirs_.root(), dirs_.state_dir(), dirs_.runtime_dir(), repo_, {}};
  const auto procs = processes();
  for (const LiveProcess& p : procs) ASSERT_GT(p.pid, 0) << p.role << " not found";

  // Whose PTY is which: the ptyhost's master says, and where its master is
  // unreadable, the pane program's terminal.
  std::map<pid_t, std::optional<std::vector<OpenFd>>> fds;
  std::map<pid_t, int> errs;
  for (const LiveProcess& p : procs) fds[p.pid] = open_fds(p.pid, errs[p.pid]);
  for (const LiveProcess& p : procs) {
    if (!fds[p.pid]) continue;
    for (const OpenFd& f : *fds[p.pid]) {
      if (p.role == kPtyhost && f.target == "/dev/ptmx") scene.pty_of.emplace(p.pane_id, ptmx_index(p.pid, f.fd));
      if (p.role == kPaneProgram && f.fd == 0 && starts(f.target, "/dev/pts/"))
        scene.pty_of.emplace(p.pane_id, std::atoi(f.target.c_str() + 9));
    }
  }
  ASSERT_EQ(scene.pty_of.size(), 2u) << "each pane's PTY";
  ASSERT_NE(scene.pty_of[pane_a_["id"]], scene.pty_of[pane_b_["id"]]);

  std::cout << "descriptors (pane " << pane_a_["id"].get<std::string>() << ": pts "
            << scene.pty_of[pane_a_["id"]] << "; pane " << pane_b_["id"].get<std::string>()
            << ", spawned from it: pts " << scene.pty_of[pane_b_["id"]] << ")\n";
  int read = 0;
  for (const LiveProcess& p : procs) {
    if (fds[p.pid]) {
      ++read;
      check_descriptors(p, *fds[p.pid], scene);
      continue;
    }
    std::cout << "  " << p.label() << "  unread: " << std::strerror(errs[p.pid]) << "\n";
    // Only a process that is not dumpable may keep its fds from us, and
    // only from a test without CAP_SYS_PTRACE.
    EXPECT_EQ(errs[p.pid], EACCES) << p.label();
    EXPECT_EQ(dumpable(p.pid), std::optional<bool>(false)) << p.label() << " hid its fds";
  }
  std::cout << read << " of " << procs.size() << " processes read\n";
  if (can_read_undumpable()) {
    EXPECT_EQ(read, static_cast<int>(procs.size()));
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// A ptyhost's stderr is /dev/null; in the ThreadSanitizer build it is the
// broker's, so that a race report inside a ptyhost reaches the broker's
// log (docs/rules.md, "Build and layout"). The ptyhost's first log line
// shows which: it is in the broker's log exactly in that build.
TEST_F(PtyhostStderr, IsTheBrokersOnlyInTheThreadSanitizerBuild) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const Json pane = spawn(client, ws, {"/bin/sh", "-c", "echo up; exec cat"});
  const std::string id = pane["id"];
  wait_output(client, id, "up");
  const std::string line = "serving " + id;
  if (kThreadSanitizer) {
    EXPECT_TRUE(wait_until([&] { return broker().stderr_text().find(line) != std::string::npos; }))
        << broker().stderr_text();
  } else {
    EXPECT_EQ(broker().stderr_text().find(line), std::string::npos) << broker().stderr_text();
    if (::geteuid() == 0) {  // only root reads the fds of a process that is not dumpable
      char target[256] = {};
      const std::string fd2 = "/proc/" + std::to_string(pane["ptyhost_pid"].get<pid_t>()) + "/fd/2";
      ASSERT_GT(::readlink(fd2.c_str(), target, sizeof target - 1), 0) << fd2;
      EXPECT_STREQ(target, "/dev/null");
    }
  }
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::itest
