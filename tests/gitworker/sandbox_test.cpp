// tests/gitworker/sandbox_test.cpp: the gitworker's sandbox
// (gitworker/sandbox.cpp; docs/gitworker.md "Sandbox"). enter_sandbox() in
// forked children of the test: what a confined worker may no longer call
// (SIGSYS), which paths it may read and write (Landlock), that a step that
// cannot be taken fails closed; then the real program, confined, running
// every op, and the allowlist against its golden file.
// Sanitizer builds log calls outside the allowlist instead of killing: the
// SIGSYS assertions are skipped there.
// Runs in: the gitworker tests (as root in CI: RLIMIT_NPROC does not bind
// root, seccomp still refuses fork).
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/protocol/gitworker_wire.hpp"
#include "common/protocol/json_parse.hpp"
#include "git_fixture.hpp"
#include "gitworker/sandbox.hpp"

namespace signaltty::gitworker::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace gw = protocol::gitworker;
using ::testing::HasSubstr;

#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE) || defined(__SANITIZE_THREAD__)
#define SKIP_IF_FILTER_LOGS() \
  GTEST_SKIP() << "sanitizer build: the seccomp filter logs calls outside the allowlist, " \
                  "it does not kill"
#else
#define SKIP_IF_FILTER_LOGS() (void)0
#endif

// The child's exit status when enter_sandbox failed.
constexpr int kNotConfined = 90;

// Forks; the child enters the sandbox with `plan`, runs `body` (raw calls
// only) and exits with what it returns. The child's wait status.
int in_confined_child(const SandboxPlan& plan, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!enter_sandbox(plan).ok()) ::_exit(kNotConfined);
    ::_exit(body());
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + ::strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// ---- calls outside the allowlist ------------------------------------------

alignas(4096) char g_page[4096];

struct ForbiddenCall {
  const char* what;
  long (*call)();
};

// Arguments chosen so that a call the filter let through would do no harm.
const ForbiddenCall kForbidden[] = {
    {"socket(AF_INET)", [] { return ::syscall(SYS_socket, AF_INET, SOCK_STREAM, 0); }},
    {"socket(AF_UNIX)", [] { return ::syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0); }},
    {"connect", [] { return ::syscall(SYS_connect, -1, nullptr, 0); }},
    {"execve", [] { return ::syscall(SYS_execve, "/nonexistent", nullptr, nullptr); }},
    {"execveat", [] { return ::syscall(SYS_execveat, -1, "", nullptr, nullptr, 0); }},
    {"ptrace", [] { return ::syscall(SYS_ptrace, PTRACE_TRACEME, 0, nullptr, nullptr); }},
    {"fork", [] { return ::syscall(SYS_fork); }},
    {"vfork", [] { return ::syscall(SYS_vfork); }},
    {"clone", [] { return ::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0); }},
    {"mount", [] { return ::syscall(SYS_mount, nullptr, nullptr, nullptr, 0, nullptr); }},
    {"unshare", [] { return ::syscall(SYS_unshare, 0); }},
    {"bpf", [] { return ::syscall(SYS_bpf, -1, nullptr, 0); }},
    {"keyctl", [] { return ::syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, -1, 0); }},
    {"kill", [] { return ::syscall(SYS_kill, 1, 0); }},
    {"mprotect(PROT_EXEC)",
     [] { return ::syscall(SYS_mprotect, g_page, sizeof g_page, PROT_READ | PROT_EXEC); }},
    {"mmap(PROT_EXEC)",
     [] {
       return ::syscall(SYS_mmap, nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
     }},
    // getpid through the x32 ABI: another arch, whatever the number.
    {"x32 getpid", [] { return ::syscall(0x40000000L | SYS_getpid); }},
};

TEST(GitSandboxDeath, EveryForbiddenCallKillsTheWorkerBySigsys) {
  SKIP_IF_FILTER_LOGS();
  TempDir dir("signaltty-gitsbx");
  const SandboxPlan plan{{dir.path()}, {}, false};
  for (const ForbiddenCall& forbidden : kForbidden) {
    SCOPED_TRACE(forbidden.what);
    const int status = in_confined_child(plan, [&] {
      forbidden.call();
      return 0;
    });
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) << describe(status);
  }
}

