// tests/integration/confinement_test.cpp: the confinement of every
// long-lived process a broker starts, read from /proc on live processes
// and held against one table (docs/security.md, "Process confinement"):
// the broker, each ptyhost and a gitworker caught in the middle of a diff
// run under their own seccomp filter with no-new-privs; the launcher, its
// git supervisor and the pane programs (one spawned from inside the other)
// run with neither, as the test itself does; the broker, the ptyhosts and
// what the launcher forks without exec are not dumpable, pane programs
// are; and none holds a capability the test does not have. The whole
// table is printed. What each process holds open is
// process_fds_test.cpp's.
// Runs in: the integration test binary, as root or as any other user
// (every expectation is relative to the test's own status).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tests/integration/live_processes.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Confinement = LiveScene;

enum class Filter { Own, Confined };  // as the test's own, or one more seccomp filter with no-new-privs

struct Expected {
  Filter filter;
  bool dumpable;
};

// docs/security.md, "Process confinement", role by role.
const std::map<std::string, Expected>& expectations() {
  static const std::map<std::string, Expected> table{
      {kBroker, {Filter::Confined, false}},
      // Forked from the broker after it made itself not dumpable, without
      // an exec that would reset it.
      {kLauncher, {Filter::Own, false}},
      {kGitSupervisor, {Filter::Own, false}},
#if defined(__SANITIZE_ADDRESS__)
      {kPtyhost, {Filter::Confined, true}},  // sanitizer builds: LeakSanitizer ptraces it at exit
#else
      {kPtyhost, {Filter::Confined, false}},
#endif
      {kGitworker, {Filter::Confined, true}},  // one request on the user's own repository
      {kPaneProgram, {Filter::Own, true}},
  };
  return table;
}

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

unsigned long long hex(const std::string& mask) { return std::strtoull(mask.c_str(), nullptr, 16); }

constexpr const char* kCapSets[] = {"CapEff", "CapPrm", "CapBnd", "CapAmb"};

std::string owner_of(pid_t pid) {
  struct stat st {};
  const std::string dir = "/proc/" + std::to_string(pid);
  return ::stat(dir.c_str(), &st) == 0 ? std::to_string(st.st_uid) : "?";
}

std::string yes_no(std::optional<bool> v) { return !v ? "?" : *v ? "yes" : "no"; }

TEST_F(Confinement, EveryProcessIsConfinedAsItsRoleSays) {
  set_up_scene();
  if (IsSkipped() || HasFatalFailure()) return;
  auto own = status_of(::getpid());
  const int own_filters = std::atoi(own["Seccomp_filters"].c_str());

  char header[200];
  std::snprintf(header, sizeof header, "%-34s %-7s %-7s %-10s %-8s %-5s %-16s %-16s %-16s %-16s\n",
                "process", "Seccomp", "filters", "NoNewPrivs", "dumpable", "owner", "CapEff", "CapPrm",
                "CapBnd", "CapAmb");
  std::cout << "confinement (the test itself: uid " << ::geteuid() << ", Seccomp " << own["Seccomp"]
            << ", filters " << own_filters << ", NoNewPrivs " << own["NoNewPrivs"] << ", CapEff "
            << own["CapEff"] << ")\n"
            << header;
  int seen = 0;
  for (const LiveProcess& p : processes()) {
    ASSERT_GT(p.pid, 0) << p.role << " not found";
    auto status = status_of(p.pid);
    ASSERT_FALSE(status.empty()) << p.label() << " is gone";
    ++seen;
    const std::optional<bool> is_dumpable = dumpable(p.pid);
    char row[300];
    std::snprintf(row, sizeof row, "%-34s %-7s %-7s %-10s %-8s %-5s %-16s %-16s %-16s %-16s\n",
                  p.label().c_str(), status["Seccomp"].c_str(), status["Seccomp_filters"].c_str(),
                  status["NoNewPrivs"].c_str(), yes_no(is_dumpable).c_str(), owner_of(p.pid).c_str(),
                  status["CapEff"].c_str(), status["CapPrm"].c_str(), status["CapBnd"].c_str(),
                  status["CapAmb"].c_str());
    std::cout << row;

    const Expected& want = expectations().at(p.role);
    if (want.filter == Filter::Confined) {
      EXPECT_EQ(status["Seccomp"], "2") << p.label();
      EXPECT_GT(std::atoi(status["Seccomp_filters"].c_str()), own_filters) << p.label();
      EXPECT_EQ(status["NoNewPrivs"], "1") << p.label();
    } else {
      EXPECT_EQ(status["Seccomp"], own["Seccomp"]) << p.label();
      EXPECT_EQ(status["Seccomp_filters"], own["Seccomp_filters"]) << p.label();
      EXPECT_EQ(status["NoNewPrivs"], own["NoNewPrivs"]) << p.label();
    }
    EXPECT_EQ(is_dumpable, std::optional<bool>(want.dumpable)) << p.label();
    for (const char* set : kCapSets)
      EXPECT_EQ(hex(status[set]) & ~hex(own[set]), 0u)
          << p.label() << " " << set << " " << status[set] << " beyond the test's " << own[set];
  }
  EXPECT_EQ(seen, 2 + 2 * 2 + 2) << "broker, launcher, two ptyhosts, two pane programs, git supervisor, gitworker";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
