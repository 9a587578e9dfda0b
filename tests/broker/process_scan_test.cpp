// tests/broker/process_scan_test.cpp: broker/agents/process_scan: the
// process table, one process's details and the program a pane shows, read
// from trees of real processes the tests start, and from a made-up proc
// root for stat lines, cmdlines and parent links no kernel would write.
// Runs in: the broker unit tests (forks shells, sleeps and a python script;
// each test kills what it started, by pid and process group).
#include "broker/agents/process_scan.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker::agents {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;
using signaltty::broker::testing::TempDir;
using Argv = std::vector<std::string>;

// How long a tree we started may take to show in /proc.
constexpr auto kVisibleDeadline = std::chrono::seconds(10);
constexpr auto kPollInterval = std::chrono::milliseconds(2);
// Bounds the descendant search of a test tree.
constexpr std::size_t kTestTreeMaxProcesses = 64;

// `found` until it yields a value, or nullopt at the deadline.
template <typename Found>
auto poll_until(Found found) -> decltype(found()) {
  const auto deadline = std::chrono::steady_clock::now() + kVisibleDeadline;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto value = found()) return value;
    std::this_thread::sleep_for(kPollInterval);
  }
  return found();
}

// `root` and every process below it in one snapshot, parents first.
std::vector<pid_t> tree_of(const ProcessTable& table, pid_t root) {
  std::vector<pid_t> tree;
  std::deque<pid_t> pending{root};
  while (!pending.empty() && tree.size() < kTestTreeMaxProcesses) {
    pid_t pid = pending.front();
    pending.pop_front();
    tree.push_back(pid);
    for (pid_t child : table.children_of(pid)) pending.push_back(child);
  }
  return tree;
}

// The first process at or below `root` that `matches`, polled for.
std::optional<ProcessInfo> wait_for_process(
    pid_t root, const std::function<bool(const ProcessInfo&)>& matches) {
  return poll_until([&]() -> std::optional<ProcessInfo> {
    for (pid_t pid : tree_of(ProcessTable::read(), root)) {
      auto info = read_process(pid);
      if (info && matches(*info)) return info;
    }
    return std::nullopt;
  });
}

std::function<bool(const ProcessInfo&)> runs(const Argv& argv) {
  return [argv](const ProcessInfo& info) { return info.argv == argv; };
}

// A process the test forks as the leader of its own group, in `cwd` when
// given. It owns what it started: the end of the test SIGKILLs the tree
// (processes that left the group by setsid too), then reaps the leader.
class Spawned {
 public:
  explicit Spawned(const Argv& argv, const std::string& cwd = {}) {
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(126);
      if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    EXPECT_GT(pid_, 0) << "fork";
  }
  ~Spawned() {
    if (pid_ <= 0 || reaped_) return;
    for (pid_t pid : tree_of(ProcessTable::read(), pid_)) ::kill(pid, SIGKILL);
    ::kill(-pid_, SIGKILL);
    reap();
  }
  Spawned(const Spawned&) = delete;
  Spawned& operator=(const Spawned&) = delete;

