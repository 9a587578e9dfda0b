// tests/cli/pane_commands_test.cpp: the pane commands for people: `pane
// send` (escapes, --enter), `pane input TEXT` (bytes, stdin, data_b64),
// `pane list`, the human views of pane results and `pane wait-output`.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <sstream>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/pane_commands.hpp"
#include "common/base64.hpp"
#include "common/protocol/methods.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/cli/pane_json.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using testing::Outcome;
using testing::ScriptBroker;
using testing::pane_json;
using testing::run;

// ---- pane send / input -------------------------------------------------------

std::string answer_written(const Json& req) {
  return protocol::encode_ok(req["id"], {{"written", 1}});
}

std::string sent_bytes(const Json& request) {
  return base64_decode(request["params"]["data_b64"].get<std::string>()).value_or("<bad base64>");
}

TEST(PaneSend, DecodesEscapesAndEnterAppendsACarriageReturn) {
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "send", "p1", "echo hi\\x21", "--enter", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  ASSERT_EQ(b.requests.size(), 1u);
  EXPECT_EQ(b.requests[0]["method"], protocol::PaneInput::name);
  EXPECT_EQ(b.requests[0]["params"]["pane_id"], "p1");
  EXPECT_EQ(sent_bytes(b.requests[0]), "echo hi!\r");
}

TEST(PaneSend, EnterAloneSendsJustTheCarriageReturn) {
  ScriptBroker b(answer_written);
  run({"pane", "send", "p1", "--enter", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(b.requests.size(), 1u);
  EXPECT_EQ(sent_bytes(b.requests[0]), "\r");
}

TEST(PaneSend, AnUnknownEscapeIsAUsageErrorAndSendsNothing) {
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "send", "p1", "bad \\q", "--socket", b.broker.path()});
  b.broker.join();
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_TRUE(b.requests.empty());
}

TEST(PaneSend, NothingToSendIsAUsageError) {
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "send", "p1", "--socket", b.broker.path()});
  b.broker.join();
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_TRUE(b.requests.empty());
}

TEST(PaneSendEscapes, CoverTheControlBytesPeopleType) {
  EXPECT_EQ(*decode_escapes("a\\r\\n\\t\\e\\a\\b\\0\\\\z"), std::string("a\r\n\t\x1b\a\b\0\\z", 10));
  EXPECT_EQ(*decode_escapes("\\x03\\x1B"), "\x03\x1b");
  EXPECT_FALSE(decode_escapes("\\x3").ok());
  EXPECT_FALSE(decode_escapes("\\xZZ").ok());
  EXPECT_FALSE(decode_escapes("trailing\\").ok());
}

TEST(PaneInput, TextIsSentAsItsBytesWithoutEscapes) {
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "input", "p1", "raw\\n", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  ASSERT_EQ(b.requests.size(), 1u);
  EXPECT_EQ(b.requests[0]["method"], protocol::PaneInput::name);
  EXPECT_EQ(sent_bytes(b.requests[0]), "raw\\n");
}

TEST(PaneInput, DataB64IsStillPassedThrough) {
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "input", "p1", "--data-b64", "AwQ=", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(b.requests[0]["params"], Json({{"pane_id", "p1"}, {"data_b64", "AwQ="}}));
}

TEST(PaneInput, PipedStdinIsSentWhenNoTextIsGiven) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]);
  {
    UniqueFd write_end(pipe_fds[1]);
    ASSERT_EQ(::write(write_end.get(), "\x03q\r", 3), 3);
  }
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "input", "p1", "--socket", b.broker.path()}, {}, read_end.get());
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  ASSERT_EQ(b.requests.size(), 1u);
  EXPECT_EQ(sent_bytes(b.requests[0]), "\x03q\r");
}

TEST(PaneInput, TextAndDataB64TogetherIsAUsageError) {
  ScriptBroker b(answer_written);
  Outcome r = run({"pane", "input", "p1", "x", "--data-b64", "eA==", "--socket", b.broker.path()});
  b.broker.join();
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_TRUE(b.requests.empty());
}

// ---- pane list / wait-output ---------------------------------------------------

Json workspace_json(const std::string& id, const std::string& handle) {
  protocol::Workspace ws;
  ws.id = id;
  ws.handle = handle;
  ws.name = handle;
  ws.cwd = "/srv/" + handle;
  return protocol::encode(ws);
}

