// tests/ptyhost/sandbox_test.cpp: enter_sandbox() in a forked child of the
// test: what the confined ptyhost may no longer do. Calls outside the
// allowlist kill by SIGSYS (sanitizer builds only log them: skipped there).
// Runs in: the ptyhost process tests.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "ptyhost/sandbox.hpp"
#include "ptyhost_harness.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

enum class DirFd { Cwd, SocketDir };

// Forks, confines the child, has it unlinkat `name` (relative to the
// directory's fd, or to the cwd, which is the directory) and returns its
// wait status.
int unlink_confined(const std::string& dir, const std::string& name, DirFd base) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int dir_fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0 || ::chdir(dir.c_str()) != 0) ::_exit(2);
    if (!enter_sandbox({::getpid()}).ok()) ::_exit(3);
    const int at = base == DirFd::Cwd ? AT_FDCWD : dir_fd;
    ::syscall(SYS_unlinkat, at, name.c_str(), 0);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define SKIP_IF_SANITIZED() GTEST_SKIP() << "sanitizer builds log sandbox violations"
#else
#define SKIP_IF_SANITIZED() (void)0
#endif

// A dir fd does not hold a name in: `../x` or an absolute path escapes it.
TEST(PtyhostSandbox, UnlinkatKillsTheConfinedPtyhostWhateverItsDirFd) {
  SKIP_IF_SANITIZED();
  TempDir outer;
  const std::string inner = outer.file("panes");
  ASSERT_EQ(::mkdir(inner.c_str(), 0700), 0);
  const std::string victim = outer.file("victim");
  ASSERT_EQ(::close(::open(victim.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600)), 0);
  for (DirFd base : {DirFd::SocketDir, DirFd::Cwd}) {
    const int status = unlink_confined(inner, "../victim", base);
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_EQ(WTERMSIG(status), SIGSYS);
    EXPECT_TRUE(exists(victim));
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost::testing
