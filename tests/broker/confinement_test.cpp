// tests/broker/confinement_test.cpp: the broker's seccomp allowlist
// (broker/confinement.cpp), in forked children that confine themselves as
// the broker does: each forbidden call (ptrace, mount, bpf, keyctl,
// process_vm_readv, init_module, unshare, setns, execve, fork, an AF_INET
// socket) kills with SIGSYS; a control child starts and joins a thread,
// opens a local socket, sees clone3 fail with ENOSYS and exits 0; and the
// allowlist against its golden file.
// Sanitizer builds log calls outside the allowlist instead of killing: the
// SIGSYS assertions are skipped there.
// Runs in: the broker unit tests.
#include "broker/confinement.hpp"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The wait status of a child that confines itself and then runs `body`
// (exit 0 when body returns).
int confined_child(const std::function<void()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!confine_broker().ok()) ::_exit(90);
    body();
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

bool killed_by_sigsys(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS; }

TEST(BrokerConfinement, ForbiddenCallsKillTheProcess) {
#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE)
  GTEST_SKIP() << "sanitizer build: the filter logs instead of killing";
#endif
  const std::vector<std::pair<std::string, std::function<void()>>> calls{
      {"ptrace", [] { ::syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0); }},
      {"mount", [] { ::syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, nullptr); }},
      {"bpf", [] { ::syscall(SYS_bpf, 0, nullptr, 0); }},
      {"keyctl", [] { ::syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, 0, 0); }},
      {"process_vm_readv", [] { ::syscall(SYS_process_vm_readv, ::getppid(), nullptr, 0, nullptr, 0, 0); }},
      {"init_module", [] { ::syscall(SYS_init_module, nullptr, 0, ""); }},
      {"unshare", [] { ::syscall(SYS_unshare, CLONE_NEWUSER); }},
      {"setns", [] { ::syscall(SYS_setns, 0, 0); }},
      {"execve", [] {
         const char* argv[] = {"/bin/true", nullptr};
         ::syscall(SYS_execve, "/bin/true", argv, nullptr);
       }},
      {"fork", [] { ::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); }},
      {"socket(AF_INET)", [] { ::syscall(SYS_socket, AF_INET, SOCK_STREAM, 0); }},
      {"ioctl(TIOCSTI)", [] {
         char c = 'x';
         ::syscall(SYS_ioctl, 0, TIOCSTI, &c);
       }},
  };
  for (const auto& [name, call] : calls) {
    const int status = confined_child(call);
    EXPECT_TRUE(killed_by_sigsys(status)) << name << ": status " << status;
  }
}

TEST(BrokerConfinement, WhatTheBrokerDoesStillWorks) {
  const int status = confined_child([] {
    bool ran = false;
    std::thread([&ran] { ran = true; }).join();  // clone3 → ENOSYS, then clone(CLONE_THREAD)
    if (!ran) ::_exit(10);
    errno = 0;
    if (::syscall(SYS_clone3, nullptr, 0) != -1 || errno != ENOSYS) ::_exit(11);
    const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) ::_exit(12);
    ::close(s);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) ::_exit(13);
    if (::prctl(PR_SET_NAME, "confined", 0, 0, 0) != 0) ::_exit(14);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(BrokerConfinement, TheAllowlistMatchesItsGoldenFile) {
  std::vector<std::string> expected;
  std::ifstream golden(SIGNALTTY_BROKER_SYSCALLS_GOLDEN);
  ASSERT_TRUE(golden.good()) << SIGNALTTY_BROKER_SYSCALLS_GOLDEN;
  for (std::string line; std::getline(golden, line);)
    if (!line.empty() && line.front() != '#') expected.push_back(line);
  EXPECT_EQ(broker_allowed_syscalls(), expected)
      << "the allowlist changed: change broker_syscalls.golden with it, deliberately";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
