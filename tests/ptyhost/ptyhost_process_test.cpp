// tests/ptyhost/ptyhost_process_test.cpp: signaltty-ptyhost as a real
// process: the handshake, spawn, output and offsets, exit reporting, input,
// resize, signals, the attach snapshot, clear, close.
// Runs in: the ptyhost process tests; each test starts its own ptyhost.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <fstream>

#include "common/protocol/ptyhost_wire.hpp"
#include "ptyhost_harness.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(PtyhostHandshake, HelloComesFirstAndDescribesThePane) {
  TempDir dir;
  PtyhostProcess host(dir.path(), dir.file("ptyhost.log"));
  ASSERT_TRUE(host.wait_ready());
  TestBroker broker(host.socket_path());
  Json hello = broker.read_hello();
  EXPECT_EQ(hello["op"], "hello");
  EXPECT_EQ(hello["version"], protocol::ptyhost::kPtyhostWireVersion);
  EXPECT_EQ(hello["min_version"], 1);
  EXPECT_EQ(hello["features"], protocol::ptyhost::kFeaturesSupported);
  EXPECT_EQ(hello["pane_id"], host.pane_id());
  EXPECT_EQ(hello["ptyhost_pid"], host.pid());
  EXPECT_TRUE(hello["child_pid"].is_null());
  EXPECT_EQ(hello["output_offset"], 0);
  EXPECT_FALSE(hello.contains("exited"));
}

TEST(PtyhostHandshake, RequestBeforeHelloAckDropsTheBroker) {
  TempDir dir;
  PtyhostProcess host(dir.path(), dir.file("ptyhost.log"));
  ASSERT_TRUE(host.wait_ready());
  TestBroker broker(host.socket_path());
  broker.read_hello();
  broker.send_control({{"op", "read"}, {"rid", 1}, {"mode", "screen"}});
  EXPECT_TRUE(broker.await_disconnect());
  TestBroker next(host.socket_path());
  EXPECT_EQ(next.handshake()["op"], "hello");
  EXPECT_TRUE(next.request("read", {{"mode", "screen"}}).ok);
}

TEST(PtyhostHandshake, AckOlderThanTheMinimumVersionDropsTheBroker) {
  TempDir dir;
  PtyhostProcess host(dir.path(), dir.file("ptyhost.log"));
  ASSERT_TRUE(host.wait_ready());
  TestBroker broker(host.socket_path());
  broker.read_hello();
  broker.send_ack(0);
  EXPECT_TRUE(broker.await_disconnect());
}

TEST(PtyhostHandshake, NewConnectionReplacesTheOldOne) {
  Pane pane;
  TestBroker second(pane.host.socket_path());
  EXPECT_EQ(second.handshake()["pane_id"], pane.host.pane_id());
  EXPECT_TRUE(pane.broker.await_disconnect());
  EXPECT_TRUE(second.request("read", {{"mode", "tail"}}).ok);
}

TEST(PtyhostHandshake, SecondPtyhostForALivePaneRefusesToStart) {
  Pane pane;
  // Same pane id, same dir: a fresh process must leave the live socket be.
  std::string id = pane.host.pane_id();
  pid_t pid = ::fork();
  if (pid == 0) {
    const std::string bin = std::string(SIGNALTTY_BIN_DIR) + "/signaltty-ptyhost";
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 2);
    ::execl(bin.c_str(), "signaltty-ptyhost", "--pane", id.c_str(), "--dir",
            pane.dir.path().c_str(), nullptr);
    ::_exit(127);
  }
  ASSERT_TRUE(wait_process_gone(pid, Clock::now() + kDeadline));
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "tail"}}).ok);
}

TEST(PtyhostSpawn, EchoStreamsOutputWithCumulativeEndOffsets) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  ASSERT_TRUE(pane.spawn({"/bin/echo", "hi"}).ok);
  Json exited = pane.broker.await_event("exited");
  ASSERT_FALSE(exited.is_null());
  EXPECT_EQ(exited["exit"]["code"], 0);
  EXPECT_TRUE(exited["exit"]["signal"].is_null());
  EXPECT_NE(pane.broker.output().find("hi"), std::string::npos);
  EXPECT_EQ(pane.broker.first_output_start(), 0u);
  EXPECT_TRUE(pane.broker.offsets_contiguous());
  EXPECT_EQ(pane.broker.last_end_offset(), pane.broker.output().size());
  EXPECT_EQ(exited["output_offset"], pane.broker.output().size());
}

