// tests/integration/pane_io_test.cpp: pane.input, resize, signal, read,
// wait_for_output, clear, attach/detach against the real broker and
// ptyhosts (docs/rules.md "Input", "Resize and signals", "Reads", "Attach / detach").
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using PaneIo = PaneTest;

const std::string kUnknownPaneId = "pane_00000000000000000000000000000000";

TEST_F(PaneIo, InputReachesTheProgramAndItsEchoIsReadBack) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  Json written = client.call("pane.input", {{"pane_id", pane["id"]}, {"data_b64", base64_encode("hello\n")}});
  EXPECT_EQ(written["written"], 6);
  Json found = wait_output(client, pane["id"], "hello");
  EXPECT_EQ(found["matched_line"], "hello");
}

TEST_F(PaneIo, InputRefusals) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", "exit 0"});
  EXPECT_EQ(client.call_error("pane.input", {{"pane_id", pane["id"]}, {"data_b64", "!!notbase64"}})["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.input", {{"pane_id", pane["id"]},
                                             {"data_b64", std::string((1u << 20) + 4, 'A')}})["code"],
            "RATE_LIMITED");
  EXPECT_EQ(client.call_error("pane.input", {{"pane_id", kUnknownPaneId}, {"data_b64", "eA=="}})["code"],
            "NO_SUCH_PANE");
  ASSERT_TRUE(wait_until([&] { return get_pane(client, pane["id"])["live"]["state"] == "exited"; }));
  Json exited = client.call_error("pane.input", {{"pane_id", pane["id"]}, {"data_b64", "eA=="}});
  EXPECT_EQ(exited["code"], "PANE_EXITED");
  EXPECT_TRUE(exited["details"].contains("written_bytes"));
}

TEST_F(PaneIo, StalledProgramTimesOutWithinTheFiveSecondBudget) {
  start();
  Client client = connect();
  // In canonical mode the line discipline throws input away past 4 KiB
  // rather than pushing back; a raw, non-echoing terminal that nobody reads
  // is what really stalls a writer.
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "stty raw -echo; echo stalled-ready; exec sleep 1000"});
  wait_output(client, pane["id"], "stalled-ready");
  const auto t0 = Clock::now();
  Json response = client.request("pane.input", {{"pane_id", pane["id"]},
                                                {"data_b64", base64_encode(std::string(700000, 'a'))}},
                                 deadline_after(std::chrono::seconds(15)));
  const auto took = Clock::now() - t0;
  ASSERT_EQ(error_code(response), "TIMEOUT") << response.dump().substr(0, 300);
  EXPECT_LT(response["error"]["details"]["written_bytes"].get<std::uint64_t>(), 700000u);
  EXPECT_LT(took, std::chrono::seconds(7));
}

TEST_F(PaneIo, ExitIsRecordedWithCodeLifecycleAndEvents) {
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"pane.exited", "agent.exited", "attention.*"}}});
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", "exit 5"});
  std::map<std::string, Json> seen;
  while (seen.size() < 3) {
    auto ev = watcher.next_event(deadline_after());
    ASSERT_TRUE(ev.has_value());
    seen[(*ev)["event"]] = (*ev)["payload"];
  }
  EXPECT_EQ(seen["pane.exited"], Json({{"pane_id", pane["id"]},
                                       {"code", 5},
                                       {"signal", nullptr},
                                       {"exit_reason", "exited"}}));
  EXPECT_EQ(seen["agent.exited"]["outcome"], "failed");
  EXPECT_EQ(seen["agent.exited"]["exit_code"], 5);
  EXPECT_EQ(seen["attention.created"]["attention"], "unread");
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["live"], Json({{"state", "exited"}, {"code", 5}}));
  EXPECT_EQ(now["restore_state"], "EXITED");
  EXPECT_EQ(now["lifecycle"], "exited");
  EXPECT_TRUE(now["pid"].is_null());
}

