// tests/integration/live_processes.hpp: every long-lived process a broker
// of the test started, found on /proc by role (docs/architecture.md,
// "Process tree"), what each holds open, and a gitworker caught alive: a
// repository request runs until its worker shows up on /proc, which is then
// stopped (SIGSTOP) to be looked at and let go (SIGCONT).
// Runs in: the integration test binary (confinement_test.cpp,
// process_fds_test.cpp).
// Never: signals a process other than a gitworker whose command line names
// the test's own repository.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {

// What /proc/<pid>/stat says of a process.
struct ProcStat {
  std::string comm;
  char state = '?';
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
};

inline std::optional<ProcStat> proc_stat(pid_t pid) {
  const std::string stat = proc_file(pid, "stat");
  const auto open = stat.find('(');
  const auto close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size())
    return std::nullopt;
  ProcStat out;
  out.comm = stat.substr(open + 1, close - open - 1);
  std::istringstream rest(stat.substr(close + 2));
  rest >> out.state >> out.ppid >> out.pgid >> out.sid;
  return out;
}

inline std::vector<pid_t> all_pids() {
  std::vector<pid_t> out;
  std::unique_ptr<DIR, DirCloser> proc(::opendir("/proc"));
  while (const dirent* e = proc ? ::readdir(proc.get()) : nullptr) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid > 0) out.push_back(pid);
  }
  return out;
}

// The broker's child named sigtty-launcher; -1 when there is none.
inline pid_t launcher_of(pid_t broker) {
  for (pid_t pid : all_pids()) {
    auto stat = proc_stat(pid);
    if (stat && stat->comm == "sigtty-launcher" && stat->ppid == broker) return pid;
  }
  return -1;
}

// Every live process of session `sid` (a pane program leads its own).
inline std::vector<pid_t> session_members(pid_t sid) {
  std::vector<pid_t> out;
  for (pid_t pid : all_pids()) {
    auto stat = proc_stat(pid);
    if (stat && stat->sid == sid && stat->state != 'Z') out.push_back(pid);
  }
  return out;
}

// One open descriptor and what it points at.
struct OpenFd {
  int fd = -1;
  std::string target;
};

// The descriptors of `pid`; nullopt with `err` set when /proc refuses the
// listing (EACCES: a process that is not dumpable, seen without
// CAP_SYS_PTRACE).
inline std::optional<std::vector<OpenFd>> open_fds(pid_t pid, int& err) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  std::unique_ptr<DIR, DirCloser> d(::opendir(dir.c_str()));
  if (!d) {
    err = errno;
    return std::nullopt;
  }
  std::vector<OpenFd> out;
  while (const dirent* e = ::readdir(d.get())) {
    if (e->d_name[0] == '.') continue;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), buf, sizeof buf - 1);
    if (n <= 0) continue;  // closed meanwhile
    out.push_back({std::atoi(e->d_name), std::string(buf, static_cast<std::size_t>(n))});
  }
  std::sort(out.begin(), out.end(), [](const OpenFd& a, const OpenFd& b) { return a.fd < b.fd; });
  return out;
}

// The PTY index of a /dev/ptmx descriptor (fdinfo's `tty-index`), -1 when
// the kernel does not say.
inline int ptmx_index(pid_t pid, int fd) {
  std::istringstream info(proc_file(pid, "fdinfo/" + std::to_string(fd)));
  for (std::string line; std::getline(info, line);)
    if (line.rfind("tty-index:", 0) == 0) return std::atoi(line.c_str() + 10);
  return -1;
}