  pid_t pid() const { return pid_; }
  // Waits for the leader to exit, and reaps it.
  void reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// A copy of a system binary under a name of the test's choosing.
std::string copy_binary(const TempDir& dir, const std::string& from, const std::string& name) {
  const std::string to = dir.file(name);
  stdfs::copy_file(from, to);
  stdfs::permissions(to, stdfs::perms::owner_all);
  return to;
}

// Clock ticks since boot, the unit of a stat start_time.
std::uint64_t ticks_since_boot() {
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  const auto ticks_per_second = static_cast<std::uint64_t>(::sysconf(_SC_CLK_TCK));
  return static_cast<std::uint64_t>(now.tv_sec) * ticks_per_second +
         static_cast<std::uint64_t>(now.tv_nsec) * ticks_per_second / 1'000'000'000u;
}

// ----- real processes -----

TEST(ProcessScan, ShellThatExecsIsNamedAfterTheProgram) {
  Spawned shell({"/bin/sh", "-c", "exec sleep 100"});
  ASSERT_TRUE(wait_for_process(shell.pid(), runs({"sleep", "100"})));
  auto shown = foreground_program(ProcessTable::read(), shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, shell.pid());
  EXPECT_EQ(shown->program, "sleep");
}

TEST(ProcessScan, ShellWaitingOnAChildIsNamedAfterTheChild) {
  Spawned shell({"/bin/sh", "-c", "sleep 100; true"});
  auto sleep = wait_for_process(shell.pid(), runs({"sleep", "100"}));
  ASSERT_TRUE(sleep);
  ASSERT_NE(sleep->pid, shell.pid());
  auto shown = foreground_program(ProcessTable::read(), shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, sleep->pid);
  EXPECT_EQ(shown->program, "sleep");
  EXPECT_EQ(shown->start_time, sleep->start_time);
}

TEST(ProcessScan, WalksThroughNestedShells) {
  Spawned shell({"/bin/bash", "-c", "/bin/bash -c 'sleep 101; true'; true"});
  auto sleep = wait_for_process(shell.pid(), runs({"sleep", "101"}));
  ASSERT_TRUE(sleep);
  auto table = ProcessTable::read();
  ASSERT_EQ(tree_of(table, shell.pid()).size(), 3u);  // bash → bash → sleep
  auto shown = foreground_program(table, shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, sleep->pid);
  EXPECT_EQ(shown->program, "sleep");
}

TEST(ProcessScan, WalksThroughWrappers) {
  Spawned shell({"/bin/sh", "-c", "nice timeout 100 sleep 99; true"});
  auto sleep = wait_for_process(shell.pid(), runs({"sleep", "99"}));
  ASSERT_TRUE(sleep);
  auto shown = foreground_program(ProcessTable::read(), shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, sleep->pid);
  EXPECT_EQ(shown->program, "sleep");
}

TEST(ProcessScan, RuntimeIsNamedAfterItsScript) {
  const std::string python = "/usr/bin/python3";
  if (!stdfs::exists(python)) GTEST_SKIP() << "no " << python;
  TempDir dir("signaltty-scan");
  const std::string script = dir.file("claude.py");
  std::ofstream(script) << "import time\ntime.sleep(100)\n";
  Spawned shell({"/bin/sh", "-c", python + " " + script + "; true"});
  auto runtime = wait_for_process(shell.pid(), runs({python, script}));
  ASSERT_TRUE(runtime);
  auto shown = foreground_program(ProcessTable::read(), shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, runtime->pid);
  EXPECT_EQ(shown->program, "claude");
}

TEST(ProcessScan, DoesNotDescendIntoAnAgentsOwnChildren) {
  TempDir dir("signaltty-scan");
  // A shell binary, but named like an agent: by name it is a program.
  const std::string codex = copy_binary(dir, "/bin/sh", "codex");
  Spawned shell({"/bin/sh", "-c", codex + " -c 'sleep 102; true'; true"});
  ASSERT_TRUE(wait_for_process(shell.pid(), runs({"sleep", "102"})));
  auto shown = foreground_program(ProcessTable::read(), shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->program, "codex");
  EXPECT_EQ(shown->argv, (Argv{codex, "-c", "sleep 102; true"}));
}

TEST(ProcessScan, PrefersTheChildInTheForegroundGroup) {
  TempDir dir("signaltty-scan");
  const std::string go = dir.file("go");
  ASSERT_EQ(::mkfifo(go.c_str(), 0600), 0);
  // The foreground child starts first; the second leaves the group.
  Spawned shell({"/bin/sh", "-c", "sleep 100 & read x < " + go + "; setsid sleep 99 & wait"});
  auto foreground = wait_for_process(shell.pid(), runs({"sleep", "100"}));
  ASSERT_TRUE(foreground);
  // So "newest" is unambiguous, the second starts at least a tick later.
  ASSERT_TRUE(poll_until([&] { return ticks_since_boot() > foreground->start_time + 1; }));
  std::ofstream(go) << "\n";
  auto background = wait_for_process(shell.pid(), runs({"sleep", "99"}));
  ASSERT_TRUE(background);

  auto table = ProcessTable::read();
  ASSERT_EQ(table.children_of(shell.pid()), (std::vector<pid_t>{foreground->pid, background->pid}));
  ASSERT_NE(table.find(background->pid)->pgid, shell.pid());
  EXPECT_EQ(foreground_program(table, shell.pid())->pid, background->pid);  // newest
  EXPECT_EQ(foreground_program(table, shell.pid(), shell.pid())->pid, foreground->pid);
  EXPECT_EQ(foreground_program(table, shell.pid(), table.find(background->pid)->pgid)->pid,
            background->pid);
}

TEST(ProcessScan, ShellInTheForegroundWithOnlyBackgroundJobsIsShown) {
  Spawned shell({"/bin/sh", "-c", "setsid sleep 98 & wait"});
  auto background = wait_for_process(shell.pid(), runs({"sleep", "98"}));
  ASSERT_TRUE(background);
  auto table = ProcessTable::read();
  ASSERT_NE(table.find(background->pid)->pgid, shell.pid());
  auto at_prompt = foreground_program(table, shell.pid(), shell.pid());
  ASSERT_TRUE(at_prompt);
  EXPECT_EQ(at_prompt->pid, shell.pid());
  EXPECT_EQ(at_prompt->program, "sh");
  EXPECT_EQ(foreground_program(table, shell.pid())->pid, background->pid);
}

TEST(ProcessScan, CwdFollowsACd) {
  TempDir dir("signaltty-scan");
  stdfs::create_directory(dir.file("sub dir"));
  Spawned shell({"/bin/sh", "-c", "cd 'sub dir' && exec sleep 100"}, dir.path());
  ASSERT_TRUE(wait_for_process(shell.pid(), runs({"sleep", "100"})));
  auto shown = foreground_program(ProcessTable::read(), shell.pid());
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->cwd, stdfs::canonical(dir.file("sub dir")).string());
}