TEST(PtyhostSpawn, ExitCodeIsReported) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sh", "-c", "exit 7"}).ok);
  Json exited = pane.broker.await_event("exited");
  EXPECT_EQ(exited["exit"]["code"], 7);
  EXPECT_TRUE(exited["exit"]["signal"].is_null());
}

TEST(PtyhostSpawn, SignalDeathIsReportedByName) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  ASSERT_TRUE(pane.broker.request("signal", {{"signo", SIGTERM}}).ok);
  Json exited = pane.broker.await_event("exited");
  EXPECT_TRUE(exited["exit"]["code"].is_null());
  EXPECT_EQ(exited["exit"]["signal"], "TERM");
}

TEST(PtyhostSpawn, MissingProgramIsSpawnFailedWithErrnoAndThePtyhostLeaves) {
  Pane pane;
  Reply r = pane.spawn({"/nonexistent/program"});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "SPAWN_FAILED");
  EXPECT_EQ(r.details["errno"], ENOENT);
  EXPECT_EQ(r.details["stage"], "exec");
  auto status = pane.host.wait_exit(Clock::now() + kDeadline);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_NE(WEXITSTATUS(*status), 0);
}

TEST(PtyhostSpawn, ProgramIsLookedUpInTheGivenPathNeverAShell) {
  Pane pane;
  Reply r = pane.spawn({"no-such-program-anywhere"});
  EXPECT_EQ(r.code, "SPAWN_FAILED");
  EXPECT_EQ(r.details["errno"], ENOENT);
}

TEST(PtyhostSpawn, MissingCwdIsSpawnFailedAtChdir) {
  Pane pane;
  Reply r = pane.spawn_with({{"argv", {"true"}}, {"env", default_env()},
                             {"cwd", "/nonexistent-dir"}, {"cols", 80}, {"rows", 24}});
  EXPECT_EQ(r.code, "SPAWN_FAILED");
  EXPECT_EQ(r.details["stage"], "chdir");
}

TEST(PtyhostSpawn, SecondSpawnIsBadParams) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  EXPECT_EQ(pane.spawn({"sleep", "1000"}).code, "BAD_PARAMS");
}

TEST(PtyhostSpawn, ChildEnvironmentIsExactlyWhatSpawnSent) {
  Pane pane;
  ASSERT_TRUE(pane.spawn_with({{"argv", {"sleep", "1000"}},
                               {"env", {"PATH=/usr/bin:/bin", "ONLY_THIS=1"}},
                               {"cwd", "/tmp"}, {"cols", 80}, {"rows", 24}})
                  .ok);
  std::string environ;
  std::ifstream in("/proc/" + std::to_string(pane.child_pid) + "/environ");
  std::getline(in, environ, '\x01');
  EXPECT_EQ(environ, std::string("PATH=/usr/bin:/bin\0ONLY_THIS=1\0", 31));
  char cwd[256] = {};
  if (::readlink(("/proc/" + std::to_string(pane.child_pid) + "/cwd").c_str(), cwd, sizeof cwd - 1) < 0) cwd[0] = '\0';  // gone meanwhile: reads as empty
  EXPECT_STREQ(cwd, "/tmp");
}

TEST(PtyhostOutput, ProgramFinishesWithoutABrokerAndItsExitWaitsForTheNext) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sh", "-c",
                          "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo done-marker; exit 3"})
                  .ok);
  const pid_t child = static_cast<pid_t>(pane.child_pid);
  pane.broker.disconnect();
  ASSERT_TRUE(wait_process_gone(child, Clock::now() + std::chrono::seconds(60)));
  TestBroker later(pane.host.socket_path());
  Json hello = later.handshake();
  Json exit = hello.contains("exited") ? hello["exited"] : later.await_event("exited")["exit"];
  EXPECT_EQ(exit["code"], 3);
  EXPECT_EQ(hello["exit_collected"], false);
  Reply tail = later.request("read", {{"mode", "tail"}, {"lines", 5}});
  ASSERT_TRUE(tail.ok);
  EXPECT_NE(tail.result["text"].get<std::string>().find("done-marker"), std::string::npos);
  Reply screen = later.request("read", {{"mode", "screen"}});
  EXPECT_NE(screen.result["text"].get<std::string>().find("done-marker"), std::string::npos);
  EXPECT_TRUE(later.request("collect_exit").ok);
  TestBroker after(pane.host.socket_path());
  Json again = after.handshake();
  EXPECT_EQ(again["exit_collected"], true);
  EXPECT_GE(again["output_offset"].get<std::uint64_t>(), 5000000u);
}

