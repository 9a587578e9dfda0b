// tests/broker/store_launches_test.cpp: the order between launches and
// closes (broker/store_launches.hpp): a close waits for the launches in
// flight into its scope and refuses new ones until it ends.
#include <gtest/gtest.h>

#include "broker/store_launches.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(LaunchGate, ACloseWithNoLaunchInFlightGoesOnAtOnce) {
  LaunchGate gate;
  bool ran = false;
  gate.when_idle(LaunchScope::workspace("ws_a"), [&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST(LaunchGate, ACloseWaitsUntilTheLaunchIntoItsWorkspaceIsPublished) {
  LaunchGate gate;
  auto ticket = gate.begin_launch("ws_a", "");
  ASSERT_TRUE(ticket.ok());
  bool ran = false;
  gate.begin_close(LaunchScope::workspace("ws_a"));
  gate.when_idle(LaunchScope::workspace("ws_a"), [&] { ran = true; });
  EXPECT_FALSE(ran);
  LaunchGate::end_launch(*ticket);
  EXPECT_TRUE(ran);
  EXPECT_EQ(gate.launches_in_flight(), 0u);
}

TEST(LaunchGate, AWorkspaceCloseAlsoWaitsForLaunchesIntoItsTabs) {
  LaunchGate gate;
  auto ticket = gate.begin_launch("ws_a", "tab_1");
  ASSERT_TRUE(ticket.ok());
  bool workspace_idle = false;
  bool other_tab_idle = false;
  gate.when_idle(LaunchScope::workspace("ws_a"), [&] { workspace_idle = true; });
  gate.when_idle(LaunchScope::tab("ws_a", "tab_2"), [&] { other_tab_idle = true; });
  EXPECT_FALSE(workspace_idle);
  EXPECT_TRUE(other_tab_idle);
  LaunchGate::end_launch(*ticket);
  EXPECT_TRUE(workspace_idle);
}

TEST(LaunchGate, LaunchesIntoAClosingScopeAreRefusedUntilTheCloseEnds) {
  LaunchGate gate;
  gate.begin_close(LaunchScope::workspace("ws_a"));
  gate.begin_close(LaunchScope::tab("ws_b", "tab_1"));
  auto into_ws = gate.begin_launch("ws_a", "tab_9");
  ASSERT_FALSE(into_ws.ok());
  EXPECT_EQ(into_ws.error().code, ErrorCode::NoSuchWorkspace);
  auto into_tab = gate.begin_launch("ws_b", "tab_1");
  ASSERT_FALSE(into_tab.ok());
  EXPECT_EQ(into_tab.error().code, ErrorCode::NoSuchTab);
  EXPECT_TRUE(gate.begin_launch("ws_b", "tab_2").ok());
  gate.end_close(LaunchScope::workspace("ws_a"));
  EXPECT_TRUE(gate.begin_launch("ws_a", "tab_9").ok());
}

TEST(LaunchGate, AReleasedTicketGivesItsCountBackWithoutRunningACloseFromADestructor) {
  LaunchGate gate;
  bool ran = false;
  {
    auto ticket = gate.begin_launch("ws_a", "");
    ASSERT_TRUE(ticket.ok());
    gate.when_idle(LaunchScope::workspace("ws_a"), [&] { ran = true; });
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(gate.launches_in_flight(), 0u);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
