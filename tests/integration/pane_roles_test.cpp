// tests/integration/pane_roles_test.cpp: roles on the socket
// (docs/security.md, "Roles on the socket"): each pane's program gets its
// own SIGNALTTY_TOKEN; a connection presenting it acts for that pane only.
// Reports are bound to the token's pane, decision.answer is refused, input
// and signals reach only the pane's own lineage, a closed pane's token is
// refused, and every (method, role) pair of the table server.schema prints
// is checked against the live broker.
// Runs in: the integration test binary.
#include <algorithm>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The value of `key` in a live process's environment, "" when unset.
std::string environ_value(pid_t pid, const std::string& key) {
  const std::string env = proc_file(pid, "environ");
  const std::string prefix = key + "=";
  std::size_t at = 0;
  while (at < env.size()) {
    const std::size_t end = std::min(env.find('\0', at), env.size());
    if (env.compare(at, prefix.size(), prefix) == 0)
      return env.substr(at + prefix.size(), end - at - prefix.size());
    at = end + 1;
  }
  return "";
}

class PaneRoles : public PaneTest {
 protected:
  struct Pane {
    std::string id;
    std::string workspace_id;
    std::string tab_id;
    std::string token;
  };

  // A pane running `cat` and its token, read from the program's environment.
  Pane open_pane(Client& client, const std::string& workspace_id, Json extra = Json::object()) {
    Json pane = spawn(client, workspace_id, {"cat"}, std::move(extra));
    const auto pid = pane["pid"].get<pid_t>();
    Pane out{pane["id"], pane["workspace_id"], pane["tab_id"], environ_value(pid, "SIGNALTTY_TOKEN")};
    EXPECT_FALSE(out.token.empty()) << "the pane's program has no SIGNALTTY_TOKEN";
    return out;
  }

  Client as_pane(const Pane& pane) {
    Client client = connect();
    client.use_token(pane.token);
    return client;
  }

  static std::string code_of(const Json& response) {
    if (response.value("ok", false)) return "ok";
    return response["error"].value("code", "");
  }
};

TEST_F(PaneRoles, EachPaneGetsItsOwnTokenAndItNeverReachesTheJournalOrTheLog) {
  start();
  Client user = connect();
  const std::string ws = make_workspace(user)["id"];
  Pane a = open_pane(user, ws);
  Pane b = open_pane(user, make_workspace(user, "other")["id"]);
  EXPECT_NE(a.token, b.token);
  EXPECT_TRUE(a.token.find(a.id) != std::string::npos);  // names its pane, keyed by the broker

  // A token set by the caller of pane.spawn, or inherited by the broker,
  // never reaches the child: it gets its own.
  Json spawned = spawn(user, make_workspace(user, "c")["id"], {"cat"},
                       {{"env", {{"SIGNALTTY_TOKEN", b.token}}}});
  const std::string c_token = environ_value(spawned["pid"].get<pid_t>(), "SIGNALTTY_TOKEN");
  EXPECT_NE(c_token, b.token);
  EXPECT_FALSE(c_token.empty());

  Client pane_a = as_pane(a);
  pane_a.call("notify", {{"title", "hello"}});
  const std::string journal = read_text_file(dirs_.state_file("audit.jsonl"));
  for (const std::string& token : {a.token, b.token, c_token}) {
    const std::string mac = token.substr(token.rfind('.') + 1);
    EXPECT_EQ(journal.find(mac), std::string::npos) << "a token reached the journal";
    EXPECT_EQ(broker().stderr_text().find(mac), std::string::npos) << "a token reached the log";
  }
}

TEST_F(PaneRoles, ReportsAreBoundToTheTokensPaneWhateverPaneTheyName) {
  start();
  Client user = connect();
  Pane a = open_pane(user, make_workspace(user)["id"]);
  Pane b = open_pane(user, make_workspace(user, "b")["id"]);
  Client pane_a = as_pane(a);

  for (const char* method : {"notify", "hook-event", "report-session"}) {
    SCOPED_TRACE(method);
    Json params = {{"pane_id", b.id},       {"title", "t"},           {"agent", "claude"},
                   {"event", "Stop"},        {"agent_session_id", "s"}};
    const Json refused = pane_a.call_error(method, params);
    EXPECT_EQ(refused["code"], "FORBIDDEN");
    EXPECT_EQ(refused["details"]["pane_id"], a.id);
  }
  EXPECT_EQ(get_pane(user, b.id)["attention"], "none");
  EXPECT_FALSE(get_pane(user, b.id)["agent"].contains("agent_session_id"));

  // No pane named: the token's pane. Naming itself (by id) is fine too.
  const Json hooked = pane_a.call(
      "hook-event", {{"agent", "claude"}, {"event", "UserPromptSubmit"}, {"client_pid", 1}});
  EXPECT_EQ(hooked["pane_id"], a.id);
  EXPECT_EQ(get_pane(user, a.id)["lifecycle"], "working");
  EXPECT_EQ(pane_a.call("notify", {{"pane_id", a.id}, {"title", "mine"}})["notification"]["pane_id"],
            a.id);
  pane_a.call("report-session", {{"agent_session_id", "sess-a"}, {"agent", "claude"}});
  EXPECT_EQ(get_pane(user, a.id)["agent"]["agent_session_id"], "sess-a");
}

