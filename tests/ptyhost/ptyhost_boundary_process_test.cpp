// tests/ptyhost/ptyhost_boundary_process_test.cpp: the ptyhost's boundaries
// as a real process: malformed broker frames, a peer of another uid, the
// confinement it enters after spawning (and the child does not inherit),
// the child's fds, and hostile program output.
// Runs in: the ptyhost process tests; each test starts its own ptyhost.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "ptyhost_harness.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

// After the broker was dropped, the pane is unharmed: a new broker gets
// the same child, which still runs.
void expect_pane_survives(Pane& pane) {
  TestBroker next(pane.host.socket_path());
  Json hello = next.handshake();
  EXPECT_EQ(hello["child_pid"], pane.child_pid);
  EXPECT_TRUE(process_alive(static_cast<pid_t>(pane.child_pid)));
  EXPECT_TRUE(next.request("read", {{"mode", "screen"}}).ok);
}

TEST(PtyhostMalformed, OversizedFrameLengthDropsTheBrokerOnly) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  pane.broker.send_raw(std::string("\xff\xff\xff\xff\x01", 5));
  EXPECT_TRUE(pane.broker.await_disconnect());
  expect_pane_survives(pane);
}

TEST(PtyhostMalformed, UnknownFrameTypeDropsTheBrokerOnly) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  pane.broker.send_raw(std::string("\x03\x00\x00\x00\x07zz", 7));
  EXPECT_TRUE(pane.broker.await_disconnect());
  expect_pane_survives(pane);
}

TEST(PtyhostMalformed, GarbageJsonDropsTheBrokerOnly) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  pane.broker.send_raw(protocol::encode_frame(protocol::FrameType::Control, "{not json"));
  EXPECT_TRUE(pane.broker.await_disconnect());
  expect_pane_survives(pane);
}

TEST(PtyhostMalformed, RequestWithoutRidDropsTheBrokerOnly) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  pane.broker.send_control({{"op", "read"}});
  EXPECT_TRUE(pane.broker.await_disconnect());
  expect_pane_survives(pane);
}

TEST(PtyhostMalformed, InputBeforeHelloDropsTheBroker) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  TestBroker early(pane.host.socket_path());
  early.read_hello();
  early.send_input(1, 1000, "x");
  EXPECT_TRUE(early.await_disconnect());
  expect_pane_survives(pane);
}

TEST(PtyhostMalformed, OutputFrameFromABrokerDropsIt) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  pane.broker.send_raw(protocol::encode_tagged_frame(protocol::FrameType::Output, 1, "x"));
  EXPECT_TRUE(pane.broker.await_disconnect());
  expect_pane_survives(pane);
}

TEST(PtyhostMalformed, MistypedParamsAreBadParamsAndTheBrokerStays) {
  Pane pane;
  Reply r = pane.broker.request("resize", {{"cols", "wide"}, {"rows", 10}});
  EXPECT_EQ(r.code, "BAD_PARAMS");
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "screen"}}).ok);
}

enum class PeerUid { Ours, Nobody };

// Connects from a child process (as uid/gid 65534 for Nobody) and reports
// whether the ptyhost sent anything (exit 1) or closed the connection at
// once (exit 0).
int connect_from_child(const std::string& socket_path, PeerUid uid) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (uid == PeerUid::Nobody &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      ::_exit(3);
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) ::_exit(4);
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) != 1) ::_exit(5);
    char byte;
    ::_exit(::read(fd, &byte, 1) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PtyhostPeer, ForeignUidIsRefusedAtAccept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  // Open the way for the other uid; the ptyhost's own check must still hold.
  ASSERT_EQ(::chmod(pane.dir.path().c_str(), 0711), 0);
  ASSERT_EQ(::chmod(pane.host.socket_path().c_str(), 0666), 0);
  EXPECT_EQ(connect_from_child(pane.host.socket_path(), PeerUid::Nobody), 0);
  // The refused peer did not replace the live broker.
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "screen"}}).ok);
}

// A pane's own program runs as our uid: only the pid holding the broker
// lock is served (common/protocol/ptyhost_handshake.hpp).
TEST(PtyhostPeer, SameUidProcessThatIsNotTheBrokerGetsNoHelloAndIsClosed) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  EXPECT_EQ(connect_from_child(pane.host.socket_path(), PeerUid::Ours), 0);
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "screen"}}).ok);
}

TEST(PtyhostPeer, SilentPeerIsDroppedAfterTheHandshakeTimeoutAndTheBrokerStaysLinked) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  TestBroker silent(pane.host.socket_path());
  silent.read_hello();
  // A broker that answers is not held up by it.
  TestBroker next(pane.host.socket_path());
  EXPECT_EQ(next.handshake()["child_pid"], pane.child_pid);
  EXPECT_TRUE(silent.await_disconnect());
  EXPECT_TRUE(next.request("read", {{"mode", "screen"}}).ok);
}

