// tests/integration/agent_hooks_test.cpp: agent hooks end to end, through
// the real signaltty-hookrelay into a real broker and pane (docs/rules.md
// "Hook classification", "Hook attribution", "Decision", "Agent
// sessions"): the recorded Claude Code and Codex hook streams leave the
// pane in the state their screens show; a hook from inside a pane finds it
// by ancestry; a native permission waits for decision.answer and its
// verdict reaches the relay's stdout, even across a broker SIGKILL; bad
// hooks change nothing.
// Runs in: the integration test binary.
#include <fstream>

#include "tests/integration/fake_agent.hpp"
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

const std::string kFixtures = SIGNALTTY_AGENT_FIXTURES;

struct Expected {
  std::string event;
  std::string lifecycle;
  std::string attention;
};

std::vector<Json> hook_lines(const std::string& capture) {
  std::ifstream in(kFixtures + "/" + capture + "/hooks.jsonl");
  std::vector<Json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(Json::parse(line));
  return out;
}

class AgentHooks : public PaneTest {
 protected:
  std::string relay() const { return program_path("signaltty-hookrelay"); }

  // One hook as an installed hook runs it: the relay, the payload on stdin
  // (Codex notify: as its argument).
  RunResult run_relay(std::vector<std::string> args, const std::string& stdin_text = {}) {
    args.insert(args.begin(), relay());
    return run_program(dirs_, std::move(args), base_env(dirs_), stdin_text);
  }

  // A native PermissionRequest relay that waits, its verdict in a file.
  std::unique_ptr<ChildProcess> waiting_relay(const std::string& pane_id, const std::string& out) {
    const std::string payload = dirs_.scratch("permission.json");
    write_text_file(payload, Json{{"session_id", "s-1"},
                                  {"tool_name", "Bash"},
                                  {"tool_input", {{"command", "echo hi > /tmp/x"}}}}
                                 .dump());
    SpawnSpec spec;
    spec.argv = {relay(), "--agent", "claude", "--event", "PermissionRequest", "--pane", pane_id,
                 "--wait-for-answer"};
    spec.env = base_env(dirs_);
    spec.stdin_path = payload;
    spec.stdout_path = out;
    spec.stderr_path = out + ".err";
    return std::make_unique<ChildProcess>(spec);
  }

  // The pane's pending decision once it is there and `answerable` is as asked.
  Json pending_decision(Client& client, const std::string& pane_id, bool answerable = true) {
    Json decision;
    const bool there = wait_until([&] {
      const Json pane = get_pane(client, pane_id);
      if (!pane.contains("pending_decision")) return false;
      decision = pane["pending_decision"];
      return decision.value("answerable", true) == answerable;
    });
    if (!there) throw HarnessError("no pending decision on " + pane_id);
    return decision;
  }

  void replay(const std::string& capture, const std::string& agent,
              const std::vector<Expected>& expected) {
    start();
    Client client = connect();
    const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
    const std::vector<Json> hooks = hook_lines(capture);
    ASSERT_EQ(hooks.size(), expected.size());
    for (std::size_t i = 0; i < hooks.size(); ++i) {
      const Json& hook = hooks[i];
      SCOPED_TRACE("hook " + std::to_string(i) + " " + hook["event"].get<std::string>());
      ASSERT_EQ(hook["event"], expected[i].event);
      std::vector<std::string> args{"--agent", agent, "--event", hook["event"], "--pane", pane};
      std::string stdin_text;
      if (hook.contains("argv") && !hook["argv"].empty()) {
        args.push_back(hook["argv"][0].dump());
      } else {
        stdin_text = (hook.contains("payload") ? hook["payload"] : hook["stdin"]).dump();
      }
      const RunResult r = run_relay(args, stdin_text);
      EXPECT_EQ(r.status.code, 0) << r.err;
      EXPECT_EQ(r.out, "");
      const Json now = get_pane(client, pane);
      EXPECT_EQ(now["lifecycle"], expected[i].lifecycle);
      EXPECT_EQ(now["attention"], expected[i].attention);
    }
  }
};