TEST(GitSandboxDeath, ControlChildReadsInItsDirAndExits) {
  TempDir dir("signaltty-gitsbx");
  write_file(dir.file("f"), "x");
  const std::string file = dir.file("f");
  const int status = in_confined_child({{dir.path()}, {}, false}, [&] {
    char c = 0;
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    return fd >= 0 && ::read(fd, &c, 1) == 1 && c == 'x' ? 0 : 1;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
}

TEST(GitSandboxDeath, Clone3FailsWithEnosysInsteadOfKilling) {
  TempDir dir("signaltty-gitsbx");
  const int status = in_confined_child({{dir.path()}, {}, false}, [] {
    const long rc = ::syscall(SYS_clone3, nullptr, 0);
    return rc == -1 && errno == ENOSYS ? 0 : 1;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
}

TEST(GitSandboxDeath, SleepingIsAllowedOnlyWhenThePlanSaysSo) {
  TempDir dir("signaltty-gitsbx");
  const auto nap = [] {
    const timespec ns{0, 1};
    return static_cast<int>(::syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ns, nullptr));
  };
  const int allowed = in_confined_child({{dir.path()}, {}, true}, nap);
  EXPECT_TRUE(WIFEXITED(allowed) && WEXITSTATUS(allowed) == 0) << describe(allowed);
  SKIP_IF_FILTER_LOGS();
  const int refused = in_confined_child({{dir.path()}, {}, false}, nap);
  EXPECT_TRUE(WIFSIGNALED(refused) && WTERMSIG(refused) == SIGSYS) << describe(refused);
}

// ---- Landlock ----------------------------------------------------------------

int open_errno(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return 0;
  }
  return errno;
}

TEST(GitSandbox, ReadsOnlyInsideItsReadDirs) {
  TempDir repo("signaltty-gitsbx-repo");
  TempDir other("signaltty-gitsbx-other");
  write_file(repo.file("inside"), "in");
  write_file(other.file("outside"), "out");
  const std::string inside = repo.file("inside"), outside = other.file("outside");
  const std::string other_dir = other.path();
  const int status = in_confined_child({{repo.path()}, {}, false}, [&] {
    if (open_errno(inside, O_RDONLY) != 0) return 1;
    if (open_errno(outside, O_RDONLY) != EACCES) return 2;
    if (open_errno(other_dir, O_RDONLY | O_DIRECTORY) != EACCES) return 3;
    if (open_errno(inside, O_WRONLY) != EACCES) return 4;  // read only
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << describe(status) << " (1: inside unreadable, 2/3: outside readable, 4: inside writable)";
}

TEST(GitSandbox, WritesOnlyInsideItsWriteDirs) {
  TempDir ro("signaltty-gitsbx-ro");
  TempDir rw("signaltty-gitsbx-rw");
  write_file(ro.file("existing"), "x");
  const std::string ro_new = ro.file("new"), ro_existing = ro.file("existing");
  const std::string ro_dir = ro.file("dir"), rw_dir = rw.file("dir");
  const std::string rw_new = rw.file("new");
  const int status = in_confined_child({{ro.path()}, {rw.path()}, false}, [&] {
    if (open_errno(rw_new, O_WRONLY | O_CREAT | O_EXCL) != 0) return 1;
    if (::mkdir(rw_dir.c_str(), 0700) != 0) return 2;
    if (::rmdir(rw_dir.c_str()) != 0 || ::unlink(rw_new.c_str()) != 0) return 3;
    if (open_errno(ro_new, O_WRONLY | O_CREAT | O_EXCL) != EACCES) return 4;
    if (::mkdir(ro_dir.c_str(), 0700) == 0 || errno != EACCES) return 5;
    if (open_errno(ro_existing, O_WRONLY) != EACCES) return 6;
    if (::unlink(ro_existing.c_str()) == 0 || errno != EACCES) return 7;
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << describe(status) << " (1-3: the write dir refused a write, 4-7: the read dir allowed one)";
  EXPECT_TRUE(std::filesystem::exists(ro_existing));
}

// ---- failing closed ------------------------------------------------------------

TEST(GitSandbox, AMissingDirFailsClosedNamingTheStep) {
  TempDir dir("signaltty-gitsbx");
  int report[2];
  ASSERT_EQ(::pipe2(report, O_CLOEXEC), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto confined = enter_sandbox({{dir.file("missing")}, {}, false});
    if (confined.ok()) ::_exit(1);
    const std::string& message = confined.error().message;
    (void)!::write(report[1], message.data(), message.size());
    ::_exit(confined.error().code == ErrorCode::IoError ? 0 : 2);
  }
  ::close(report[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) message.append(buf, n);
  ::close(report[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
  EXPECT_THAT(message, HasSubstr("sandbox unavailable: landlock: " + dir.file("missing")));
}

TEST(GitSandbox, TheProgramExitsThreeWhenItCannotConfineItself) {
  TempDir dir("signaltty-gitsbx");
  const auto run = run_program({SIGNALTTY_GITWORKER, "--read", dir.file("missing")}, dir.path());
  EXPECT_TRUE(run.exited_with(gw::kExitSandboxUnavailable)) << describe(run.status);
  EXPECT_THAT(run.err, HasSubstr("sandbox unavailable"));
  EXPECT_EQ(run.out, "");
}

TEST(GitSandbox, TheProgramRefusesARelativeDir) {
  TempDir dir("signaltty-gitsbx");
  const auto run = run_program({SIGNALTTY_GITWORKER, "--read", "relative/dir"}, dir.path());
  EXPECT_TRUE(run.exited_with(gw::kExitUsage)) << describe(run.status);
  EXPECT_EQ(run.out, "");
}

// ---- the program, confined ---------------------------------------------------

std::string proc_status(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, n);
  return text;
}

gw::Reply decode_reply(const std::string& out) {
  auto doc = protocol::parse_json(out);
  if (!doc.ok()) return {};
  auto reply = protocol::decode<gw::Reply>(*doc);
  return reply.ok() ? *reply : gw::Reply{};
}

std::string request_json(const gw::Request& request) { return protocol::encode(request).dump(); }

// Confined before it reads: while it waits on stdin the kernel already
// reports its filter and no-new-privs.
TEST(GitSandbox, TheProgramIsConfinedBeforeItReadsItsRequest) {
  GitRepo repo;
  int in[2], out[2];
  ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    const char* argv[] = {SIGNALTTY_GITWORKER, "--read", repo.root().c_str(), nullptr};
    const char* env[] = {"LC_ALL=C", nullptr};
    ::execve(argv[0], const_cast<char**>(argv), const_cast<char**>(env));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  // Waits for the filter (bounded): the worker enters it right after start.
  std::string status_text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int wait_status = 0;
  while (true) {
    status_text = proc_status(pid);
    if (status_text.find("Seccomp:\t2") != std::string::npos) break;
    ASSERT_EQ(::waitpid(pid, &wait_status, WNOHANG), 0)
        << "exited early: " << describe(wait_status);
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << status_text;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_THAT(status_text, HasSubstr("NoNewPrivs:\t1"));
  const std::string request = request_json({gw::Op::Status, repo.root()});
  ASSERT_EQ(::write(in[1], request.data(), request.size()), static_cast<ssize_t>(request.size()));
  ::close(in[1]);
  const std::string reply_text = read_all(out[0]);
  ::close(out[0]);
  ASSERT_EQ(::waitpid(pid, &wait_status, 0), pid);
  EXPECT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) << describe(wait_status);
  EXPECT_TRUE(decode_reply(reply_text).ok) << reply_text;
}

// Each op through the confined program, with the directories the launcher
// grants it: a call missing from the allowlist is a SIGSYS here.
class GitSandboxOps : public ::testing::Test {
 protected:
  GitSandboxOps() : outside_("signaltty-gitsbx-wt") {
    repo_.write("src/main.c", "int main() { return 0; }\n");
    repo_.write("tool.sh", "#!/bin/sh\n");
    ::chmod(repo_.path("tool.sh").c_str(), 0755);
    std::filesystem::create_symlink("README", repo_.path("link"));
    repo_.commit_all("second");
    repo_.write("README", "hello\nworld\n");
    repo_.write("notes/untracked.txt", "new\n");
    write_file(repo_.path("blob.bin"), std::string("\0\1\2binary", 9));
  }

  gw::Reply run(const std::vector<std::string>& dirs, const gw::Request& request) {
    std::vector<std::string> argv{SIGNALTTY_GITWORKER};
    argv.insert(argv.end(), dirs.begin(), dirs.end());
    const auto worker = run_program(argv, "/", request_json(request));
    EXPECT_FALSE(worker.killed_by(SIGSYS)) << "a call outside the allowlist: " << worker.err;
    EXPECT_TRUE(worker.exited_with(0)) << describe(worker.status) << ": " << worker.err;
    gw::Reply reply = decode_reply(worker.out);
    EXPECT_TRUE(reply.ok) << worker.out;
    return reply;
  }
  std::vector<std::string> read_repo() const { return {"--read", repo_.root()}; }
  std::vector<std::string> write_git_and(const std::string& dir) const {
    return {"--read", repo_.root(), "--write", repo_.path(".git"), "--write", dir};
  }
  gw::Request request(gw::Op op) const {
    gw::Request r;
    r.op = op;
    r.repo = repo_.root();
    return r;
  }

  GitRepo repo_;
  TempDir outside_;
};

TEST_F(GitSandboxOps, Status) { run(read_repo(), request(gw::Op::Status)); }

TEST_F(GitSandboxOps, Diff) { run(read_repo(), request(gw::Op::Diff)); }

TEST_F(GitSandboxOps, FileDiff) {
  for (const char* path : {"README", "notes/untracked.txt", "blob.bin"}) {
    SCOPED_TRACE(path);
    gw::Request r = request(gw::Op::FileDiff);
    r.path = path;
    run(read_repo(), r);
  }
}

TEST_F(GitSandboxOps, CaptureThenDiffAgainstIt) {
  const std::vector<std::string> dirs{"--read", repo_.root(), "--write",
                                      repo_.path(".git/objects")};
  gw::Reply captured = run(dirs, request(gw::Op::Capture));
  ASSERT_TRUE(captured.result.has_value());
  auto tree = protocol::decode<gw::CaptureResult>(*captured.result);
  ASSERT_TRUE(tree.ok());
  // Twice: the second capture freshens objects that exist already.
  run(dirs, request(gw::Op::Capture));
  gw::Request diff = request(gw::Op::Diff);
  diff.base_tree = tree->tree;
  run(read_repo(), diff);
}

TEST_F(GitSandboxOps, WorktreeAddListRemove) {
  const std::string path = outside_.file("feature");
  gw::Request add = request(gw::Op::WorktreeAdd);
  add.path = path;
  add.branch = "feature";
  run(write_git_and(outside_.path()), add);
  EXPECT_TRUE(std::filesystem::is_symlink(path + "/link"));
  run(read_repo(), request(gw::Op::WorktreeList));
  gw::Request remove = request(gw::Op::WorktreeRemove);
  remove.path = path;
  run(write_git_and(outside_.path()), remove);
  EXPECT_FALSE(std::filesystem::exists(path));
}

#ifdef SIGNALTTY_GITWORKER_TEST_OPS
TEST_F(GitSandboxOps, StallSleepsInTestBuilds) {
  gw::Request stall = request(gw::Op::Stall);
  stall.stall_ms = 1;
  run(read_repo(), stall);
}
#endif

// ---- the allowlist -----------------------------------------------------------

// "name", or "name (condition)" for an entry whose reason opens with one.
std::string golden_line(const AllowedSyscall& call) {
  std::string line = call.name;
  const std::string_view reason = call.reason;
  if (!reason.empty() && reason.front() == '(')
    line += " " + std::string(reason.substr(0, reason.find(')') + 1));
  return line;
}

TEST(GitSandbox, TheAllowlistMatchesItsGoldenFile) {
  std::vector<std::string> expected;
  std::ifstream golden(SIGNALTTY_GITWORKER_GOLDEN);
  ASSERT_TRUE(golden.good()) << SIGNALTTY_GITWORKER_GOLDEN;
  for (std::string line; std::getline(golden, line);)
    if (!line.empty() && line.front() != '#') expected.push_back(line);
  std::vector<std::string> actual;
  for (const AllowedSyscall& call : allowed_syscalls()) actual.push_back(golden_line(call));
  EXPECT_EQ(actual, expected) << "the allowlist changed: change syscall_allowlist.golden with it, "
                                 "deliberately";
}

TEST(GitSandbox, EveryAllowedCallHasAReasonAndExistsHere) {
  for (const AllowedSyscall& call : allowed_syscalls()) {
    SCOPED_TRACE(call.name);
    EXPECT_GT(std::strlen(call.reason), 0u);
    EXPECT_NE(seccomp_syscall_resolve_name(call.name), __NR_SCMP_ERROR);
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker::testing