TEST(ProcessScan, DeletedCwdIsUnknown) {
  TempDir dir("signaltty-scan");
  const std::string gone = dir.file("gone");
  stdfs::create_directory(gone);
  Spawned sleep({"/bin/sleep", "100"}, gone);
  auto before = wait_for_process(sleep.pid(), runs({"/bin/sleep", "100"}));
  ASSERT_TRUE(before);
  EXPECT_EQ(before->cwd, stdfs::canonical(gone).string());
  stdfs::remove(gone);
  auto after = read_process(sleep.pid());
  ASSERT_TRUE(after);
  EXPECT_EQ(after->cwd, std::nullopt);
  EXPECT_EQ(after->program, "sleep");
}

TEST(ProcessScan, RootThatExitedIsGone) {
  Spawned zombie({"/bin/true"});
  // Not reaped yet: a zombie has exited, so the pane shows nothing.
  ASSERT_TRUE(poll_until([&] {
    const ProcessTable table = ProcessTable::read();  // find() points into it
    const ProcessStat* stat = table.find(zombie.pid());
    return stat != nullptr && stat->exited();
  }));
  EXPECT_EQ(foreground_program(ProcessTable::read(), zombie.pid()), std::nullopt);
  auto table_before_reap = ProcessTable::read();
  zombie.reap();
  EXPECT_EQ(read_process(zombie.pid()), std::nullopt);
  EXPECT_EQ(ProcessTable::read().find(zombie.pid()), nullptr);
  EXPECT_EQ(foreground_program(table_before_reap, zombie.pid()), std::nullopt);
}