// tests/fixtures/agents/claude-code-2.1.332/README.md names the screen each
// hook leads to; the idle_prompt Notification is a reminder on the idle
// screen, and the refused call of turn 3 fires no hook, so SessionEnd ends it.
TEST_F(AgentHooks, ClaudeCaptureThroughTheRelayLeavesEachScreensState) {
  replay("claude-code-2.1.332", "claude",
         {{"SessionStart", "idle", "none"},
          {"UserPromptSubmit", "working", "none"},
          {"Stop", "done", "unread"},
          {"Notification", "done", "unread"},
          {"UserPromptSubmit", "working", "none"},
          {"PreToolUse", "working", "none"},
          {"PermissionRequest", "blocked", "permission_required"},
          {"Notification", "blocked", "permission_required"},
          {"PostToolUse", "blocked", "permission_required"},
          {"Stop", "done", "permission_required"},
          {"UserPromptSubmit", "working", "none"},
          {"PreToolUse", "working", "none"},
          {"PermissionRequest", "blocked", "permission_required"},
          {"Notification", "blocked", "permission_required"},
          {"SessionEnd", "done", "permission_required"}});
}

// tests/fixtures/agents/codex-0.171.0: Codex's title thread's notify is
// dropped; the SessionEnd after a finished turn restates the outcome.
TEST_F(AgentHooks, CodexCaptureThroughTheRelayLeavesEachScreensState) {
  replay("codex-0.171.0", "codex",
         {{"SessionStart", "idle", "none"},
          {"UserPromptSubmit", "working", "none"},
          {"Stop", "done", "unread"},
          {"notify", "done", "unread"},
          {"notify", "done", "unread"},
          {"UserPromptSubmit", "working", "none"},
          {"PreToolUse", "working", "none"},
          {"PermissionRequest", "blocked", "permission_required"},
          {"PostToolUse", "blocked", "permission_required"},
          {"Stop", "done", "permission_required"},
          {"notify", "done", "permission_required"},
          {"SessionEnd", "done", "permission_required"}});
}

TEST_F(AgentHooks, AHookFromInsideThePaneFindsItByAncestryAndRecordsTheSession) {
  start();
  Client client = connect();
  const std::string script =
      "printf '%s' '{\"session_id\":\"sess-42\"}' | env -u SIGNALTTY_PANE '" + relay() +
      "' --agent claude --event UserPromptSubmit; echo relayed-$?; exec cat";
  const std::string pane =
      spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", script})["id"];
  wait_output(client, pane, "relayed-0");
  const Json now = get_pane(client, pane);
  EXPECT_EQ(now["lifecycle"], "working");
  EXPECT_EQ(now["agent"]["kind"], "claude");
  EXPECT_EQ(now["agent"]["agent_session_id"], "sess-42");
  EXPECT_EQ(now["agent"]["resume_argv"], Json::array({"claude", "--resume", "sess-42"}));
  EXPECT_EQ(now["session_generation"], 1);

  // Not a descendant of any pane (this test process): accepted, no pane.
  const Json stray = client.call(
      "hook-event", {{"agent", "claude"}, {"event", "Stop"}, {"client_pid", ::getpid()}});
  EXPECT_EQ(stray["accepted"], true);
  EXPECT_TRUE(stray["pane_id"].is_null());
  EXPECT_EQ(get_pane(client, pane)["lifecycle"], "working");
}