// While alive, the calling thread has no CAP_SYS_PTRACE in its effective
// set (capabilities are per thread); the permitted set keeps it, so the
// destructor raises it again.
class PtraceCapabilityDropped {
 public:
  PtraceCapabilityDropped() {
    if (::syscall(SYS_capget, &header_, saved_) != 0) return;
    __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
    lowered[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective &= ~CAP_TO_MASK(CAP_SYS_PTRACE);
    dropped_ = ::syscall(SYS_capset, &header_, lowered) == 0;
  }
  ~PtraceCapabilityDropped() {
    if (dropped_) ::syscall(SYS_capset, &header_, saved_);
  }
  PtraceCapabilityDropped(const PtraceCapabilityDropped&) = delete;
  PtraceCapabilityDropped& operator=(const PtraceCapabilityDropped&) = delete;

 private:
  __user_cap_header_struct header_{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct saved_[2]{};
  bool dropped_ = false;
};

// Whether this process may look into processes that are not dumpable
// (CAP_SYS_PTRACE effective: root, unless a container took it away).
inline bool can_read_undumpable() {
  const unsigned long long caps = std::strtoull(proc_status(::getpid(), "CapEff").c_str(), nullptr, 16);
  return (caps >> CAP_SYS_PTRACE) & 1;
}

// Whether `pid` (of the test's own uid) is dumpable. prctl(PR_GET_DUMPABLE)
// answers only for the caller, so this reads what /proc does with it:
// reading the link /proc/<pid>/cwd takes a PTRACE_MODE_READ_FSCREDS check
// (proc(5)), which a process of the same uid, without CAP_SYS_PTRACE
// (dropped here for the one readlink) and whose effective capabilities
// cover the target's permitted ones, passes exactly when the target is
// dumpable. For root that last condition needs the scene started without
// CAP_SYS_PTRACE in its bounding set (LiveScene does). Two witnesses that
// fail: the owner of /proc/<pid> (root for a process running as root in
// any case, and Linux 6.18 was seen keeping the process's uid on it when
// it is not dumpable), and /proc/<pid>/environ (Linux 6.18 was seen
// letting a same-uid reader open it on a process that is not dumpable).
// nullopt when the process is gone or the read failed for another reason.
inline std::optional<bool> dumpable(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/cwd";
  PtraceCapabilityDropped no_ptrace;
  char buf[PATH_MAX];
  if (::readlink(path.c_str(), buf, sizeof buf) >= 0) return true;
  if (errno == EACCES || errno == EPERM) return false;
  return std::nullopt;
}

// ---- a gitworker caught alive ---------------------------------------------------

// The worker of a repository request, stopped while it runs. let_go()
// continues it and returns the request's response.
class CaughtGitworker {
 public:
  CaughtGitworker(Client& client, Json request_id, pid_t worker, pid_t supervisor)
      : client_(&client), id_(std::move(request_id)), worker_(worker), supervisor_(supervisor) {}
  CaughtGitworker(CaughtGitworker&& other) noexcept
      : client_(other.client_), id_(std::move(other.id_)), worker_(other.worker_),
        supervisor_(other.supervisor_) {
    other.worker_ = -1;
  }
  CaughtGitworker& operator=(CaughtGitworker&&) = delete;
  ~CaughtGitworker() {
    if (worker_ > 0) ::kill(worker_, SIGCONT);
  }

  pid_t worker() const { return worker_; }
  pid_t supervisor() const { return supervisor_; }

  Json let_go(Deadline deadline = deadline_after(std::chrono::seconds(40))) {
    ::kill(worker_, SIGCONT);
    worker_ = -1;
    return client_->await_response(id_, deadline);
  }

 private:
  Client* client_;
  Json id_;
  pid_t worker_;
  pid_t supervisor_;
};

// A signaltty-gitworker (its comm is cut to 15 bytes) whose command line
// names `repo`; -1 when none runs.
inline pid_t gitworker_naming(const std::string& repo) {
  for (pid_t pid : all_pids()) {
    auto stat = proc_stat(pid);
    if (!stat || stat->comm != "signaltty-gitwo" || stat->state == 'Z') continue;
    std::string cmdline = proc_file(pid, "cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    if ((cmdline + " ").find(" " + repo + " ") != std::string::npos) return pid;
  }
  return -1;
}

// Whether a response to `id` is among `lines`.
inline bool answers(const std::vector<std::string>& lines, const Json& id) {
  for (const auto& line : lines) {
    Json message = Json::parse(line, nullptr, false);
    if (message.is_object() && message.contains("id") && message["id"] == id) return true;
  }
  return false;
}

// Sends `method` until its worker is seen on /proc and stopped, each
// request long enough (a big diff) for a scan of /proc to find it; nullopt
// if none was caught by the deadline. The stop is confirmed by /proc ('T'),
// and a worker caught before its seccomp filter is in place is let go and
// looked for again.
inline std::optional<CaughtGitworker> catch_gitworker(Client& client, std::string_view method,
                                                      const Json& params, const std::string& repo,
                                                      Deadline deadline) {
  while (Clock::now() < deadline) {
    const Json id = client.send_request(method, params);
    for (;;) {
      const pid_t worker = gitworker_naming(repo);
      if (worker > 0 && ::kill(worker, SIGSTOP) == 0) {
        const bool stopped = wait_until([worker] {
          auto stat = proc_stat(worker);
          return !stat || stat->state == 'T' || stat->state == 'Z';
        });
        auto stat = proc_stat(worker);
        // Only once it is in its sandbox: before, the dynamic loader may
        // still hold a library open.
        if (stopped && stat && stat->state == 'T' && proc_status(worker, "Seccomp") == "2")
          return CaughtGitworker(client, id, worker, stat->ppid);
        ::kill(worker, SIGCONT);  // too early, or it ended before the stop took
      }
      if (answers(client.read_available(), id) || Clock::now() >= deadline) break;
    }
  }
  return std::nullopt;
}

// ---- the scene: every kind of process at once ---------------------------------

// One process of the scene and its role. `pane_id` names the pane of a
// ptyhost or a pane program.
struct LiveProcess {
  std::string role;
  pid_t pid = -1;
  std::string pane_id;
  std::string label() const {
    return role + (pane_id.empty() ? "" : " of " + pane_id) + " [" + std::to_string(pid) + "]";
  }
};

inline constexpr const char* kBroker = "broker";
inline constexpr const char* kLauncher = "launcher";
inline constexpr const char* kPtyhost = "ptyhost";
inline constexpr const char* kPaneProgram = "pane program";
inline constexpr const char* kGitSupervisor = "git supervisor";
inline constexpr const char* kGitworker = "gitworker";

// The git CLI on PATH, "" when there is none.
inline std::string git_cli() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((dir + "/git").c_str(), X_OK) == 0) return dir + "/git";
  return {};
}

// A broker with two panes, the second spawned from inside the first by the
// CLI (so with the first pane's token: its child), and a gitworker caught
// in the middle of a large diff of the workspace's repository. processes()
// lists them all by role.
class LiveScene : public PaneTest {
 protected:
  // Lines of the file whose diff keeps a worker busy long enough to be seen.
  static constexpr int kDiffLines = 120000;

