// tests/ptyhost/ptyhost_screen_process_test.cpp: the screen watch of a real
// signaltty-ptyhost (docs/ptyhost-protocol.md, feature screen_watch): the
// `screen` op, one screen_changed per rearming read, foreground events when
// a program takes the terminal, and nothing of it for a broker without the
// feature; and the output notice (feature output_notice): one printed per
// rendered read, none for a broker without it.
// Runs in: the ptyhost process test binary.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/protocol/ptyhost_wire.hpp"
#include "tests/ptyhost/ptyhost_harness.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace wire = ::signaltty::protocol::ptyhost;

std::size_t count_events(const TestBroker& broker, const std::string& kind) {
  return static_cast<std::size_t>(std::count_if(
      broker.events().begin(), broker.events().end(),
      [&kind](const Json& e) { return e.value("kind", "") == kind; }));
}

// Reads the screen (without rearming) until it shows `text`: every event
// the output before it caused has arrived by then.
bool await_screen(TestBroker& broker, const std::string& text) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    Reply r = broker.request("read", {{"mode", "screen"}});
    if (r.ok && r.result.value("text", "").find(text) != std::string::npos) return true;
  }
  return false;
}

// A ptyhost whose broker announced `features`, running `argv`.
struct WatchedPane {
  TempDir dir;
  PtyhostProcess host;
  TestBroker broker;
  explicit WatchedPane(std::uint64_t features, const std::vector<std::string>& argv)
      : host(dir.path(), dir.file("ptyhost.log")),
        broker((host.wait_ready(), host.socket_path())) {
    broker.read_hello();
    broker.send_ack(wire::kPtyhostWireVersion, features);
    Reply r = broker.request("spawn", {{"argv", argv}, {"env", default_env()}, {"cwd", "/"},
                                       {"cols", 80}, {"rows", 24}});
    EXPECT_TRUE(r.ok) << r.code;
    child_pid = r.result.value("child_pid", std::int64_t{-1});
  }
  void type(const std::string& text) {
    broker.send_input(broker.next_rid(), 5000, text);
  }
  std::int64_t child_pid = -1;
};

TEST(PtyhostScreenWatch, ScreenReturnsTheVisibleRowsAndTitle) {
  WatchedPane pane(wire::kFeaturesSupported,
                   {"/bin/sh", "-c", "printf '\\033]2;my title\\007first\\r\\n  second  \\r\\n'; exec sleep 100"});
  ASSERT_TRUE(await_screen(pane.broker, "second"));
  Reply r = pane.broker.request("screen");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.result["title"], "my title");
  ASSERT_GE(r.result["rows"].size(), 2u);
  EXPECT_EQ(r.result["rows"][0], "first");
  EXPECT_EQ(r.result["rows"][1], "  second");
  EXPECT_EQ(r.result["alt_screen"], false);
}

TEST(PtyhostScreenWatch, OneScreenChangedPerRearmingRead) {
  WatchedPane pane(wire::kFeaturesSupported, {"cat"});
  pane.type("one\n");
  ASSERT_TRUE(await_screen(pane.broker, "one"));
  // A new connection starts disarmed: nothing until the broker reads.
  EXPECT_EQ(count_events(pane.broker, "screen_changed"), 0u);
  ASSERT_TRUE(pane.broker.request("screen").ok);
  pane.type("two\n");
  ASSERT_TRUE(await_screen(pane.broker, "two"));
  pane.type("three\n");
  ASSERT_TRUE(await_screen(pane.broker, "three"));
  EXPECT_EQ(count_events(pane.broker, "screen_changed"), 1u);
  // A look that does not rearm leaves it announced.
  ASSERT_TRUE(pane.broker.request("screen", {{"rearm", false}}).ok);
  pane.type("four\n");
  ASSERT_TRUE(await_screen(pane.broker, "four"));
  EXPECT_EQ(count_events(pane.broker, "screen_changed"), 1u);
  ASSERT_TRUE(pane.broker.request("screen").ok);
  pane.type("five\n");
  ASSERT_TRUE(await_screen(pane.broker, "five"));
  EXPECT_EQ(count_events(pane.broker, "screen_changed"), 2u);
}