TEST_F(PaneRoles, APaneNeverAnswersADecisionNorStopsTheServer) {
  start();
  Client user = connect();
  Pane a = open_pane(user, make_workspace(user)["id"]);
  user.call("hook-event", {{"agent", "claude"},
                           {"event", "Notification"},
                           {"pane_id", a.id},
                           {"decision",
                            {{"id", "d1"},
                             {"prompt", "Run rm?"},
                             {"options", {{{"id", "yes"}, {"label", "Yes"}}}}}}});
  Client pane_a = as_pane(a);
  const Json refused = pane_a.call_error(
      "decision.answer", {{"pane_id", a.id}, {"decision_id", "d1"}, {"option_id", "yes"}});
  EXPECT_EQ(refused["code"], "FORBIDDEN");
  EXPECT_EQ(get_pane(user, a.id)["pending_decision"]["id"], "d1");  // still the user's to answer
  EXPECT_EQ(pane_a.call_error("server.shutdown", {{"force", true}})["code"], "FORBIDDEN");
  EXPECT_TRUE(is_ok(user.request("server.status")));
}

TEST_F(PaneRoles, InputAndSignalsReachOnlyThePanesLineage) {
  start();
  Client user = connect();
  const std::string ws = make_workspace(user)["id"];
  Pane a = open_pane(user, ws);
  Pane stranger = open_pane(user, make_workspace(user, "s")["id"]);
  Client pane_a = as_pane(a);

  // A child spawned through the token: its parent is the token's pane.
  const Json child = pane_a.call("pane.spawn", {{"workspace_id", make_workspace(user, "c")["id"]},
                                                {"argv", {"cat"}}})["pane"];
  EXPECT_EQ(child["parent_pane_id"], a.id);
  const Json grandchild = user.call("pane.spawn", {{"workspace_id", make_workspace(user, "g")["id"]},
                                                   {"argv", {"cat"}},
                                                   {"parent_pane_id", child["id"]}})["pane"];
  const std::string data = base64_encode("hi\n");
  for (const std::string& target : {a.id, child["id"].get<std::string>(),
                                    grandchild["id"].get<std::string>()}) {
    SCOPED_TRACE(target);
    EXPECT_EQ(code_of(pane_a.request("pane.input", {{"pane_id", target}, {"data_b64", data}})), "ok");
  }
  wait_output(user, grandchild["id"], "hi");
  for (const char* method : {"pane.input", "pane.submit", "pane.signal", "pane.attach",
                             "pane.close", "pane.resize", "pane.clear", "pane.mark_seen"}) {
    SCOPED_TRACE(method);
    const Json r = pane_a.request(method, {{"pane_id", stranger.id},
                                           {"data_b64", data},
                                           {"text", "x"},
                                           {"signal", "TERM"},
                                           {"cols", 40},
                                           {"rows", 10}});
    EXPECT_EQ(code_of(r), "FORBIDDEN") << r.dump();
    EXPECT_EQ(r["error"]["details"]["target"], stranger.id);
  }
  EXPECT_FALSE(get_pane(user, stranger.id)["pid"].is_null());
  // Spawning into another pane's lineage is refused too.
  EXPECT_EQ(pane_a.call_error("pane.spawn", {{"workspace_id", ws},
                                             {"argv", {"cat"}},
                                             {"parent_pane_id", stranger.id}})["code"],
            "FORBIDDEN");
  // A workspace holding a stranger's pane cannot be closed through a token.
  EXPECT_EQ(pane_a.call_error("workspace.close", {{"workspace_id", stranger.workspace_id}})["code"],
            "FORBIDDEN");
  EXPECT_EQ(pane_a.call_error("tab.close", {{"tab_id", stranger.tab_id}})["code"], "FORBIDDEN");
  // A split through the token is the token's child too.
  const Json split = pane_a.call("pane.split", {{"pane_id", a.id}, {"argv", {"cat"}}})["pane"];
  EXPECT_EQ(split["parent_pane_id"], a.id);
  EXPECT_EQ(code_of(pane_a.request("pane.input", {{"pane_id", split["id"]}, {"data_b64", data}})),
            "ok");
  // The user role reaches everything.
  EXPECT_EQ(code_of(user.request("pane.input", {{"pane_id", stranger.id}, {"data_b64", data}})),
            "ok");
}