  void TearDown() override {
    if (worker_) worker_->let_go();
    worker_.reset();
    PaneTest::TearDown();
  }

  void set_up_scene() {
    const std::string git = git_cli();
    if (git.empty()) GTEST_SKIP() << "no git CLI on PATH";
    // Root's processes would otherwise hold CAP_SYS_PTRACE in their
    // permitted set, which no reader without it may look at, dumpable or
    // not (see dumpable()). This process keeps it in its own sets; a user
    // without CAP_SETPCAP has nothing to drop and fails harmlessly.
    ::prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0);
    repo_ = make_repo(git);
    start();
    client_.emplace(connect());
    const std::string ws = client_->call("workspace.create", {{"cwd", repo_}})["workspace"]["id"];
    // The CLI inside pane A acts with A's token: the new pane is A's child.
    const std::string spawn_b = "'" + program_path("signaltty") +
                                "' pane split \"$SIGNALTTY_PANE\" cat >/dev/null; echo spawned-$?; exec cat";
    pane_a_ = spawn(*client_, ws, {"/bin/sh", "-c", spawn_b});
    wait_output(*client_, pane_a_["id"], "spawned-");
    const std::string screen =
        client_->call("pane.read", {{"pane_id", pane_a_["id"]}, {"mode", "screen"}}).dump();
    ASSERT_NE(screen.find("spawned-0"), std::string::npos) << "the CLI in pane A: " << screen;
    const Json panes = client_->call("workspace.get", {{"workspace_id", ws}})["panes"];
    for (const Json& pane : panes)
      if (pane.contains("parent_pane_id") && pane["parent_pane_id"] == pane_a_["id"]) pane_b_ = pane;
    ASSERT_TRUE(pane_b_.is_object()) << "no pane with pane " << pane_a_["id"] << " as its parent: "
                                     << panes.dump();
    ASSERT_TRUE(wait_until([&] { return session_members(pane_pid(pane_a_)).size() == 1; }))
        << "pane A's shell did not settle into cat";
    auto caught = catch_gitworker(*client_, "workspace.diff", {{"workspace_id", ws}}, repo_,
                                  deadline_after(std::chrono::seconds(60)));
    if (caught) worker_.emplace(std::move(*caught));
    ASSERT_TRUE(worker_.has_value()) << "no gitworker was caught alive within 60 s";
  }