TEST(ProcessScan, CommWithSpacesAndParentheses) {
  TempDir dir("signaltty-scan");
  const std::string odd = copy_binary(dir, "/bin/sleep", "a (b) c)");
  Spawned sleep({odd, "100"});
  auto info = wait_for_process(sleep.pid(), runs({odd, "100"}));
  ASSERT_TRUE(info);
  auto table = ProcessTable::read();
  const ProcessStat* stat = table.find(sleep.pid());
  ASSERT_NE(stat, nullptr);
  EXPECT_EQ(stat->comm, "a (b) c)");
  EXPECT_EQ(stat->ppid, ::getpid());
  EXPECT_EQ(stat->pgid, sleep.pid());
  EXPECT_EQ(stat->start_time, info->start_time);
  EXPECT_EQ(info->program, "a (b) c)");
  EXPECT_NE(table.find(::getpid()), nullptr);
  EXPECT_GT(table.size(), 2u);
}

TEST(ProcessScan, AnotherUsersCwdIsUnknownButItsProgramIsRead) {
  constexpr pid_t kInit = 1;
  struct stat owner {};
  if (::geteuid() == 0 || ::stat(("/proc/" + std::to_string(kInit)).c_str(), &owner) != 0 ||
      owner.st_uid == ::geteuid())
    GTEST_SKIP() << "needs an ordinary user and an init owned by another";
  auto init = read_process(kInit);
  ASSERT_TRUE(init);
  EXPECT_FALSE(init->program.empty());
  EXPECT_EQ(init->cwd, std::nullopt);  // EACCES
}

// ----- names -----

TEST(ProcessScan, ShellsWrappersAndPrograms) {
  EXPECT_EQ(transparency_of({"/bin/bash", "-l"}), Transparency::Shell);
  EXPECT_EQ(transparency_of({"-zsh"}), Transparency::Shell);  // a login shell
  EXPECT_EQ(transparency_of({"busybox", "sh"}), Transparency::Shell);
  EXPECT_EQ(transparency_of({"python3", "/usr/bin/xonsh"}), Transparency::Shell);
  EXPECT_EQ(transparency_of({"sudo", "-u", "me", "claude"}), Transparency::Wrapper);
  EXPECT_EQ(transparency_of({"node", "/usr/bin/npx", "@openai/codex"}), Transparency::Wrapper);
  EXPECT_EQ(transparency_of({"node", "/usr/bin/npm", "exec", "codex"}), Transparency::Wrapper);
  EXPECT_EQ(transparency_of({"pnpm", "dlx", "codex"}), Transparency::Wrapper);
  EXPECT_EQ(transparency_of({"node", "/usr/bin/npm", "test"}), Transparency::Program);
  EXPECT_EQ(transparency_of({"busybox", "ls"}), Transparency::Program);
  EXPECT_EQ(transparency_of({"claude"}), Transparency::Program);
  EXPECT_EQ(transparency_of({"/opt/bin/codex", "-c", "x"}), Transparency::Program);
  EXPECT_EQ(transparency_of({}), Transparency::Program);
}