TEST_F(AgentHooks, ANativePermissionAnsweredWithDecisionAnswerPrintsTheVerdict) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  Client events = connect();
  events.call("subscribe", {{"events", Json::array({"decision.*"})}});
  const std::string out = dirs_.scratch("verdict.json");
  auto reporter = waiting_relay(pane, out);
  const Json decision = pending_decision(client, pane);
  EXPECT_TRUE(decision["id"].get<std::string>().starts_with("permission_"));
  EXPECT_EQ(decision["options"][0]["id"], "once");
  EXPECT_EQ(decision["prompt"].get<std::string>().substr(0, 12), "Allow Bash?\n");
  EXPECT_EQ(get_pane(client, pane)["lifecycle"], "blocked");

  EXPECT_EQ(client.call_error("decision.answer", {{"pane_id", pane},
                                                  {"decision_id", decision["id"]},
                                                  {"option_id", "always"}})["code"],
            "BAD_PARAMS");
  const Json answered = client.call(
      "decision.answer", {{"pane_id", pane}, {"decision_id", decision["id"]}, {"option_id", "once"}});
  EXPECT_EQ(answered["lifecycle"], "working");
  EXPECT_EQ(answered["attention"], "none");
  const auto status = reporter->wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 0);
  EXPECT_EQ(Json::parse(read_text_file(out)),
            (Json{{"hookSpecificOutput",
                   {{"hookEventName", "PermissionRequest"}, {"decision", {{"behavior", "allow"}}}}}}));
  // Consumed: the same id again is stale.
  EXPECT_EQ(client.call_error("decision.answer", {{"pane_id", pane},
                                                  {"decision_id", decision["id"]},
                                                  {"option_id", "once"}})["code"],
            "NO_SUCH_DECISION");
  const auto created = events.next_event(deadline_after());
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ((*created)["event"], "decision.created");
  const auto delivered = events.next_event(deadline_after());
  ASSERT_TRUE(delivered.has_value());
  EXPECT_EQ((*delivered)["event"], "decision.answered");
  EXPECT_EQ((*delivered)["payload"]["option_id"], "once");
}

TEST_F(AgentHooks, AFakeAgentTakesASubmittedPromptAndItsPermissionIsAnsweredRemotely) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"],
                                 {"/bin/sh", "-c", fake_agent_script(relay())})["id"];
  call_within(client, "wait", {{"pane_id", pane}, {"until", "idle"}, {"timeout_s", 10}},
              deadline_after());
  EXPECT_EQ(client.call_error("pane.submit", {{"pane_id", pane}, {"text", "a\x1b[201~b"}})["code"],
            "BAD_PARAMS");

  const Json baseline = client.call("pane.get", {{"pane_id", pane}})["wait_baseline"];
  const Json submitted = call_within(client, "pane.submit", {{"pane_id", pane}, {"text", "fix it"}},
                                     deadline_after());
  EXPECT_EQ(submitted["submitted"], true);
  EXPECT_TRUE(submitted["outcome"] == "working" || submitted["outcome"] == "blocked") << submitted;
  const Json decision = pending_decision(client, pane);
  // Busy while the permission waits.
  EXPECT_EQ(client.call_error("pane.submit", {{"pane_id", pane}, {"text", "more"}})["code"],
            "AGENT_BUSY");
  client.call("decision.answer",
              {{"pane_id", pane}, {"decision_id", decision["id"]}, {"option_id", "once"}});
  wait_output(client, pane, "\"behavior\":\"allow\"");
  const Json done = call_within(
      client, "wait", {{"pane_id", pane}, {"until", "done"}, {"after", baseline}, {"timeout_s", 10}},
      deadline_after());
  EXPECT_EQ(done["outcome"], "done");
  const Json now = get_pane(client, pane);
  EXPECT_EQ(now["last_message"], "all done");
  EXPECT_EQ(now["attention"], "unread");
  EXPECT_EQ(now["agent"]["agent_session_id"], "fake-1");
}

TEST_F(AgentHooks, AReporterTheAgentEndsClearsItsDecisionAndPrintsNothing) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  const std::string out = dirs_.scratch("verdict.json");
  auto reporter = waiting_relay(pane, out);
  pending_decision(client, pane);
  reporter->send_signal(SIGKILL);  // the user answered in the agent's own dialog
  ASSERT_TRUE(reporter->wait_exit(deadline_after()).has_value());
  EXPECT_TRUE(wait_until([&] { return !get_pane(client, pane).contains("pending_decision"); }));
  EXPECT_EQ(read_text_file(out), "");
}