// `sleep` typed into a shell prints nothing: the checks after input still
// see it take the terminal.
TEST(PtyhostScreenWatch, ForegroundMovesToAProgramTypedIntoAShell) {
  WatchedPane pane(wire::kFeaturesSupported, {"/bin/sh"});
  pane.type("echo ready\n");
  ASSERT_TRUE(await_screen(pane.broker, "ready"));
  Json first = pane.broker.await_event("foreground");
  ASSERT_FALSE(first.is_null());
  EXPECT_EQ(first["pgid"], pane.child_pid);  // the shell leads its own group
  pane.type("exec 2>/dev/null; sleep 100\n");
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  bool moved = false;
  while (!moved && Clock::now() < deadline) {
    pane.broker.request("read", {{"mode", "screen"}});  // pumps the events in
    for (const Json& e : pane.broker.events())
      if (e.value("kind", "") == "foreground" && e["pgid"] != pane.child_pid) moved = true;
  }
  EXPECT_TRUE(moved);
}

TEST(PtyhostScreenWatch, ABrokerWithoutTheFeatureGetsNoneOfIt) {
  WatchedPane pane(wire::kFeatureSerializeState, {"cat"});
  pane.type("one\n");
  ASSERT_TRUE(await_screen(pane.broker, "one"));
  ASSERT_TRUE(pane.broker.request("screen").ok);
  ASSERT_TRUE(pane.broker.request("read", {{"mode", "rendered"}, {"lines", 1}}).ok);
  pane.type("two\n");
  ASSERT_TRUE(await_screen(pane.broker, "two"));
  EXPECT_EQ(count_events(pane.broker, "screen_changed"), 0u);
  EXPECT_EQ(count_events(pane.broker, "foreground"), 0u);
  EXPECT_EQ(count_events(pane.broker, "printed"), 0u);
}

// The broker learns that a pane nobody views printed from one event per
// probe of the rendered head; other reads leave it as it was.
TEST(PtyhostOutputNotice, OnePrintedPerRenderedRead) {
  WatchedPane pane(wire::kFeaturesSupported, {"cat"});
  pane.type("one\n");
  ASSERT_TRUE(await_screen(pane.broker, "one"));
  // A new connection starts disarmed: nothing until the broker probes.
  EXPECT_EQ(count_events(pane.broker, "printed"), 0u);
  ASSERT_TRUE(pane.broker.request("read", {{"mode", "rendered"}, {"lines", 1}}).ok);
  pane.type("two\n");
  ASSERT_TRUE(await_screen(pane.broker, "two"));
  pane.type("three\n");
  ASSERT_TRUE(await_screen(pane.broker, "three"));
  ASSERT_EQ(count_events(pane.broker, "printed"), 1u);
  const Json first = pane.broker.await_event("printed");
  EXPECT_GT(first.value("output_offset", std::uint64_t{0}), 0u);
  // Reads of the screen or the tail do not rearm it.
  ASSERT_TRUE(pane.broker.request("read", {{"mode", "tail"}, {"lines", 5}}).ok);
  ASSERT_TRUE(pane.broker.request("screen").ok);
  pane.type("four\n");
  ASSERT_TRUE(await_screen(pane.broker, "four"));
  EXPECT_EQ(count_events(pane.broker, "printed"), 1u);
  // A probe with nothing printed after it sends nothing.
  ASSERT_TRUE(pane.broker.request("read", {{"mode", "rendered"}, {"lines", 1}}).ok);
  ASSERT_TRUE(await_screen(pane.broker, "four"));
  EXPECT_EQ(count_events(pane.broker, "printed"), 1u);
  pane.type("five\n");
  ASSERT_TRUE(await_screen(pane.broker, "five"));
  EXPECT_EQ(count_events(pane.broker, "printed"), 2u);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost::testing
