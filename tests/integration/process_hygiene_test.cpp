// tests/integration/process_hygiene_test.cpp: what the broker's processes
// hold and who may reach them (docs/architecture.md, "Who holds which
// descriptor"; docs/ptyhost-protocol.md, "Who may connect"): pane sockets
// answer only the broker, one broker per runtime dir, pane programs get the
// user's umask and core limit, stale pane sockets are cleared, and no
// broker descriptor survives an exec.
// Runs in: the integration test binary.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using ProcessHygiene = PaneTest;

std::string pane_socket(const TempDirs& dirs, const std::string& pane_id) {
  return dirs.socket_dir() + "/panes/" + pane_id + ".sock";
}

UniqueFd connect_unix(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw HarnessError("connect " + path + ": " + std::strerror(errno));
  return fd;
}

// Bytes the peer sent before closing; nullopt if it neither sent nor
// closed by the deadline.
std::optional<std::string> read_until_closed(int fd, Deadline deadline) {
  std::string got;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return got;
    got.append(buf, static_cast<std::size_t>(n));
  }
}

// The fd numbers of `pid` with what each points at.
std::map<std::string, std::string> fds_of(pid_t pid) {
  std::map<std::string, std::string> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  std::unique_ptr<DIR, DirCloser> d(::opendir(dir.c_str()));
  while (const dirent* e = d ? ::readdir(d.get()) : nullptr) {
    if (e->d_name[0] == '.') continue;
    char target[512] = {};
    if (::readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1) < 0) target[0] = '\0';  // gone meanwhile: reads as empty
    out[e->d_name] = target;
  }
  return out;
}

// The `flags:` of /proc/<pid>/fdinfo/<fd>, octal.
unsigned long fd_flags(pid_t pid, const std::string& fd) {
  std::istringstream info(proc_file(pid, "fdinfo/" + fd));
  for (std::string line; std::getline(info, line);)
    if (line.rfind("flags:", 0) == 0) return std::stoul(line.substr(6), nullptr, 8);
  return 0;
}

TEST_F(ProcessHygiene, SameUidProcessConnectingToAPaneSocketGetsNothingAndIsClosed) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  const std::string id = pane["id"];
  UniqueFd intruder = connect_unix(pane_socket(dirs_, id));
  auto sent = read_until_closed(intruder.get(), deadline_after());
  ASSERT_TRUE(sent.has_value()) << "the ptyhost kept a connection that is not the broker's";
  EXPECT_EQ(sent->size(), 0u) << "no Hello to a peer that is not the broker";
  // The broker's own link was not disturbed.
  input(client, id, "still-linked\n");
  wait_output(client, id, "still-linked");
}

TEST_F(ProcessHygiene, RestartedBrokerIsAcceptedByTheLivePtyhosts) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  start();
  client = connect();
  EXPECT_EQ(get_pane(client, pane["id"])["restore_state"], "LIVE");
  input(client, pane["id"], "after-restart\n");
  wait_output(client, pane["id"], "after-restart");
}

TEST_F(ProcessHygiene, SecondBrokerOnTheSameRuntimeDirIsRefused) {
  start();
  BrokerOptions other;
  other.args = {"--socket", dirs_.socket_dir() + "/other.sock", "--state-dir",
                dirs_.scratch("other-state")};
  ExitStatus refused = start_expecting_exit(other);
  EXPECT_EQ(refused.code, 1);
  EXPECT_TRUE(is_ok(connect().request("server.status")));
}

// docs/rules.md (Decisions): the broker narrows itself (umask 077, no core files); the
// programs in its panes keep what the user had.
TEST_F(ProcessHygiene, PaneProgramGetsTheUsersUmaskAndCoreLimit) {
  constexpr rlim_t kCoreBytes = 2u << 20;
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_CORE, &before), 0);
  rlimit user_core{kCoreBytes, RLIM_INFINITY};
  if (before.rlim_max != RLIM_INFINITY) user_core.rlim_max = before.rlim_max;
  if (user_core.rlim_max < kCoreBytes) GTEST_SKIP() << "hard core limit below the test's value";
  ASSERT_EQ(::setrlimit(RLIMIT_CORE, &user_core), 0);
  const mode_t old_mask = ::umask(027);
  start();
  ::umask(old_mask);
  ::setrlimit(RLIMIT_CORE, &before);

  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c",
                     "echo \"umask=$(umask)\"; grep '^Max core file size' /proc/self/limits; "
                     "exec cat"});
  wait_output(client, pane["id"], "Max core file size");
  Json tail = client.call("pane.read", {{"pane_id", pane["id"]}, {"mode", "screen"}});
  const std::string text = tail.dump();
  EXPECT_NE(text.find("umask=0027"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("Max core file size +2097152 "))) << text;
}

TEST_F(ProcessHygiene, SocketOfAClosedPaneIsRemoved) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  const std::string path = pane_socket(dirs_, pane["id"]);
  ASSERT_TRUE(path_exists(path));
  client.call("pane.close", {{"pane_id", pane["id"]}});
  EXPECT_TRUE(wait_until([&] { return !path_exists(path); }, deadline_after()))
      << "the broker removes the socket a ptyhost left behind";
}

// Every descriptor the broker holds, late ones included (client sockets,
// the journal, the launcher's channel), is close-on-exec; and a pane
// program started while they are open holds only its terminal.
TEST_F(ProcessHygiene, BrokerDescriptorsAreCloseOnExecAndNoneReachesAPane) {
  if (::geteuid() != 0) GTEST_SKIP() << "the broker is not dumpable: its /proc/fd needs root";
  start();
  Client client = connect();
  Client second = connect();
  const std::string ws = make_workspace(client)["id"];
  Json pane = spawn(client, ws, {"/bin/sh", "-c", "echo ready; exec cat"});
  wait_output(client, pane["id"], "ready");
  second.call("server.status");

  const pid_t broker_pid = broker().pid();
  for (const auto& [fd, target] : fds_of(broker_pid)) {
    if (fd == "0" || fd == "1" || fd == "2") continue;
    EXPECT_NE(fd_flags(broker_pid, fd) & O_CLOEXEC, 0u) << "broker fd " << fd << " -> " << target;
  }
  const auto child = fds_of(pane["pid"].get<pid_t>());
  std::set<std::string> numbers;
  for (const auto& [fd, target] : child) {
    numbers.insert(fd);
    EXPECT_EQ(target.rfind("/dev/pts/", 0), 0u) << "pane fd " << fd << " -> " << target;
  }
  EXPECT_EQ(numbers, (std::set<std::string>{"0", "1", "2"}));
  for (const auto& [fd, target] : fds_of(pane["ptyhost_pid"].get<pid_t>()))
    EXPECT_EQ(target.find(dirs_.state_dir()), std::string::npos) << "ptyhost fd " << fd;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