TEST(PtyhostInput, BytesRoundTripThroughCat) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  ASSERT_TRUE(pane.spawn({"cat"}).ok);
  const std::uint64_t rid = pane.broker.next_rid();
  pane.broker.send_input(rid, 5000, "ping-pong\n");
  Reply r = pane.broker.await_reply(rid);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.result["written"], 10);
  // The tty echoes the line, then cat prints it.
  EXPECT_TRUE(pane.broker.await_output("ping-pong\r\nping-pong\r\n"));
}

TEST(PtyhostInput, StalledProgramTimesOutWithTheWrittenPrefix) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  const std::uint64_t rid = pane.broker.next_rid();
  // Whole lines: a canonical-mode tty drops the excess of an unfinished
  // line instead of pushing back.
  std::string line(100, 'a');
  line.back() = '\n';
  std::string lines;
  while (lines.size() < (1u << 20)) lines.append(line);
  pane.broker.send_input(rid, 300, lines);
  Reply r = pane.broker.await_reply(rid);
  EXPECT_EQ(r.code, "TIMEOUT");
  ASSERT_TRUE(r.details["written_bytes"].is_number());
  EXPECT_GT(r.details["written_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_LT(r.details["written_bytes"].get<std::uint64_t>(), lines.size());
  // The pane still answers; later input queued behind works the same way.
  EXPECT_TRUE(pane.broker.request("read", {{"mode", "screen"}}).ok);
}

TEST(PtyhostInput, InputAfterExitIsPaneExited) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"true"}).ok);
  ASSERT_FALSE(pane.broker.await_event("exited").is_null());
  const std::uint64_t rid = pane.broker.next_rid();
  pane.broker.send_input(rid, 5000, "x");
  EXPECT_EQ(pane.broker.await_reply(rid).code, "PANE_EXITED");
}

// The shell exits and leaves `yes` (deaf to the SIGHUP the session
// leader's exit sends) printing on the PTY faster than the
// loop takes it: the reader always holds bytes, and the exit is reported
// anyway once the graces for draining them have run out (pane_host.cpp,
// kExitDrainRounds), not when the printing stops, which here is never.
TEST(PtyhostExit, AnExitIsReportedWhileADescendantKeepsThePtyBusy) {
  Pane pane;
  const std::string pid_file = pane.dir.file("yes.pid");
  ASSERT_TRUE(pane.spawn({"sh", "-c",
                          "(trap '' HUP; exec yes) & echo $! > " + pid_file + ".new && mv " + pid_file + ".new " +
                              pid_file + "; exit 3"})
                  .ok);
  ASSERT_TRUE(wait_file(pid_file, Clock::now() + kDeadline));
  pid_t printer = 0;
  ASSERT_TRUE(static_cast<bool>(std::ifstream(pid_file) >> printer) && printer > 0);
  // Within kDeadline: an unbounded wait for the reader to run dry never ends.
  const Json exited = pane.broker.await_event("exited");
  ASSERT_EQ(::kill(printer, SIGKILL), 0) << "`yes` had stopped already";
  ASSERT_FALSE(exited.is_null()) << "no exit while the PTY stayed busy";
  EXPECT_EQ(exited["exit"]["code"], 3);
  EXPECT_TRUE(wait_process_gone(printer, Clock::now() + kDeadline));
}

TEST(PtyhostResize, NewSizeIsSeenBySttyAndClamped) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  ASSERT_TRUE(pane.spawn({"sh", "-c", "stty size; read x; stty size; read y"}, 100, 30).ok);
  ASSERT_TRUE(pane.broker.await_output("30 100"));
  Reply r = pane.broker.request("resize", {{"cols", 132}, {"rows", 43}});
  ASSERT_TRUE(r.ok);
  const std::uint64_t rid = pane.broker.next_rid();
  pane.broker.send_input(rid, 5000, "\n");
  EXPECT_TRUE(pane.broker.await_output("43 132"));
  Reply tiny = pane.broker.request("resize", {{"cols", 1}, {"rows", 1}});
  EXPECT_EQ(tiny.result["cols"], 20);
  EXPECT_EQ(tiny.result["rows"], 5);
}

