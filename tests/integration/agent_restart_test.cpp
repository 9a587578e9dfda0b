// tests/integration/agent_restart_test.cpp: agent state across a broker
// SIGKILL (decisions 1 and 25): panes in every lifecycle, with raised
// attention and pending decisions, set by hooks right before the kill, are
// all correct, and attention.pending ranks them the same, the moment the
// restarted broker's socket answers. Prints how long that took.
// Runs in: the integration test binary.
#include <iostream>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using AgentRestart = PaneTest;

struct Shown {
  Json lifecycle, attention, decision_id;
  bool operator==(const Shown&) const = default;
};

Shown shown(const Json& pane) {
  return {pane["lifecycle"], pane["attention"],
          pane.contains("pending_decision") ? pane["pending_decision"]["id"] : Json()};
}

TEST_F(AgentRestart, EveryPanesStateAndDecisionIsCorrectAsSoonAsTheSocketAnswers) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  std::vector<std::string> panes;
  panes.push_back(spawn(client, ws, {"cat"})["id"]);
  for (int i = 0; i < 5; ++i)
    panes.push_back(client.call("pane.split", {{"pane_id", panes.back()},
                                               {"argv", Json::array({"cat"})}})["pane"]["id"]);
  auto hook = [&](const std::string& pane, const std::string& agent, const std::string& event,
                  Json extra = Json::object()) {
    extra["pane_id"] = pane;
    extra["agent"] = agent;
    extra["event"] = event;
    client.call("hook-event", extra);
  };
  const Json ask = {{"id", "ask-1"},
                    {"prompt", "Which branch?"},
                    {"options", Json::array({{{"id", "main"}, {"label", "main"}},
                                             {{"id", "dev"}, {"label", "dev"}}})}};
  hook(panes[0], "claude", "UserPromptSubmit");                                   // working
  hook(panes[1], "claude", "UserPromptSubmit");
  hook(panes[1], "claude", "PermissionRequest",
       {{"payload", {{"session_id", "s"}, {"tool_name", "Bash"}, {"tool_input", Json::object()}}}});
  hook(panes[2], "claude", "Stop", {{"payload", {{"last_assistant_message", "ok"}}}});  // done
  hook(panes[3], "codex", "SessionStart");                                         // idle
  hook(panes[4], "opencode", "session.error",
       {{"payload", {{"properties", {{"error", {{"data", {{"message", "quota"}}}}}}}}}});  // failed
  hook(panes[5], "codex", "PermissionRequest", {{"decision", ask}});               // blocked
  client.call("notify", {{"pane_id", panes[0]}, {"title", "fyi"}, {"severity", "warning"}});

  std::vector<Shown> before;
  for (const std::string& id : panes) before.push_back(shown(get_pane(client, id)));
  const Json pending_before = client.call("attention.pending");
  EXPECT_EQ(before[4].lifecycle, "failed");
  EXPECT_EQ(before[5].decision_id, "ask-1");

  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  const auto restart_began = Clock::now();
  start();
  Client after = connect();
  std::vector<Shown> now;
  for (const std::string& id : panes) now.push_back(shown(get_pane(after, id)));
  const Json pending_now = after.call("attention.pending");
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - restart_began);
  std::cout << "[ restart ] exec to correct agent states on the socket: " << took.count() << " ms\n";
  RecordProperty("restart_to_correct_states_ms", static_cast<int>(took.count()));
  for (std::size_t i = 0; i < panes.size(); ++i) {
    SCOPED_TRACE("pane " + std::to_string(i));
    EXPECT_EQ(now[i].lifecycle, before[i].lifecycle);
    EXPECT_EQ(now[i].attention, before[i].attention);
    EXPECT_EQ(now[i].decision_id, before[i].decision_id);
  }
  ASSERT_EQ(pending_now["panes"].size(), pending_before["panes"].size());
  for (std::size_t i = 0; i < pending_now["panes"].size(); ++i) {
    EXPECT_EQ(pending_now["panes"][i]["pane_id"], pending_before["panes"][i]["pane_id"]);
    EXPECT_EQ(pending_now["panes"][i]["attention"], pending_before["panes"][i]["attention"]);
  }
  // The explicit Codex decision is still answerable through its channel.
  after.call("decision.answer", {{"pane_id", panes[5]}, {"decision_id", "ask-1"}, {"option_id", "dev"}});
  EXPECT_EQ(get_pane(after, panes[5])["lifecycle"], "working");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