std::string answer_listing(const Json& req) {
  const std::string method = req.value("method", "");
  if (method == protocol::WorkspaceList::name)
    return protocol::encode_ok(
        req["id"], {{"workspaces", {workspace_json("ws_1", "api"), workspace_json("ws_2", "web")}}});
  const std::string ws = req["params"].value("workspace_id", "");
  return protocol::encode_ok(
      req["id"], {{"workspace", workspace_json(ws, ws == "ws_1" ? "api" : "web")},
                  {"tabs", Json::array()},
                  {"panes", {pane_json(ws == "ws_1" ? "pane_a" : "pane_b", ws)}}});
}

TEST(PaneList, ListsThePanesOfEveryWorkspace) {
  ScriptBroker b(answer_listing);
  Outcome r = run({"pane", "list", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(b.methods(), (std::vector<std::string>{std::string(protocol::WorkspaceList::name),
                                                   std::string(protocol::WorkspaceGet::name),
                                                   std::string(protocol::WorkspaceGet::name)}));
  EXPECT_NE(r.out.find("ID"), std::string::npos);
  EXPECT_NE(r.out.find("pane_a"), std::string::npos);
  EXPECT_NE(r.out.find("pane_b"), std::string::npos);
  for (const char* column : {"AGENT", "LIFECYCLE", "ATTENTION", "DECISION"})
    EXPECT_NE(r.out.find(column), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("web"), std::string::npos);
}

TEST(PaneList, OneWorkspaceAsJson) {
  ScriptBroker b(answer_listing);
  Outcome r = run({"pane", "list", "--workspace", "ws_1", "--json", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  ASSERT_EQ(b.methods(), std::vector<std::string>{std::string(protocol::WorkspaceGet::name)});
  Json printed = Json::parse(r.out);
  ASSERT_EQ(printed["panes"].size(), 1u);
  EXPECT_EQ(printed["panes"][0]["id"], "pane_a");
}

// ---- human views of pane results -----------------------------------------------

std::string human(std::string_view method, const Json& result) {
  std::ostringstream out;
  render_human(method, result, out);
  return out.str();
}

TEST(PaneViews, ReadPrintsTheTextItself) {
  EXPECT_EQ(human(protocol::PaneRead::name, {{"text", "$ ls\nREADME.md"}, {"truncated", false}}),
            "$ ls\nREADME.md\n");
  EXPECT_EQ(human(protocol::PaneWaitForOutput::name,
                  {{"text", "a\nready"}, {"truncated", false}, {"matched_line", "ready"}}),
            "ready\n");
}

TEST(PaneViews, GetPrintsThePaneAsAKeyValueBlock) {
  Json result = {{"pane", pane_json("pane_a", "ws_1")},
                 {"wait_baseline",
                  {{"pane_id", "pane_a"}, {"process_instance", "p"}, {"session_generation", 0},
                   {"lifecycle_seq", 0}, {"attention_seq", 0}}}};
  result["pane"]["pid"] = 4242;
  const std::string text = human(protocol::PaneGet::name, result);
  EXPECT_NE(text.find("id:"), std::string::npos) << text;
  EXPECT_NE(text.find("pane_a"), std::string::npos) << text;
  EXPECT_NE(text.find("100x30"), std::string::npos) << text;
  EXPECT_NE(text.find("live (pid 4242)"), std::string::npos) << text;
  EXPECT_EQ(text.find('{'), std::string::npos) << "no raw JSON: " << text;
}

TEST(PaneViews, AnExitedPaneShowsItsExitCode) {
  Json pane = pane_json("pane_a", "ws_1");
  pane["live"] = {{"state", "exited"}, {"code", 2}};
  EXPECT_NE(human(protocol::PaneResize::name, {{"pane", pane}}).find("exited (code 2)"),
            std::string::npos);
}

TEST(PaneViews, InputSaysHowManyBytesWereWritten) {
  EXPECT_EQ(human(protocol::PaneInput::name, {{"written", 3}}), "wrote 3 bytes\n");
}

TEST(PaneWaitOutput, IsTheSeedsNameForWaitForOutput) {
  Cli cli;
  const char* argv[] = {"signaltty", "pane", "wait-output", "p1", "ready"};
  std::ostringstream out, err;
  ASSERT_FALSE(cli.parse(5, argv, out, err)) << err.str();
  ASSERT_NE(cli.chosen_command(), nullptr);
  EXPECT_EQ(cli.chosen_command()->spec().method, protocol::PaneWaitForOutput::name);
  EXPECT_EQ(cli.chosen_command()->params(), Json({{"pane_id", "p1"}, {"match", "ready"}}));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