TEST(ProcessScan, ParsesStatFromTheLastParenthesis) {
  auto stat = parse_stat(
      "4242 (a) b (c) S 1 4242 4242 34816 4300 4194560 98 0 0 0 1 0 0 0 20 0 1 0 123456 "
      "5763072 204 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->comm, "a) b (c");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->pgid, 4242);
  EXPECT_EQ(stat->tty_pgid, 4300);
  EXPECT_EQ(stat->start_time, 123456u);
}

TEST(ProcessScan, MalformedStatIsRefused) {
  const std::string tail = " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7";
  EXPECT_TRUE(parse_stat("9 (x) S 1 9" + tail));
  EXPECT_FALSE(parse_stat(""));
  EXPECT_FALSE(parse_stat("garbage"));
  EXPECT_FALSE(parse_stat("9 (x S 1 9" + tail));                               // no ')'
  EXPECT_FALSE(parse_stat("9 x) S 1 9" + tail));                               // no '('
  EXPECT_FALSE(parse_stat("9 (x) S 1 9 0 0 0"));                               // cut short
  EXPECT_FALSE(parse_stat("-9 (x) S 1 9" + tail));                             // pid
  EXPECT_FALSE(parse_stat("9 (x) SS 1 9" + tail));                             // state
  EXPECT_FALSE(parse_stat("9 (x) S one 9" + tail));                            // ppid
  EXPECT_FALSE(parse_stat("99999999999 (x) S 1 9" + tail));                    // pid overflow
  EXPECT_FALSE(parse_stat("9 (x) S 1 9" + tail + "99999999999999999999999"));  // start_time
  auto long_comm = parse_stat("9 (" + std::string(1000, 'c') + ") S 1 9" + tail);
  ASSERT_TRUE(long_comm);
  EXPECT_EQ(long_comm->comm.size(), kCommMaxBytes);
}

// ----- a made-up proc root -----

struct FakeProcess {
  pid_t pid;
  pid_t ppid;
  std::string cmdline;  // NUL-separated
  std::uint64_t start_time = 100;
  pid_t pgid = 0;  // 0: its own pid
};

// A directory laid out as /proc for the processes a test makes up.
class FakeProc {
 public:
  FakeProc() : dir_("signaltty-fake-proc") {}

  const std::string& root() const { return dir_.path(); }
  std::string pid_dir(pid_t pid) const { return dir_.file(std::to_string(pid)); }

  void add(const FakeProcess& p) {
    const std::string comm = p.cmdline.substr(0, p.cmdline.find('\0')).substr(0, 15);
    write(p.pid, "stat",
          std::to_string(p.pid) + " (" + comm + ") S " + std::to_string(p.ppid) + " " +
              std::to_string(p.pgid == 0 ? p.pid : p.pgid) + " 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " +
              std::to_string(p.start_time) + " 0 0\n");
    write(p.pid, "cmdline", p.cmdline);
  }
  void write(pid_t pid, const std::string& name, const std::string& contents) {
    stdfs::create_directories(pid_dir(pid));
    std::ofstream(pid_dir(pid) + "/" + name, std::ios::binary) << contents;
  }
  void link(pid_t pid, const std::string& name, const std::string& target) {
    stdfs::create_directories(pid_dir(pid));
    stdfs::create_symlink(target, pid_dir(pid) + "/" + name);
  }

 private:
  TempDir dir_;
};

TEST(ProcessScan, MalformedEntriesAreLeftOutOfTheTable) {
  FakeProc proc;
  proc.add({.pid = 10, .ppid = 1, .cmdline = std::string("sh\0", 3)});
  proc.write(11, "stat", "garbage");
  proc.write(12, "stat", "");
  proc.write(13, "stat", "14 (x) S 1 14 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7\n");  // not 13
  proc.write(
      14, "stat",
      "14 (" + std::string(kStatMaxBytes, 'x') + ") S 1 14 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7\n");
  stdfs::create_directories(proc.root() + "/15");  // no stat
  stdfs::create_directory_symlink("10", proc.root() + "/16");
  stdfs::create_directory_symlink("10", proc.root() + "/self");
  stdfs::create_directories(proc.root() + "/0");
  stdfs::create_directories(proc.root() + "/1x");
  proc.link(17, "stat", "../10/stat");  // a stat that is a symlink

  auto table = ProcessTable::read(proc.root());
  EXPECT_EQ(table.size(), 1u);
  ASSERT_NE(table.find(10), nullptr);
  EXPECT_EQ(table.find(10)->comm, "sh");
  EXPECT_EQ(table.children_of(1), (std::vector<pid_t>{10}));
  EXPECT_EQ(read_process(16, proc.root()), std::nullopt);
  EXPECT_EQ(read_process(17, proc.root()), std::nullopt);
  EXPECT_EQ(ProcessTable::read(proc.root() + "/missing").size(), 0u);
}

TEST(ProcessScan, HugeCmdlineIsCut) {
  FakeProc proc;
  std::string many_args;
  while (many_args.size() < (1u << 20)) many_args += std::string("node\0", 5);
  proc.add({.pid = 20, .ppid = 1, .cmdline = many_args});
  proc.add({.pid = 21, .ppid = 1, .cmdline = std::string(1u << 20, 'z')});

  auto many = read_process(20, proc.root());
  ASSERT_TRUE(many);
  EXPECT_EQ(many->argv.size(), kCmdlineMaxArgs);
  auto one_long = read_process(21, proc.root());
  ASSERT_TRUE(one_long);
  EXPECT_TRUE(one_long->argv.empty());                 // cut mid-argument: nothing half
  EXPECT_EQ(one_long->program, std::string(15, 'z'));  // comm
}

TEST(ProcessScan, CwdMustBeAnAbsoluteLivePath) {
  FakeProc proc;
  for (pid_t pid : {30, 31, 32, 33}) proc.add({.pid = pid, .ppid = 1, .cmdline = "x"});
  proc.link(30, "cwd", "/home/me/project");
  proc.link(31, "cwd", "/home/me/old (deleted)");
  proc.link(32, "cwd", "relative");
  EXPECT_EQ(read_process(30, proc.root())->cwd, "/home/me/project");
  EXPECT_EQ(read_process(31, proc.root())->cwd, std::nullopt);
  EXPECT_EQ(read_process(32, proc.root())->cwd, std::nullopt);
  EXPECT_EQ(read_process(33, proc.root())->cwd, std::nullopt);  // unreadable
}

TEST(ProcessScan, RuntimeChildOfAShellIsNamedAfterItsScript) {
  FakeProc proc;
  proc.add({.pid = 40, .ppid = 1, .cmdline = std::string("-bash\0", 6)});
  proc.add({.pid = 41, .ppid = 40, .cmdline = std::string("node\0/usr/lib/x/claude.js\0", 27)});
  auto shown = foreground_program(ProcessTable::read(proc.root()), 40);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, 41);
  EXPECT_EQ(shown->program, "claude");
  EXPECT_EQ(read_process(40, proc.root())->program, "bash");
}