TEST_F(PaneIo, SignalsByNameAndGroup) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json pane = spawn(client, ws, {"sleep", "1000"});
  EXPECT_EQ(client.call_error("pane.signal", {{"pane_id", pane["id"]}, {"signal", "SEGV"}})["code"],
            "BAD_PARAMS");
  EXPECT_TRUE(client.call("pane.signal", {{"pane_id", pane["id"]}, {"signal", "sigterm"}})["sent"]);
  ASSERT_TRUE(wait_until([&] { return get_pane(client, pane["id"])["exit_signal"] == "TERM"; }));
  EXPECT_EQ(client.call_error("pane.signal", {{"pane_id", pane["id"]}, {"signal", "INT"}})["code"],
            "PANE_EXITED");
  Json group = client.call("pane.split", {{"pane_id", pane["id"]},
                                          {"argv", {"/bin/sh", "-c", "sleep 1000 & echo bg=$!; wait"}}})["pane"];
  Json found = wait_output(client, group["id"], "bg=");
  const pid_t background = std::stoi(found["matched_line"].get<std::string>().substr(3));
  client.call("pane.signal", {{"pane_id", group["id"]}, {"signal", "KILL"}, {"group", true}});
  EXPECT_TRUE(wait_gone(background));
}

TEST_F(PaneIo, ReadModesAndTheRenderedCursor) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "for i in 1 2 3 4 5; do echo row-$i; done; exec cat"});
  wait_output(client, pane["id"], "row-5");
  Json tail = client.call("pane.read", {{"pane_id", pane["id"]}, {"lines", 2}});
  EXPECT_EQ(tail["text"], "row-4\nrow-5");
  EXPECT_EQ(tail["truncated"], true);
  Json screen = client.call("pane.read", {{"pane_id", pane["id"]}, {"mode", "screen"}});
  EXPECT_NE(screen["text"].get<std::string>().find("row-1"), std::string::npos);
  Json all = client.call("pane.read", {{"pane_id", pane["id"]}, {"mode", "rendered"}});
  EXPECT_EQ(all["dropped"], false);
  const std::uint64_t head = all["next_seq"];
  input(client, pane["id"], "more\n");
  Json delta = wait_output(client, pane["id"], "more", {{"mode", "rendered"}, {"after_seq", head}});
  EXPECT_EQ(delta["text"].get<std::string>().find("row-"), std::string::npos) << delta.dump();
  Json ahead = client.call("pane.read", {{"pane_id", pane["id"]}, {"mode", "rendered"}, {"after_seq", head + 100000}});
  EXPECT_EQ(ahead["dropped"], true);
  EXPECT_EQ(client.call_error("pane.read", {{"pane_id", kUnknownPaneId}})["code"], "NO_SUCH_PANE");
  EXPECT_EQ(client.call_error("pane.read", {{"pane_id", pane["id"]}, {"mode", "sideways"}})["code"],
            "BAD_PARAMS");
}

TEST_F(PaneIo, WaitForOutputRegexTimeoutAndExit) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json pane = spawn(client, ws, {"/bin/sh", "-c", "echo build 42 ok; exec cat"});
  Json hit = wait_output(client, pane["id"], "build [0-9]+ ok", {{"regex", true}});
  EXPECT_EQ(hit["matched_line"], "build 42 ok");
  EXPECT_EQ(client.call_error("pane.wait_for_output", {{"pane_id", pane["id"]}, {"match", "(("}, {"regex", true}})["code"],
            "BAD_PARAMS");
  Json timeout = client.request("pane.wait_for_output", {{"pane_id", pane["id"]}, {"match", "never"}, {"timeout_s", 0.3}});
  EXPECT_EQ(error_code(timeout), "TIMEOUT");
  Json ending = client.call("pane.split", {{"pane_id", pane["id"]}, {"argv", {"/bin/sh", "-c", "sleep 0.3; exit 1"}}})["pane"];
  Json exited = client.request("pane.wait_for_output", {{"pane_id", ending["id"]}, {"match", "never"}});
  EXPECT_EQ(error_code(exited), "PANE_EXITED");
}