TEST_F(AgentHooks, APendingPermissionSurvivesABrokerKillAndIsStillAnswered) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  const std::string out = dirs_.scratch("verdict.json");
  auto reporter = waiting_relay(pane, out);
  const Json decision = pending_decision(client, pane);
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  start();
  client = connect();
  // The reporter reconnects and registers the same decision again.
  const Json again = pending_decision(client, pane, true);
  EXPECT_EQ(again["id"], decision["id"]);
  EXPECT_EQ(get_pane(client, pane)["lifecycle"], "blocked");
  client.call("decision.answer",
              {{"pane_id", pane}, {"decision_id", decision["id"]}, {"option_id", "deny"}});
  const auto status = reporter->wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 0);
  EXPECT_EQ(Json::parse(read_text_file(out))["hookSpecificOutput"]["decision"]["behavior"], "deny");
}

TEST_F(AgentHooks, CodexDecisionsAreAnsweredByTypingTheOptionsIndex) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"],
                                 {"/bin/sh", "-c", "read x; echo got-$x; exec cat"})["id"];
  const Json decision = {{"id", "ask-1"},
                         {"prompt", "Run it?"},
                         {"options", Json::array({{{"id", "yes"}, {"label", "Yes"}},
                                                  {{"id", "no"}, {"label", "No"}}})}};
  const Json reported = client.call("hook-event", {{"agent", "codex"},
                                                   {"event", "PermissionRequest"},
                                                   {"pane_id", pane},
                                                   {"decision", decision}});
  EXPECT_EQ(reported["lifecycle"], "blocked");
  EXPECT_EQ(get_pane(client, pane)["pending_decision"]["answerable"], true);
  // Seeing the pane keeps the decision and its attention.
  client.call("pane.mark_seen", {{"pane_id", pane}});
  EXPECT_EQ(get_pane(client, pane)["attention"], "permission_required");
  client.call("decision.answer", {{"pane_id", pane}, {"decision_id", "ask-1"}, {"option_id", "no"}});
  wait_output(client, pane, "got-2");
  const Json now = get_pane(client, pane);
  EXPECT_FALSE(now.contains("pending_decision"));
  EXPECT_EQ(now["lifecycle"], "working");
  // A Claude decision has no channel of its own: read-only.
  client.call("hook-event", {{"agent", "claude"}, {"event", "Notification"}, {"pane_id", pane},
                             {"decision", decision}});
  EXPECT_EQ(client.call_error("decision.answer",
                              {{"pane_id", pane}, {"decision_id", "ask-1"}, {"option_id", "no"}})["code"],
            "BAD_PARAMS");
  // A prompt moves on: the decision is dropped.
  client.call("hook-event", {{"agent", "claude"}, {"event", "UserPromptSubmit"}, {"pane_id", pane}});
  EXPECT_FALSE(get_pane(client, pane).contains("pending_decision"));
}

TEST_F(AgentHooks, TheCliReportsFromInsideAPaneKeepsStdoutSilentAndListsEveryAgentsState) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  std::vector<std::string> env = base_env(dirs_);
  env.push_back("SIGNALTTY_PANE=" + pane);
  const RunResult hooked =
      run_program(dirs_, {program_path("signaltty"), "hook-event", "--agent", "claude", "--event",
                          "PermissionRequest", "--payload-stdin"},
                  env, R"({"session_id":"cli-1","tool_name":"Bash","tool_input":{"command":"ls"}})");
  EXPECT_EQ(hooked.status.code, 0) << hooked.err;
  EXPECT_EQ(hooked.out, "");
  EXPECT_NE(hooked.err, "");
  const Json now = get_pane(client, pane);
  EXPECT_EQ(now["lifecycle"], "blocked");
  EXPECT_EQ(now["agent"]["agent_session_id"], "cli-1");

  const RunResult listed = run_program(dirs_, {program_path("signaltty"), "pane", "list"}, env);
  ASSERT_EQ(listed.status.code, 0) << listed.err;
  for (const char* column : {"AGENT", "LIFECYCLE", "ATTENTION", "DECISION"})
    EXPECT_NE(listed.out.find(column), std::string::npos) << listed.out;
  for (const char* cell : {"claude", "blocked", "permission_required", "Allow Bash? [once|deny]",
                           "(read-only)"})
    EXPECT_NE(listed.out.find(cell), std::string::npos) << listed.out;
}

