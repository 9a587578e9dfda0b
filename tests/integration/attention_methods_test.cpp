// tests/integration/attention_methods_test.cpp: the attention methods over
// the real socket (docs/rules.md "Notifications", "Attention order",
// "Clearing (mark seen)", "Wait baseline"): notify raises by severity,
// attention.pending and focus.next_unread rank, pane.mark_seen clears, and
// `wait` answers on the transition, on a timeout, and when its connection
// sends another request (cancelled, never answered).
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using AttentionMethods = PaneTest;

std::vector<std::string> pending_ids(Client& client) {
  const Json pending = client.call("attention.pending");
  std::vector<std::string> out;
  for (const Json& p : pending["panes"]) out.push_back(p["pane_id"]);
  return out;
}

TEST_F(AttentionMethods, NotifyPendingFocusMarkSeenAndWait) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string a = spawn(client, ws, {"cat"})["id"];
  const std::string b =
      client.call("pane.split", {{"pane_id", a}, {"argv", Json::array({"cat"})}})["pane"]["id"];

  const Json note = client.call("notify", {{"pane_id", a}, {"title", "t"}, {"body", "hi"}});
  EXPECT_EQ(note["notification"]["pane_id"], a);
  EXPECT_EQ(note["notification"]["severity"], "info");
  client.call("notify", {{"pane_id", b}, {"title", "boom"}, {"severity", "error"}});
  const Json global = client.call("notify", {{"title", "all"}, {"severity", "error"}});
  EXPECT_FALSE(global["notification"].contains("pane_id"));

  EXPECT_EQ(pending_ids(client), (std::vector<std::string>{b, a}));
  EXPECT_EQ(client.call("attention.pending", {{"limit", 1}})["panes"].size(), 1u);
  EXPECT_EQ(client.call("focus.next_unread")["pane_id"], b);
  EXPECT_EQ(get_pane(client, a)["attention"], "unread");

  // A wait on its own connection, from a baseline taken before the read.
  const Json baseline = client.call("pane.get", {{"pane_id", a}})["wait_baseline"];
  EXPECT_GT(baseline["attention_seq"].get<std::uint64_t>(), 0u);
  Client waiter = connect();
  const Json wait_id = waiter.send_request(
      "wait", {{"pane_id", a}, {"until", Json::array({"done", "seen"})}, {"after", baseline}});
  const Json seen = client.call("pane.mark_seen", {{"pane_id", a}});
  EXPECT_EQ(seen["pane"]["attention"], "none");
  EXPECT_TRUE(seen["pane"].contains("last_seen_at"));
  const Json waited = waiter.await_response(wait_id);
  ASSERT_TRUE(waited.value("ok", false)) << waited.dump();
  EXPECT_EQ(waited["result"]["outcome"], "seen");
  EXPECT_EQ(waited["result"]["attention"], "none");
  EXPECT_EQ(waited["result"]["transition_seq"],
            client.call("pane.get", {{"pane_id", a}})["wait_baseline"]["attention_seq"]);

  EXPECT_EQ(pending_ids(client), std::vector<std::string>{b});
  const Json now = client.call("wait", {{"pane_id", a}, {"until", "none"}});
  EXPECT_EQ(now["outcome"], "none");
  const Json expired =
      client.call_error("wait", {{"pane_id", a}, {"until", "done"}, {"timeout_s", 0.2}});
  EXPECT_EQ(expired["code"], "TIMEOUT");
  EXPECT_EQ(client.call_error("wait", {{"pane_id", a}, {"until", "finished"}})["code"],
            "BAD_PARAMS");
}

TEST_F(AttentionMethods, WaitSeesTheExitTransitionAndAnotherRequestCancelsIt) {
  start();
  Client client = connect();
  const std::string a = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  const Json baseline = client.call("pane.get", {{"pane_id", a}})["wait_baseline"];

  // Cancelled: the next request on the connection is answered, the wait never.
  Client cancelled = connect();
  const Json dropped_id = cancelled.send_request("wait", {{"pane_id", a}, {"until", "exited"}});
  const Json status = cancelled.request("server.status");
  EXPECT_TRUE(status.value("ok", false)) << status.dump();

  Client waiter = connect();
  const Json wait_id =
      waiter.send_request("wait", {{"pane_id", a}, {"until", "exited"}, {"after", baseline}});
  client.call("pane.signal", {{"pane_id", a}, {"signal", "KILL"}});
  const Json waited = waiter.await_response(wait_id);
  ASSERT_TRUE(waited.value("ok", false)) << waited.dump();
  EXPECT_EQ(waited["result"]["outcome"], "exited");
  EXPECT_EQ(waited["result"]["lifecycle"], "exited");

  // Had the cancelled wait stayed, the exit would have answered it by now.
  const Json after = cancelled.request("server.status");
  EXPECT_TRUE(after.value("ok", false));
  for (const Json& stray : cancelled.strays()) EXPECT_NE(stray["id"], dropped_id) << stray.dump();
  for (const std::string& line : cancelled.read_available())
    EXPECT_EQ(line.find("\"exited\""), std::string::npos) << line;
}

// A waiter that hangs up mid-wait (killed, or its terminal closed) is
// forgotten: the transition it waited for answers nobody, and the broker
// keeps answering everyone else.
TEST_F(AttentionMethods, WaiterThatHangsUpMidWaitIsForgottenAndTheBrokerGoesOn) {
  start();
  Client client = connect();
  const std::string a = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  for (int i = 0; i < 3; ++i) {
    Client gone = connect();
    gone.send_request("wait", {{"pane_id", a}, {"until", "exited"}});
  }  // each waiter's connection closes here, its wait still pending
  client.call("pane.signal", {{"pane_id", a}, {"signal", "KILL"}});
  ASSERT_TRUE(wait_until([&] { return get_pane(client, a)["lifecycle"] == "exited"; }));
  const Json status = client.request("server.status");
  EXPECT_TRUE(status.value("ok", false)) << status.dump();
  EXPECT_TRUE(broker().running());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