TEST_F(PaneIo, ClearBlanksTheScreenAndScrollback) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", "echo visible-text; exec cat"});
  wait_output(client, pane["id"], "visible-text");
  client.call("pane.clear", {{"pane_id", pane["id"]}});
  Json tail = client.call("pane.read", {{"pane_id", pane["id"]}, {"mode", "tail"}});
  EXPECT_EQ(tail["text"].get<std::string>().find("visible-text"), std::string::npos);
}

TEST_F(PaneIo, ResizeClampsStoresAndTellsTheProgram) {
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"pane.resized"}}});
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "read x; stty size; exec cat"});
  Json resized = client.call("pane.resize", {{"pane_id", pane["id"]}, {"cols", 1000}, {"rows", 40}})["pane"];
  EXPECT_EQ(resized["pty_size"], Json({{"cols", 500}, {"rows", 40}}));
  auto ev = watcher.next_event(deadline_after());
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ((*ev)["event"], "pane.resized");
  input(client, pane["id"], "\n");
  wait_output(client, pane["id"], "40 500");
}

TEST_F(PaneIo, AttachStreamsOutputAfterTheSnapshotOnlyToAttachedClients) {
  start();
  Client client = connect();
  Client other = connect();
  other.call("subscribe");
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", "echo before; exec cat"});
  wait_output(client, pane["id"], "before");
  Json attached = client.call("pane.attach", {{"pane_id", pane["id"]}, {"cols", 100}, {"rows", 30}});
  EXPECT_EQ(attached["size"], Json({{"cols", 100}, {"rows", 30}}));
  EXPECT_EQ(attached["live"], true);
  EXPECT_EQ(attached["restore_state"], "LIVE");
  EXPECT_NE(base64_decode(attached["snapshot_b64"].get<std::string>())->find("before"), std::string::npos);
  const std::uint64_t offset = attached["output_offset"];
  client.call("pane.attach", {{"pane_id", pane["id"]}});  // repeated: still one viewer
  input(client, pane["id"], "after\n");
  std::string streamed;
  std::uint64_t end = offset;
  int chunks_past = 0;
  while (streamed.find("after\r\nafter") == std::string::npos) {
    auto ev = client.next_event(deadline_after());
    ASSERT_TRUE(ev.has_value()) << streamed;
    if ((*ev)["event"] != "pty.data") continue;
    const std::string data = *base64_decode((*ev)["payload"]["data_b64"].get<std::string>());
    const std::uint64_t chunk_end = (*ev)["payload"]["output_offset"];
    ASSERT_GT(chunk_end, offset);
    if (chunk_end - data.size() < end) continue;  // the second attach's replay
    EXPECT_EQ(chunk_end - data.size(), end);
    end = chunk_end;
    streamed += data;
    ++chunks_past;
    EXPECT_GT((*ev)["seq"].get<std::uint64_t>(), 0u);
  }
  EXPECT_GT(chunks_past, 0);
  client.call("pane.detach", {{"pane_id", pane["id"]}});
  input(client, pane["id"], "unseen\n");
  wait_output(client, pane["id"], "unseen");
  // The broker had "unseen" before it answered wait_output, so any pty.data
  // it carried was sent ahead of the server.status answer that follows on
  // each connection: the events queued before that answer are all there is.
  // No stream after detach, and never any to a connection that did not attach.
  for (Client* c : {&client, &other}) {
    c->call("server.status");
    while (auto ev = c->next_event(Clock::now())) {
      if ((*ev)["event"] != "pty.data") continue;
      EXPECT_EQ(c, &client) << "pty.data reached a connection that never attached";
      const std::string data = *base64_decode((*ev)["payload"]["data_b64"].get<std::string>());
      EXPECT_EQ(data.find("unseen"), std::string::npos) << "streamed after detach";
    }
  }
  EXPECT_EQ(client.call_error("pane.attach", {{"pane_id", pane["id"]}, {"cols", 80}})["code"],
            "BAD_PARAMS");
}

TEST_F(PaneIo, OscTitleBecomesThePaneTitle) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "printf '\\033]0;my build\\007'; exec cat"});
  EXPECT_TRUE(wait_until([&] { return get_pane(client, pane["id"])["title"] == "my build"; }));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