TEST_F(AgentHooks, BadHooksAreRefusedAndChangeNothing) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  const Json before = get_pane(client, pane);
  auto hook = [&](Json extra) {
    extra["pane_id"] = pane;
    if (!extra.contains("agent")) extra["agent"] = "claude";
    if (!extra.contains("event")) extra["event"] = "Stop";
    return extra;
  };
  EXPECT_EQ(client.call_error("hook-event", hook({{"agent", "vim"}}))["code"], "BAD_PARAMS");
  EXPECT_EQ(client.call_error("hook-event", {{"agent", "claude"}, {"event", "Stop"},
                                             {"pane_id", "pane_nope"}})["code"],
            "NO_SUCH_PANE");
  const Json dup = {{"id", "d"},
                    {"prompt", "?"},
                    {"options", Json::array({{{"id", "a"}, {"label", "A"}},
                                             {{"id", "a"}, {"label", "B"}}})}};
  EXPECT_EQ(client.call_error("hook-event", hook({{"decision", dup}}))["code"], "BAD_PARAMS");
  EXPECT_EQ(client.call_error("hook-event", hook({{"event", "PermissionRequest"},
                                                  {"wait_for_answer", true},
                                                  {"payload", {{"session_id", "s"}}}}))["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("hook-event", hook({{"wait_timeout_s", 0}}))["code"], "BAD_PARAMS");
  const Json not_object = client.call("hook-event", hook({{"payload", "Stop!"}}));
  EXPECT_EQ(not_object["dropped"], true);
  EXPECT_EQ(not_object["reason"], "unrecognized_hook");
  const Json mismatch = client.call("hook-event", hook({{"payload", {{"harness", "codex"}}}}));
  EXPECT_EQ(mismatch["accepted"], false);
  EXPECT_EQ(mismatch["reason"], "harness_mismatch");
  Json deep = Json::array();
  for (int i = 0; i < 200; ++i) deep = Json::array({deep});
  // Too deep to read even its id: refused with an error line (id null).
  client.send_request("hook-event", hook({{"payload", deep}}));
  const auto refused = client.read_message(deadline_after());
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ((*refused)["ok"], false);
  // Through the relay: not JSON, and a wrong-typed field (read as absent).
  EXPECT_EQ(run_relay({"--agent", "claude", "--event", "Stop", "--pane", pane}, "{nope").status.code,
            0);
  const Json after = get_pane(client, pane);
  EXPECT_EQ(after["lifecycle"], before["lifecycle"]);
  EXPECT_EQ(after["attention"], before["attention"]);
  EXPECT_FALSE(after.contains("pending_decision"));
  EXPECT_EQ(after["session_generation"], before["session_generation"]);
}

TEST_F(AgentHooks, ReportSessionRecordsTheSessionAndReplacingItInvalidatesABaseline) {
  start();
  Client client = connect();
  const std::string pane = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  Json reported = client.call("report-session", {{"pane_id", pane},
                                                 {"agent_session_id", "abc"},
                                                 {"agent", "codex"}})["pane"];
  EXPECT_EQ(reported["agent"]["resume_argv"], Json::array({"codex", "resume", "abc"}));
  const Json baseline = client.call("pane.get", {{"pane_id", pane}})["wait_baseline"];
  reported = client.call("report-session",
                         {{"pane_id", pane},
                          {"agent_session_id", "def"},
                          {"resume_argv", Json::array({"codex", "resume", "--last"})}})["pane"];
  EXPECT_EQ(reported["agent"]["resume_argv"], Json::array({"codex", "resume", "--last"}));
  EXPECT_EQ(client.call_error("wait", {{"pane_id", pane}, {"until", "done"}, {"after", baseline}})["code"],
            "IDENTITY_CHANGED");
  for (const Json& argv : {Json::array({"/usr/bin/codex"}), Json::array({"codex", "a\x1b"}),
                           Json::array()})
    EXPECT_EQ(client.call_error("report-session", {{"pane_id", pane},
                                                   {"agent_session_id", "x"},
                                                   {"resume_argv", argv}})["code"],
              "BAD_PARAMS");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