TEST(ProcessScan, ParentCycleEndsTheWalk) {
  FakeProc proc;
  proc.add({.pid = 50, .ppid = 51, .cmdline = "sh"});
  proc.add({.pid = 51, .ppid = 50, .cmdline = "sh"});
  auto table = ProcessTable::read(proc.root());
  auto shown = foreground_program(table, 50);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->program, "sh");
}

TEST(ProcessScan, DeepShellChainStopsAtTheDepthCap) {
  FakeProc proc;
  constexpr pid_t kFirst = 100;
  for (pid_t pid = kFirst; pid < kFirst + 3 * kMaxProcessWalkDepth; ++pid)
    proc.add({.pid = pid, .ppid = pid == kFirst ? 1 : pid - 1, .cmdline = "bash"});
  auto shown = foreground_program(ProcessTable::read(proc.root()), kFirst);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, kFirst + kMaxProcessWalkDepth);
}

TEST(ProcessScan, ChildOlderThanItsParentIsAReusedPid) {
  FakeProc proc;
  proc.add({.pid = 60, .ppid = 1, .cmdline = "sh", .start_time = 500});
  proc.add({.pid = 61, .ppid = 60, .cmdline = "claude", .start_time = 400});
  auto shown = foreground_program(ProcessTable::read(proc.root()), 60);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->pid, 60);
}

TEST(ProcessScan, ZombieChildIsNotFollowed) {
  FakeProc proc;
  proc.add({.pid = 70, .ppid = 1, .cmdline = "sh"});
  proc.add({.pid = 71, .ppid = 70, .cmdline = "vim"});
  proc.write(72, "stat", "72 (claude) Z 70 70 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 900\n");
  proc.write(72, "cmdline", "");
  auto table = ProcessTable::read(proc.root());
  EXPECT_EQ(table.children_of(70), (std::vector<pid_t>{71, 72}));
  EXPECT_EQ(foreground_program(table, 70)->program, "vim");
  EXPECT_EQ(read_process(72, proc.root())->program, "claude");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::agents