TEST(PtyhostSignal, GroupSignalReachesTheWholeProcessGroup) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  ASSERT_TRUE(pane.spawn({"sh", "-c", "sleep 1000 & echo bg=$!; wait"}).ok);
  ASSERT_TRUE(pane.broker.await_output("\r\n"));
  const std::string& out = pane.broker.output();
  const pid_t background = std::stoi(out.substr(out.find("bg=") + 3));
  ASSERT_TRUE(process_alive(background));
  ASSERT_TRUE(pane.broker.request("signal", {{"signo", SIGKILL}, {"group", true}}).ok);
  EXPECT_EQ(pane.broker.await_event("exited")["exit"]["signal"], "KILL");
  EXPECT_TRUE(wait_process_gone(background, Clock::now() + kDeadline));
}

TEST(PtyhostSignal, NoLiveProgramIsPaneExitedAndUnlistedSignalsAreBadParams) {
  Pane pane;
  EXPECT_EQ(pane.broker.request("signal", {{"signo", SIGTERM}}).code, "PANE_EXITED");
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  EXPECT_EQ(pane.broker.request("signal", {{"signo", SIGSEGV}}).code, "BAD_PARAMS");
}

TEST(PtyhostStream, SnapshotStateFrameComesBeforeTheReplyAtItsOffset) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sh", "-c", "printf 'before-attach\\n'; read x; echo after-$x"}).ok);
  // Without streaming, wait for the text through reads of the grid.
  const auto deadline = Clock::now() + kDeadline;
  Reply screen;
  do {
    screen = pane.broker.request("read", {{"mode", "screen"}});
  } while (screen.result["text"].get<std::string>().find("before-attach") == std::string::npos &&
           Clock::now() < deadline);
  const std::size_t first_arrival = pane.broker.arrivals().size();
  const std::uint64_t rid = pane.broker.next_rid();
  pane.broker.send_control({{"op", "stream"}, {"rid", rid}, {"on", true}, {"snapshot", true}});
  Reply r = pane.broker.await_reply(rid);
  ASSERT_TRUE(r.ok);
  const std::uint64_t offset = r.result["output_offset"];
  EXPECT_EQ(offset, std::string("before-attach\r\n").size());
  EXPECT_EQ(r.result["cols"], 80);
  EXPECT_EQ(r.result["rows"], 24);
  auto state = pane.broker.state_frame(rid);
  ASSERT_TRUE(state.has_value());
  EXPECT_NE(state->find("before-attach"), std::string::npos);
  ASSERT_GE(pane.broker.arrivals().size(), first_arrival + 2);
  EXPECT_EQ(pane.broker.arrivals()[first_arrival], "state:" + std::to_string(rid));
  EXPECT_EQ(pane.broker.arrivals()[first_arrival + 1], "reply:" + std::to_string(rid));
  pane.broker.send_input(pane.broker.next_rid(), 5000, "go\n");
  ASSERT_TRUE(pane.broker.await_output("after-go"));
  EXPECT_EQ(pane.broker.first_output_start(), offset);
  EXPECT_TRUE(pane.broker.offsets_contiguous());
}

TEST(PtyhostClear, ClearIsInjectedIntoTheOutputStream) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  ASSERT_TRUE(pane.spawn({"sh", "-c", "echo visible; read x"}).ok);
  ASSERT_TRUE(pane.broker.await_output("visible\r\n"));
  const std::uint64_t before = pane.broker.last_end_offset();
  Reply r = pane.broker.request("clear");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.result["output_offset"], before + 11);
  EXPECT_TRUE(pane.broker.await_output("\x1b[H\x1b[2J\x1b[3J"));
  EXPECT_EQ(pane.broker.last_end_offset(), before + 11);
  Reply screen = pane.broker.request("read", {{"mode", "screen"}});
  EXPECT_EQ(screen.result["text"].get<std::string>().find("visible"), std::string::npos);
}

TEST(PtyhostRead, ModesAnswerAndUnknownOnesAreRefused) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sh", "-c", "echo one; echo two"}).ok);
  ASSERT_FALSE(pane.broker.await_event("exited").is_null());
  Reply tail = pane.broker.request("read", {{"mode", "tail"}, {"lines", 1}});
  ASSERT_TRUE(tail.ok);
  EXPECT_EQ(tail.result["text"], "two");
  EXPECT_EQ(tail.result["truncated"], true);
  Reply rendered = pane.broker.request("read", {{"mode", "rendered"}, {"after_seq", 0}});
  ASSERT_TRUE(rendered.ok);
  EXPECT_TRUE(rendered.result.contains("next_seq"));
  EXPECT_EQ(pane.broker.request("read", {{"mode", "sideways"}}).code, "BAD_PARAMS");
  EXPECT_EQ(pane.broker.request("read", {{"lines", 5}}).code, "BAD_PARAMS");
  EXPECT_EQ(pane.broker.request("teleport").code, "UNKNOWN_METHOD");
}