  static pid_t pane_pid(const Json& pane) { return pane["pid"].get<pid_t>(); }

  std::vector<LiveProcess> processes() const {
    std::vector<LiveProcess> out{{kBroker, broker_->pid(), ""},
                                 {kLauncher, launcher_of(broker_->pid()), ""}};
    for (const Json* pane : {&pane_a_, &pane_b_}) {
      const std::string id = (*pane)["id"];
      out.push_back({kPtyhost, (*pane)["ptyhost_pid"].get<pid_t>(), id});
      for (pid_t member : session_members(pane_pid(*pane))) out.push_back({kPaneProgram, member, id});
    }
    if (worker_) {
      out.push_back({kGitSupervisor, worker_->supervisor(), ""});
      out.push_back({kGitworker, worker_->worker(), ""});
    }
    return out;
  }

  std::string repo_;
  Json pane_a_, pane_b_;
  std::optional<Client> client_;
  std::optional<CaughtGitworker> worker_;

 private:
  // A repository with one committed file of kDiffLines lines, every other
  // one changed in the checkout: a diff libgit2 takes a while over.
  std::string make_repo(const std::string& git) {
    const std::string dir = dirs_.scratch("repo");
    std::filesystem::create_directories(dir);
    auto run_git = [&](std::vector<std::string> args) {
      args.insert(args.begin(), {git, "-C", dir});
      RunResult run = run_program(dirs_, args,
                                  {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dirs_.home(),
                                   "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                                   "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.invalid",
                                   "GIT_COMMITTER_NAME=Test",
                                   "GIT_COMMITTER_EMAIL=test@example.invalid", "LC_ALL=C"},
                                  {}, deadline_after(std::chrono::seconds(60)));
      if (run.status.code != 0) throw HarnessError("git " + args[3] + ": " + run.err);
    };
    std::string before, after;
    for (int i = 0; i < kDiffLines; ++i) {
      before += "line " + std::to_string(i) + "\n";
      after += (i % 2 ? "changed " : "line ") + std::to_string(i) + "\n";
    }
    run_git({"init", "-q", "-b", "main", "."});
    write_text_file(dir + "/big.txt", before);
    run_git({"add", "-A"});
    run_git({"commit", "-q", "-m", "big"});
    write_text_file(dir + "/big.txt", after);
    return std::filesystem::canonical(dir).string();
  }
};

}  // namespace signaltty::itest
