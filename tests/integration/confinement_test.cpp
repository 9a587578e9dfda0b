// tests/integration/confinement_test.cpp: the confinement of every
// long-lived process a broker starts, read from /proc on live processes
// (docs/security.md): the broker and each ptyhost run under seccomp
// (Seccomp: 2) with no-new-privs; the launcher and pane programs run
// without either (a pane is the user's shell); none holds a capability the
// test process does not have. And the descriptors: the broker and the
// launcher hold no terminal at all, each ptyhost one PTY master and none of
// another pane's terminal, and a pane program only its own terminal.
// Runs in: the integration test binary.
#include <dirent.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Confinement = PaneTest;

// "Seccomp", "NoNewPrivs", "CapEff", ... of /proc/<pid>/status.
std::map<std::string, std::string> status_of(pid_t pid) {
  std::map<std::string, std::string> fields;
  std::stringstream text(proc_file(pid, "status"));
  for (std::string line; std::getline(text, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    fields[line.substr(0, colon)] = value;
  }
  return fields;
}

// What each open descriptor of `pid` points at.
std::vector<std::string> fd_targets(pid_t pid) {
  std::vector<std::string> targets;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return targets;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), buf, sizeof buf - 1);
    if (n > 0) targets.emplace_back(buf, static_cast<std::size_t>(n));
  }
  ::closedir(d);
  return targets;
}

// The launcher: the broker's child named sigtty-launcher.
pid_t launcher_of(pid_t broker) {
  DIR* d = ::opendir("/proc");
  pid_t found = -1;
  while (dirent* e = d ? ::readdir(d) : nullptr) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    const std::string stat = proc_file(pid, "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos || stat.find("(sigtty-launcher)") == std::string::npos) continue;
    std::stringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == broker) found = pid;
  }
  if (d) ::closedir(d);
  return found;
}

// A capability set is no wider than `limit` (hex masks as status prints them).
bool within(const std::string& caps, const std::string& limit) {
  const unsigned long long have = std::strtoull(caps.c_str(), nullptr, 16);
  const unsigned long long may = std::strtoull(limit.c_str(), nullptr, 16);
  return (have & ~may) == 0;
}

bool is_terminal(const std::string& target) {
  return target == "/dev/ptmx" || target.rfind("/dev/pts/", 0) == 0;
}

TEST_F(Confinement, BrokerAndPtyhostsAreConfinedPanesAndTheLauncherAreNot) {
  start();
  Client client = connect();
  const std::string ws = client.call("workspace.create", {{"cwd", dirs_.home()}})["workspace"]["id"];
  const Json pane = client.call("pane.spawn", {{"workspace_id", ws}, {"argv", {"cat"}}})["pane"];
  const pid_t broker_pid = broker().pid();
  const pid_t launcher = launcher_of(broker_pid);
  ASSERT_GT(launcher, 0) << "no sigtty-launcher child of the broker";
  const std::string own_caps = status_of(::getpid())["CapEff"];

  struct Expect {
    std::string role;
    pid_t pid;
    std::string seccomp, no_new_privs;
  };
  const std::vector<Expect> processes{
      {"broker", broker_pid, "2", "1"},
      {"ptyhost", pane["ptyhost_pid"].get<pid_t>(), "2", "1"},
      {"launcher", launcher, "0", "0"},
      {"pane program", pane["pid"].get<pid_t>(), "0", "0"},
  };
  for (const Expect& p : processes) {
    auto status = status_of(p.pid);
    ASSERT_FALSE(status.empty()) << p.role << " " << p.pid << " is gone";
    EXPECT_EQ(status["Seccomp"], p.seccomp) << p.role;
    EXPECT_EQ(status["NoNewPrivs"], p.no_new_privs) << p.role;
    for (const char* set : {"CapEff", "CapPrm", "CapAmb"})
      EXPECT_TRUE(within(status[set], own_caps)) << p.role << " " << set << " " << status[set];
  }
}

TEST_F(Confinement, EachProcessHoldsOnlyItsOwnTerminal) {
  start();
  Client client = connect();
  const std::string ws = client.call("workspace.create", {{"cwd", dirs_.home()}})["workspace"]["id"];
  const Json a = client.call("pane.spawn", {{"workspace_id", ws}, {"argv", {"cat"}}})["pane"];
  const Json b = client.call("pane.split", {{"pane_id", a["id"]}, {"direction", "right"}, {"argv", {"cat"}}})["pane"];
  const pid_t launcher = launcher_of(broker().pid());
  ASSERT_GT(launcher, 0);

  for (const auto& [role, pid] : {std::pair<std::string, pid_t>{"broker", broker().pid()},
                                  std::pair<std::string, pid_t>{"launcher", launcher}})
    for (const std::string& target : fd_targets(pid))
      EXPECT_FALSE(is_terminal(target)) << role << " holds " << target;

  // A pane program's descriptors are its own terminal and nothing else.
  std::map<std::string, std::string> terminal_of;
  for (const Json& pane : {a, b}) {
    const auto targets = fd_targets(pane["pid"].get<pid_t>());
    ASSERT_FALSE(targets.empty());
    terminal_of[pane["id"]] = targets.front();
    for (const std::string& target : targets)
      EXPECT_EQ(target, targets.front()) << "pane " << pane["id"] << " program holds " << target;
    EXPECT_EQ(targets.front().rfind("/dev/pts/", 0), 0u) << targets.front();
  }
  ASSERT_NE(terminal_of[a["id"]], terminal_of[b["id"]]);

  // Each ptyhost: one master, and never the other pane's terminal.
  for (const auto& [self, other] : {std::pair<const Json&, const Json&>{a, b},
                                    std::pair<const Json&, const Json&>{b, a}}) {
    int masters = 0;
    for (const std::string& target : fd_targets(self["ptyhost_pid"].get<pid_t>())) {
      masters += target == "/dev/ptmx" ? 1 : 0;
      EXPECT_NE(target, terminal_of[other["id"]]) << "ptyhost of " << self["id"] << " holds the other pane's terminal";
    }
    EXPECT_EQ(masters, 1) << "ptyhost of " << self["id"];
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