TEST(PtyhostEvents, TitleNotificationAndBellBecomeEvents) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"printf", "\\033]0;my title\\007\\033]9;build done\\007\\007"}).ok);
  EXPECT_EQ(pane.broker.await_event("title")["title"], "my title");
  Json note = pane.broker.await_event("notification");
  EXPECT_EQ(note["body"], "build done");
  EXPECT_EQ(note["source"], "osc9");
  EXPECT_FALSE(pane.broker.await_event("bell").is_null());
}

TEST(PtyhostSerialize, SerializeSendsTheTerminalStateAsAStateFrame) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sh", "-c", "echo serialized-text; read x"}).ok);
  const std::uint64_t rid = pane.broker.next_rid();
  pane.broker.send_control({{"op", "serialize"}, {"rid", rid}});
  Reply r = pane.broker.await_reply(rid);
  ASSERT_TRUE(r.ok);
  auto blob = pane.broker.state_frame(rid);
  ASSERT_TRUE(blob.has_value());
  EXPECT_EQ(r.result["bytes"], blob->size());
  EXPECT_GT(blob->size(), 0u);
}

TEST(PtyhostSerialize, SerializeWithoutTheNegotiatedFeatureIsBadParams) {
  TempDir dir;
  PtyhostProcess host(dir.path(), "");
  ASSERT_TRUE(host.wait_ready());
  TestBroker broker(host.socket_path());
  broker.read_hello();
  broker.send_ack(1, 0);
  EXPECT_EQ(broker.request("serialize").code, "BAD_PARAMS");
}

TEST(PtyhostQueries, TerminalQueriesAreAnsweredWhileNoViewerStreams) {
  Pane pane;
  // Primary device attributes: the answer starts ESC [ ?.
  ASSERT_TRUE(pane.spawn({"sh", "-c",
                          "stty -echo -icanon min 1; printf '\\033[c'; "
                          "head -c 3 | od -An -c | tr -d ' '; read x"})
                  .ok);
  const auto deadline = Clock::now() + kDeadline;
  std::string text;
  while (text.find("033[?") == std::string::npos && Clock::now() < deadline)
    text = pane.broker.request("read", {{"mode", "screen"}}).result["text"].get<std::string>();
  EXPECT_NE(text.find("033[?"), std::string::npos) << text;
}

TEST(PtyhostMeta, SetMetaIsReturnedVerbatimInTheNextHello) {
  Pane pane;
  Json meta = {{"workspace", "ws_1"}, {"nested", {{"a", 1}}}};
  ASSERT_TRUE(pane.broker.request("set_meta", {{"meta", meta}}).ok);
  TestBroker next(pane.host.socket_path());
  EXPECT_EQ(next.handshake()["meta"], meta);
}

TEST(PtyhostClose, CloseEscalatesToKillAndThePtyhostLeavesOnceCollected) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  ASSERT_TRUE(pane.spawn({"sh", "-c", "trap '' TERM; echo armed; while :; do read x; done"}).ok);
  ASSERT_TRUE(pane.broker.await_output("armed"));
  ASSERT_TRUE(pane.broker.request("close", {{"signo", SIGTERM}, {"kill_after_ms", 200}}).ok);
  Json exited = pane.broker.await_event("exited");
  EXPECT_EQ(exited["exit"]["signal"], "KILL");
  ASSERT_TRUE(pane.broker.request("collect_exit").ok);
  auto status = pane.host.wait_exit(Clock::now() + kDeadline);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_FALSE(std::ifstream(pane.host.socket_path()).good());
}

TEST(PtyhostClose, BrokerLeavingAfterCloseLetsThePtyhostExit) {
  Pane pane;
  ASSERT_TRUE(pane.spawn({"sleep", "1000"}).ok);
  ASSERT_TRUE(pane.broker.request("close", {{"signo", SIGTERM}}).ok);
  ASSERT_FALSE(pane.broker.await_event("exited").is_null());
  pane.broker.disconnect();
  EXPECT_TRUE(pane.host.wait_exit(Clock::now() + kDeadline).has_value());
}

TEST(PtyhostClose, CloseBeforeSpawnLetsThePtyhostExit) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("close", {{"signo", SIGTERM}}).ok);
  auto status = pane.host.wait_exit(Clock::now() + kDeadline);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost::testing
