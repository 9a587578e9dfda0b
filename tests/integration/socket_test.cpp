// tests/integration/socket_test.cpp: the broker's socket and directories:
// private runtime dir and socket, refusals at start (foreign or open dir, a
// live broker, a held state dir), stale socket replacement, and the peer
// uid check (docs/rules.md, Broker process contract).
// Runs in: the integration test binary, as root (CI) or as a user.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The uid/gid the tests borrow as "another user" (nobody on Debian).
constexpr uid_t kOtherUid = 65534;
// The broker's "refused to start" exit status (interface contract).
constexpr int kExitRefused = 1;

using BrokerSocket = BrokerTest;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw HarnessError("stat " + path + " failed");
  return st.st_mode;
}

uid_t owner_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw HarnessError("stat " + path + " failed");
  return st.st_uid;
}

void make_dir_with_mode(const std::string& path, mode_t mode) {
  ASSERT_EQ(::mkdir(path.c_str(), mode), 0) << std::strerror(errno);
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << std::strerror(errno);
}

// A socket file with nothing listening behind it, as a crashed broker leaves.
void make_stale_socket(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(fd.valid());
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
      << std::strerror(errno);
}

TEST_F(BrokerSocket, CreatesPrivateRuntimeDirAndOwnerOnlySocket) {
  start();
  EXPECT_EQ(mode_of(dirs_.socket_dir()) & 07777, 0700u);
  EXPECT_TRUE(S_ISSOCK(mode_of(dirs_.socket_path())));
  EXPECT_EQ(mode_of(dirs_.socket_path()) & 07777, 0600u);
  EXPECT_EQ(owner_of(dirs_.socket_dir()), ::geteuid());
  EXPECT_EQ(owner_of(dirs_.socket_path()), ::geteuid());
}

TEST_F(BrokerSocket, RefusesRuntimeDirAccessibleByGroup) {
  make_dir_with_mode(dirs_.socket_dir(), 0750);
  ExitStatus status = start_expecting_exit();
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(all_stderr().find(dirs_.socket_dir()), std::string::npos)
      << "the refusal should name the directory";
  EXPECT_EQ(mode_of(dirs_.socket_dir()) & 07777, 0750u) << "refused, never repaired";
}

TEST_F(BrokerSocket, RefusesRuntimeDirAccessibleByOthers) {
  make_dir_with_mode(dirs_.socket_dir(), 0705);
  ExitStatus status = start_expecting_exit();
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(all_stderr().find(dirs_.socket_dir()), std::string::npos);
}

TEST_F(BrokerSocket, RefusesRuntimeDirOwnedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  make_dir_with_mode(dirs_.socket_dir(), 0700);
  ASSERT_EQ(::chown(dirs_.socket_dir().c_str(), kOtherUid, kOtherUid), 0);
  ExitStatus status = start_expecting_exit();
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(all_stderr().find(dirs_.socket_dir()), std::string::npos);
  EXPECT_FALSE(path_exists(dirs_.socket_path()));
}

TEST_F(BrokerSocket, SecondBrokerOnALiveSocketRefusesAndTheFirstKeepsServing) {
  start();
  Client before = connect();
  ExitStatus status = start_expecting_exit(
      {.args = {"--state-dir", dirs_.scratch("second-state")}});
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(all_stderr().find(dirs_.socket_path()), std::string::npos)
      << "the refusal should name the socket it found answering";
  EXPECT_TRUE(is_ok(before.request("server.status")));
  EXPECT_TRUE(is_ok(connect().request("server.status"))) << "the socket must stay in place";
}

TEST_F(BrokerSocket, ReplacesAStaleSocketFile) {
  make_dir_with_mode(dirs_.socket_dir(), 0700);
  make_stale_socket(dirs_.socket_path());
  ASSERT_TRUE(path_exists(dirs_.socket_path()));
  start();
  EXPECT_TRUE(is_ok(connect().request("server.status")));
}

// A broker that stops after another took the path over (its acceptor
// closed, so a broker with another state dir found the path refused and
// bound it afresh) leaves the newcomer's socket in place. The newcomer is
// stood in for by a listening socket of the test's own.
TEST_F(BrokerSocket, AStoppingBrokerLeavesASuccessorsSocketInPlace) {
  start();
  ASSERT_EQ(::unlink(dirs_.socket_path().c_str()), 0) << std::strerror(errno);
  UniqueFd successor(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(successor.valid());
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", dirs_.socket_path().c_str());
  ASSERT_EQ(::bind(successor.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
      << std::strerror(errno);
  ASSERT_EQ(::listen(successor.get(), 4), 0) << std::strerror(errno);
  struct stat before {};
  ASSERT_EQ(::lstat(dirs_.socket_path().c_str(), &before), 0);

  broker().sigterm();
  const auto exited = broker().wait_exit(deadline_after());
  ASSERT_TRUE(exited.has_value()) << "the broker did not stop on SIGTERM";
  EXPECT_EQ(exited->code, 0) << exited->describe();

  struct stat after {};
  ASSERT_EQ(::lstat(dirs_.socket_path().c_str(), &after), 0)
      << "the stopping broker unlinked the successor's socket";
  EXPECT_EQ(after.st_ino, before.st_ino);
  UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(::connect(probe.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
      << std::strerror(errno);
}

// And its own socket goes with it.
TEST_F(BrokerSocket, AStoppedBrokerRemovesItsOwnSocket) {
  start();
  ASSERT_TRUE(path_exists(dirs_.socket_path()));
  broker().sigterm();
  const auto exited = broker().wait_exit(deadline_after());
  ASSERT_TRUE(exited.has_value()) << "the broker did not stop on SIGTERM";
  EXPECT_FALSE(path_exists(dirs_.socket_path()));
}

TEST_F(BrokerSocket, SecondBrokerOnTheSameStateDirRefuses) {
  start();
  const std::string other_socket = dirs_.scratch("other-run") + "/b.sock";
  ExitStatus status = start_expecting_exit({.args = {"--socket", other_socket}});
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(all_stderr().find(dirs_.state_dir()), std::string::npos)
      << "the refusal should name the state dir that is in use";
  EXPECT_TRUE(is_ok(connect().request("server.status")));
}

TEST_F(BrokerSocket, RefusesAPeerWithAnotherUidBeforeReadingARequest) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a client as another uid";
  if (!path_exists("/usr/bin/setpriv")) GTEST_SKIP() << "setpriv is not installed";
  start();
  // Open the way for the other uid, so only the peer check stands.
  for (const auto& dir : {dirs_.root(), dirs_.runtime_dir(), dirs_.socket_dir()})
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dirs_.socket_path().c_str(), 0666), 0);
  const std::string probe = dirs_.scratch("peer_probe");
  std::filesystem::copy_file(peer_probe_path(), probe);
  ASSERT_EQ(::chmod(probe.c_str(), 0755), 0);

  RunResult run = run_program(dirs_,
                              {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                               "--clear-groups", probe, dirs_.socket_path()},
                              base_env(dirs_));
  ASSERT_EQ(run.status.code, 0) << run.status.describe() << "\n" << run.out << run.err;
  const std::size_t nl = run.out.find('\n');
  ASSERT_NE(nl, std::string::npos) << run.out;
  Json first = Json::parse(run.out.substr(0, nl), nullptr, false);
  EXPECT_EQ(error_code(first), "FORBIDDEN") << run.out;
  EXPECT_EQ(run.out.substr(nl + 1), "EOF\n") << "the broker must close the connection";
  EXPECT_TRUE(is_ok(connect().request("server.status")));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