TEST(PtyhostPeer, SocketIsPrivate) {
  Pane pane;
  struct stat st {};
  ASSERT_EQ(::stat(pane.host.socket_path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(PtyhostPeer, DirectoryOthersCanEnterIsRefused) {
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  PtyhostProcess host(dir.path(), "");
  auto status = host.wait_exit(Clock::now() + kDeadline);
  ASSERT_TRUE(status.has_value());
  EXPECT_NE(WEXITSTATUS(*status), 0);
}

TEST(PtyhostSandbox, PtyhostIsConfinedAfterSpawnAndTheChildIsNot) {
  Pane pane;
  EXPECT_EQ(proc_status_field(pane.host.pid(), "Seccomp"), "0");
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  const pid_t child = static_cast<pid_t>(pane.child_pid);
  EXPECT_EQ(proc_status_field(pane.host.pid(), "NoNewPrivs"), "1");
  EXPECT_EQ(proc_status_field(pane.host.pid(), "Seccomp"), "2");
  EXPECT_EQ(proc_status_field(child, "NoNewPrivs"), "0");
  EXPECT_EQ(proc_status_field(child, "Seccomp"), "0");
  // Confined, it still serves everything.
  EXPECT_TRUE(pane.broker.request("resize", {{"cols", 90}, {"rows", 30}}).ok);
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "tail"}}).ok);
  EXPECT_TRUE(pane.broker.request("stream", {{"on", true}, {"snapshot", true}}).ok);
  TestBroker next(pane.host.socket_path());
  EXPECT_EQ(next.handshake()["child_pid"], pane.child_pid);
  EXPECT_TRUE(next.request("signal", {{"signo", SIGTERM}}).ok);
  EXPECT_EQ(next.await_event("exited")["exit"]["signal"], "TERM");
  EXPECT_TRUE(process_alive(pane.host.pid()));
}

TEST(PtyhostSandbox, ChildHoldsOnlyFdsZeroToTwoOnItsTerminal) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  // Looked at once the program is up: a dynamic loader opens files for a
  // moment right after exec.
  ASSERT_TRUE(pane.spawn({"sh", "-c", "echo ready; read x"}).ok);
  ASSERT_TRUE(pane.broker.await_output("ready"));
  const std::string fd_dir = "/proc/" + std::to_string(pane.child_pid) + "/fd";
  std::set<std::string> fds;
  std::set<std::string> targets;
  DIR* d = ::opendir(fd_dir.c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    fds.insert(e->d_name);
    char target[256] = {};
    if (::readlink((fd_dir + "/" + e->d_name).c_str(), target, sizeof target - 1) < 0) target[0] = '\0';  // gone meanwhile: reads as empty
    targets.insert(target);
  }
  ::closedir(d);
  EXPECT_EQ(fds, (std::set<std::string>{"0", "1", "2"}));
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets.begin()->rfind("/dev/pts/", 0), 0u);
  // And it leads its own session, with that terminal as controlling tty.
  std::ifstream stat("/proc/" + std::to_string(pane.child_pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string state, ppid, pgrp, session, tty;
  fields >> state >> ppid >> pgrp >> session >> tty;
  EXPECT_EQ(session, std::to_string(pane.child_pid));
  EXPECT_EQ(pgrp, std::to_string(pane.child_pid));
  EXPECT_NE(tty, "0");
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(PtyhostHostileOutput, HugeLinesRandomBytesAndDeepOscNeitherCrashNorStall) {
  Pane pane;
  std::mt19937 rng(42);
  std::string random(5u << 20, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  std::string osc_openers;
  for (int i = 0; i < 100000; ++i) osc_openers += "\x1b]0;";
  std::string long_osc = "\x1b]9;" + std::string(100000, 'n') + "\x07";
  std::string bad_utf8;
  for (int i = 0; i < 100000; ++i) bad_utf8 += "\xc3\x28\xe2\x82\xf0\x9f\x98";
  write_file(pane.dir.file("long_line"), std::string(10u << 20, 'L'));
  write_file(pane.dir.file("random"), random);
  write_file(pane.dir.file("osc_openers"), osc_openers + "\x07");
  write_file(pane.dir.file("long_osc"), long_osc);
  write_file(pane.dir.file("bad_utf8"), bad_utf8);
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  const std::string d = pane.dir.path();
  ASSERT_TRUE(pane.spawn({"sh", "-c",
                          "cat " + d + "/long_line " + d + "/random " + d + "/osc_openers " + d +
                              "/long_osc " + d + "/bad_utf8; printf '\\033c'; echo END-OF-HOSTILE"})
                  .ok);
  // The output pump keeps up and the loop keeps answering throughout.
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "tail"}, {"lines", 50}}).ok);
  Json exited = pane.broker.await_event("exited");
  ASSERT_FALSE(exited.is_null());
  EXPECT_EQ(exited["exit"]["code"], 0);
  Reply tail = pane.broker.request("read", {{"mode", "tail"}, {"lines", 5}});
  ASSERT_TRUE(tail.ok);
  EXPECT_NE(tail.result["text"].get<std::string>().find("END-OF-HOSTILE"), std::string::npos);
  EXPECT_TRUE(pane.broker.offsets_contiguous());
  EXPECT_TRUE(process_alive(pane.host.pid()));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost::testing
