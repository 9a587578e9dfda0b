// tests/integration/pane_tail_test.cpp: what a live pane's saved tail
// (`history/<pane_id>.tail`, docs/rules.md "Tails") holds: the last 64 KiB
// of its rendered lines, whether they are short lines, which take the whole
// ring to fill it, or long ones, of which only the newest are read
// (broker/supervisor_tails.cpp, kTailFirstLines); and that a quiet pane
// is not probed for it: neither its ptyhost nor the broker wakes; a
// ptyhost too old to say when it prints is probed every 2 s, and one that
// floods the notice costs no more.
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"
#include "common/protocol/frame.hpp"
#include "common/protocol/ptyhost_wire.hpp"
#include "tests/integration/stand_in_ptyhost.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using PaneTail = PaneTest;

constexpr std::size_t kTailMaxBytes = 64u << 10;

std::string saved_tail_holding(const TempDirs& dirs, const std::string& pane_id,
                               const std::string& marker) {
  const std::string path = dirs.state_file("history/" + pane_id + ".tail");
  std::string text;
  wait_until([&] {
    text = path_exists(path) ? read_text_file(path) : "";
    return text.find(marker) != std::string::npos;
  }, deadline_after(std::chrono::seconds(15)));
  return text;
}

// Whether `pids` together sit through `window` without one wakeup before
// `deadline`; any wakeup starts the window again.
bool quiet_for(const std::vector<pid_t>& pids, std::chrono::milliseconds window, Deadline deadline) {
  const auto total = [&pids] {
    std::uint64_t sum = 0;
    for (pid_t pid : pids) sum += wakeups(pid);
    return sum;
  };
  std::uint64_t seen = total();
  auto since = Clock::now();
  return wait_until([&] {
    if (const std::uint64_t now = total(); now != seen) {
      seen = now;
      since = Clock::now();
    }
    return Clock::now() - since >= window;
  }, deadline);
}

TEST_F(PaneTail, AQuietPaneIsNotProbedAndItsTailFollowsItsOutput) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's runtime wakes its own thread every 100 ms in each process";
#endif
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  input(client, pane["id"], "first-words\n");
  EXPECT_NE(saved_tail_holding(dirs_, pane["id"], "first-words").find("first-words"),
            std::string::npos);
  // Longer than the tail refresh (2 s) and the screen-rule tick (500 ms),
  // shorter than the process refresh (10 s): a broker or ptyhost that
  // polled a quiet pane would never be quiet this long.
  const std::vector<pid_t> pids{broker().pid(), pane["ptyhost_pid"].get<pid_t>()};
  EXPECT_TRUE(quiet_for(pids, std::chrono::milliseconds(3000), deadline_after(std::chrono::seconds(25))))
      << "the broker or the ptyhost of a quiet pane keeps waking";
  // Output after the quiet spell still reaches the tail.
  input(client, pane["id"], "second-words\n");
  EXPECT_NE(saved_tail_holding(dirs_, pane["id"], "second-words").find("second-words"),
            std::string::npos);
}

// A ptyhost of an earlier version, left running across an upgrade of the
// broker, cannot announce output_notice: its tail is kept fresh as before.
TEST_F(PaneTail, APtyhostWithoutTheOutputNoticeIsProbedAsBefore) {
  const std::string pane_id = "pane_6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b";
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  StandInPtyhost old(dirs_.socket_dir() + "/panes/" + pane_id + ".sock", pane_id);
  start();
  Client client = connect();
  ASSERT_TRUE(wait_until([&] { return is_ok(client.request("pane.get", {{"pane_id", pane_id}})); }));
  EXPECT_TRUE(wait_until([&] { return old.asked("read", "rendered") >= 3; },
                         deadline_after(std::chrono::seconds(20))))
      << "probes of a ptyhost that cannot say it printed: " << old.asked("read", "rendered");
}

// A ptyhost that sends `printed` in a flood only marks its pane: the probes
// keep the refresh's pace, one per 2 s at most.
TEST_F(PaneTail, AFloodOfPrintedNoticesCostsOneProbePerRefresh) {
  const std::string pane_id = "pane_7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c";
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  Json hello{{"op", "hello"}, {"version", 4}, {"min_version", 1},
             {"features", protocol::ptyhost::kFeatureOutputNotice}, {"pane_id", pane_id},
             {"ptyhost_pid", ::getpid()}, {"child_pid", ::getpid()}, {"output_offset", 0},
             {"cols", 80}, {"rows", 24}, {"meta", nullptr}};
  std::string flood;
  const std::string notice =
      Json{{"op", "event"}, {"kind", "printed"}, {"output_offset", 1}}.dump();
  for (int i = 0; i < 5000; ++i) flood += protocol::encode_frame(protocol::FrameType::Control, notice);
  StandInPtyhost hostile(dirs_.socket_dir() + "/panes/" + pane_id + ".sock", pane_id, {}, hello, flood);
  start();
  Client client = connect();
  ASSERT_TRUE(wait_until([&] { return is_ok(client.request("pane.get", {{"pane_id", pane_id}})); }));
  const auto since = Clock::now();
  ASSERT_TRUE(wait_until([&] { return hostile.asked("read", "rendered") >= 1; },
                         deadline_after(std::chrono::seconds(10))));
  // An upper bound needs a window to count over: two refresh intervals and
  // a quarter, by which time the whole flood has long arrived.
  wait_until([] { return false; }, since + std::chrono::milliseconds(4500));
  EXPECT_FALSE(hostile.hung_up()) << "a notice is no breach of the protocol";
  EXPECT_LE(hostile.asked("read", "rendered"), 3u);
  EXPECT_TRUE(is_ok(client.request("server.status")));
}

TEST_F(PaneTail, ShortLinesFillTheTailFromTheWholeRing) {
  start();
  Client client = connect();
  // 30000 lines of at most 6 bytes: the ring keeps the newest 5000 and the
  // screen's, some 30 KB in all, under the tail's 64 KiB: all of them are
  // in the tail, including lines far older than the first 1024.
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "seq 1 30000; echo seq-done; exec sleep 1000"});
  const std::string tail = saved_tail_holding(dirs_, pane["id"], "seq-done");
  ASSERT_NE(tail.find("seq-done"), std::string::npos) << "no tail with the last line was saved";
  EXPECT_NE(tail.find("\n25500\n"), std::string::npos)
      << "the tail stops short of the ring: " << tail.substr(0, 80);
  EXPECT_LE(tail.size(), kTailMaxBytes);
}

TEST_F(PaneTail, LongLinesKeepTheNewest64KiB) {
  start();
  Client client = connect();
  // 3000 lines of 100 bytes: the newest 64 KiB, cut at a line start.
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c",
                     "i=0; while [ $i -lt 3000 ]; do i=$((i+1));"
                     " printf 'long-%05d-%093d\\n' $i 0; done; echo long-done; exec sleep 1000"});
  const std::string tail = saved_tail_holding(dirs_, pane["id"], "long-done");
  ASSERT_NE(tail.find("long-done"), std::string::npos) << "no tail with the last line was saved";
  EXPECT_LE(tail.size(), kTailMaxBytes);
  EXPECT_GT(tail.size(), kTailMaxBytes - 200) << "the tail holds less than it may";
  EXPECT_EQ(tail.find("long-"), 0u) << "the tail does not start at a line: " << tail.substr(0, 40);
  EXPECT_NE(tail.find("long-03000-"), std::string::npos);
  EXPECT_EQ(tail.find("long-02000-"), std::string::npos) << "the tail holds more than 64 KiB of lines";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