TEST_F(PaneRoles, ABadForeignOrClosedPanesTokenIsRefused) {
  start();
  Client user = connect();
  Pane a = open_pane(user, make_workspace(user)["id"]);
  Pane b = open_pane(user, make_workspace(user, "b")["id"]);

  Client forged = connect();
  std::string tampered = a.token;
  tampered.back() = tampered.back() == '0' ? '1' : '0';
  for (const std::string& token : {tampered, std::string("stp1.") + b.id + ".00",
                                   std::string("garbage")}) {
    forged.use_token(token);
    EXPECT_EQ(forged.call_error("server.status")["code"], "FORBIDDEN") << token;
  }
  Client typed = connect();
  typed.send_raw(R"({"protocol":"signaltty/1","id":"t","method":"server.status","token":42})"
                 "\n");
  const auto bad_type = typed.read_message(deadline_after());
  ASSERT_TRUE(bad_type.has_value());
  EXPECT_EQ((*bad_type)["error"]["code"], "BAD_PARAMS");
  EXPECT_EQ((*bad_type)["error"]["details"]["field"], "token");

  // One connection acts for one pane: another token on it is refused.
  Client pane_a = as_pane(a);
  pane_a.call("server.status");
  pane_a.use_token(b.token);
  EXPECT_EQ(pane_a.call_error("server.status")["code"], "FORBIDDEN");
  pane_a.use_token("");
  EXPECT_EQ(pane_a.call_error("decision.answer", {{"pane_id", a.id},
                                                  {"decision_id", "x"},
                                                  {"option_id", "y"}})["code"],
            "FORBIDDEN")
      << "dropping the token does not drop the role";

  // A closed pane's token: refused, never applied elsewhere.
  Client pane_b = as_pane(b);
  pane_b.call("server.status");
  user.call("pane.close", {{"pane_id", b.id}, {"signal", "KILL"}});
  ASSERT_TRUE(wait_until([&] { return !is_ok(user.request("pane.get", {{"pane_id", b.id}})); }));
  EXPECT_EQ(pane_b.call_error("notify", {{"title", "ghost"}})["code"], "FORBIDDEN");
  Client fresh_b = as_pane(b);
  EXPECT_EQ(fresh_b.call_error("hook-event", {{"agent", "claude"}, {"event", "Stop"}})["code"],
            "FORBIDDEN");
}

// A workspace created with shared_control lets its panes drive each other;
// only the user role can create one.
TEST_F(PaneRoles, ASharedControlWorkspaceLetsItsPanesDriveEachOther) {
  start();
  Client user = connect();
  const Json shared = user.call("workspace.create", {{"name", "team"},
                                                     {"cwd", dirs_.home()},
                                                     {"shared_control", true}})["workspace"];
  EXPECT_EQ(shared["shared_control"], true);
  Pane a = open_pane(user, shared["id"]);
  const Json peer = user.call("pane.split", {{"pane_id", a.id}, {"argv", {"cat"}}})["pane"];
  EXPECT_FALSE(peer.contains("parent_pane_id"));  // not a's child: the grant is what lets a in
  Pane outside = open_pane(user, make_workspace(user, "plain")["id"]);
  const Json plain_peer = user.call("pane.split", {{"pane_id", outside.id}, {"argv", {"cat"}}})["pane"];

  const std::string data = base64_encode("x\n");
  Client pane_a = as_pane(a);
  EXPECT_EQ(code_of(pane_a.request("pane.input", {{"pane_id", peer["id"]}, {"data_b64", data}})),
            "ok");
  Client pane_out = as_pane(outside);
  EXPECT_EQ(code_of(pane_out.request("pane.input",
                                     {{"pane_id", plain_peer["id"]}, {"data_b64", data}})),
            "FORBIDDEN");
  EXPECT_EQ(code_of(pane_out.request("pane.input", {{"pane_id", peer["id"]}, {"data_b64", data}})),
            "FORBIDDEN");
  // A pane cannot grant itself (or anyone) more.
  const Json refused = pane_a.call_error("workspace.create", {{"cwd", dirs_.home()},
                                                              {"shared_control", true}});
  EXPECT_EQ(refused["code"], "FORBIDDEN");
  EXPECT_EQ(refused["details"]["field"], "shared_control");
  EXPECT_EQ(pane_a.call("workspace.create", {{"cwd", dirs_.home()}})["workspace"]["shared_control"],
            false);
  // The grant outlives a broker restart (it is part of the workspace).
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  start();
  Client again = as_pane(a);
  EXPECT_EQ(code_of(again.request("pane.input", {{"pane_id", peer["id"]}, {"data_b64", data}})),
            "ok");
}

// The CLI and the hook relay run inside a pane carry its token on their own.
TEST_F(PaneRoles, TheCliAndTheRelayInsideAPaneActForThatPane) {
  start();
  Client user = connect();
  Pane other = open_pane(user, make_workspace(user, "o")["id"]);
  user.call("hook-event", {{"agent", "claude"},
                           {"event", "Notification"},
                           {"pane_id", other.id},
                           {"decision",
                            {{"id", "d1"},
                             {"prompt", "Run rm?"},
                             {"options", {{{"id", "yes"}, {"label", "Yes"}}}}}}});
  const std::string script =
      "'" + program_path("signaltty") + "' decision answer " + other.id + " d1 yes; echo answer-rc=$?; '" +
      program_path("signaltty-hookrelay") + "' --agent claude --event Stop --pane " + other.id +
      " </dev/null; echo relay-rc=$?; exec cat";
  const std::string mine =
      spawn(user, make_workspace(user)["id"], {"/bin/sh", "-c", script})["id"];
  wait_output(user, mine, "relay-rc=0");
  const Json text = user.call("pane.read", {{"pane_id", mine}});
  EXPECT_NE(text.dump().find("answer-rc=1"), std::string::npos) << text.dump();
  EXPECT_NE(text.dump().find("FORBIDDEN"), std::string::npos) << text.dump();
  EXPECT_EQ(get_pane(user, other.id)["pending_decision"]["id"], "d1");
  EXPECT_NE(get_pane(user, other.id)["lifecycle"], "done") << "the relay's Stop reached it";
  // Outside the panes the same request passes the permit check.
  EXPECT_NE(code_of(user.request("decision.answer",
                                 {{"pane_id", other.id}, {"decision_id", "d1"}, {"option_id", "yes"}})),
            "FORBIDDEN");
}

TEST_F(PaneRoles, TokensStillWorkAfterTheBrokerIsKilled) {
  start();
  Client user = connect();
  Pane a = open_pane(user, make_workspace(user)["id"]);
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  start();
  Client pane_a = as_pane(a);
  EXPECT_EQ(pane_a.call("notify", {{"title", "after"}})["notification"]["pane_id"], a.id);
}

// Every (method, role) pair of the table server.schema prints, against the
// live broker: the user role is never refused; the pane role is refused
// exactly where its permit says, for a target outside its lineage.
TEST_F(PaneRoles, EveryMethodAndRolePairBehavesAsTheSchemaSays) {
  start();
  Client user = connect();
  Pane a = open_pane(user, make_workspace(user)["id"]);
  Pane stranger = open_pane(user, make_workspace(user, "s")["id"]);
  const Json schema = user.call("server.schema");
  std::size_t checked = 0;
  for (const Json& method : schema["methods"]) {
    const std::string name = method["name"];
    SCOPED_TRACE(name);
    const Json& permits = method["permits"];
    ASSERT_EQ(permits["user"], "allow");
    const std::string pane = permits["pane"];
    if (!method["implemented"].get<bool>()) continue;
    // The user role: never FORBIDDEN (empty params: BAD_PARAMS at worst).
    {
      Client c = connect();
      EXPECT_NE(code_of(c.request(name, {}, deadline_after(std::chrono::seconds(20)))),
                "FORBIDDEN");
    }
    // The pane role, aimed at the stranger's pane (or its workspace/tab).
    Json params = Json::object();
    if (permits.contains("target")) {
      const std::string field = permits["target"];
      params[field] = field == "workspace_id"     ? Json(stranger.workspace_id)
                      : field == "tab_id"         ? Json(stranger.tab_id)
                      : field == "shared_control" ? Json(true)
                                                  : Json(stranger.id);
    }
    Client c = as_pane(a);
    const std::string got = code_of(c.request(name, params, deadline_after(std::chrono::seconds(20))));
    if (pane == "allow")
      EXPECT_NE(got, "FORBIDDEN");
    else
      EXPECT_EQ(got, "FORBIDDEN") << "permit " << pane;
    ++checked;
  }
  EXPECT_GE(checked, 50u);
  EXPECT_FALSE(get_pane(user, stranger.id)["pid"].is_null());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
