// tests/cli/broker_text_test.cpp: whole commands against a fake broker whose
// names, titles, commands, directories, errors and events carry escape
// sequences: nothing the CLI prints holds a raw control character (human
// output escapes them, --json and `events` keep JSON that escapes them).
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"
#include "tests/cli/cli_runner.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using testing::FakeBroker;
using testing::FakeConnection;
using testing::Outcome;
using testing::run;
using testing::ScriptBroker;

// An OSC title change, a screen clear, a bell, an 8-bit CSI (C1) and DEL.
const std::string kHostile = "x\x1b]0;pwned\x07\x1b[2J\x1b[31m\xc2\x9b" "1m\x7fy";

// The first raw control character (C0 other than '\n', DEL, or a UTF-8 C1)
// in `text`, as an offset; npos when there is none.
std::size_t raw_control_at(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return i;
    if (c == 0xc2 && i + 1 < text.size() &&
        static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9f)
      return i;
  }
  return std::string::npos;
}

void expect_no_raw_controls(const Outcome& r) {
  EXPECT_EQ(raw_control_at(r.out), std::string::npos) << "stdout: " << r.out;
  EXPECT_EQ(raw_control_at(r.err), std::string::npos) << "stderr: " << r.err;
}

Json hostile_pane() {
  return {{"id", "pane_1"},
          {"name", "hostile"},
          {"title", kHostile},
          {"workspace_id", "ws_1"},
          {"tab_id", "tab_1"},
          {"argv", {"bash", kHostile}},
          {"cwd", "/home/" + kHostile},
          {"pty_size", {{"cols", 80}, {"rows", 24}}},
          {"lifecycle", "idle"},
          {"attention", "none"},
          {"exit_signal", "TERM"},
          {"live", {{"state", "exited"}}}};
}

Json hostile_workspace() {
  return {{"id", "ws_1"}, {"handle", kHostile}, {"name", kHostile}, {"cwd", "/srv/" + kHostile},
          {"tabs", {"tab_1"}}};
}

std::string answer_hostile(const Json& req) {
  const std::string method = req.value("method", "");
  const Json& id = req["id"];
  if (method == protocol::WorkspaceList::name)
    return protocol::encode_ok(id, {{"workspaces", {hostile_workspace()}}});
  if (method == protocol::WorkspaceGet::name)
    return protocol::encode_ok(
        id, {{"workspace", hostile_workspace()},
             {"tabs", {{{"id", "tab_1"}, {"workspace_id", "ws_1"}, {"title", kHostile}}}},
             {"panes", {hostile_pane()}}});
  if (method == protocol::PaneGet::name)
    return protocol::encode_ok(id, {{"pane", hostile_pane()},
                                    {"wait_baseline", {{"pane_id", "pane_1"},
                                                       {"process_instance", "pi_1"},
                                                       {"session_generation", 0},
                                                       {"lifecycle_seq", 0},
                                                       {"attention_seq", 0}}}});
  if (method == protocol::PaneRead::name)
    return protocol::encode_ok(id, {{"text", "line one\n" + kHostile + "\n"}, {"truncated", false}});
  if (method == protocol::WorkspaceCreate::name)
    return protocol::encode_ok(id, {{"workspace", hostile_workspace()}});
  if (method == protocol::PaneSpawn::name)
    return protocol::encode_ok(
        id, {{"pane", hostile_pane()}, {"integration", {{"notice", kHostile}}}});
  if (method == protocol::ServerStatus::name)
    return protocol::encode_ok(id, {{"version", kHostile}, {"protocol", kHostile}});
  return protocol::encode_error(id, Error{ErrorCode::NoSuchPane, "no pane " + kHostile});
}

TEST(BrokerText, HumanViewsEscapeControlCharactersInEveryField) {
  const std::vector<std::vector<std::string>> commands = {
      {"workspace", "list"}, {"workspace", "get", "ws_1"}, {"pane", "list"},
      {"pane", "get", "p1"}, {"pane", "read", "p1"},      {"status"},
      {"new", "--no-attach"}};
  for (auto args : commands) {
    ScriptBroker b(answer_hostile);
    std::string what;
    for (const auto& word : args) what += word + " ";
    args.insert(args.end(), {"--socket", b.broker.path()});
    Outcome r = run(args);
    EXPECT_EQ(r.status, kExitOk) << what << ": " << r.err;
    expect_no_raw_controls(r);
  }
}

TEST(BrokerText, AnEscapeSequenceInATitleShowsAsItsEscapedText) {
  ScriptBroker b(answer_hostile);
  Outcome r = run({"pane", "get", "p1", "--socket", b.broker.path()});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_NE(r.out.find("x\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\u009b1m\\x7fy"), std::string::npos)
      << r.out;
}

TEST(BrokerText, PaneReadKeepsItsLinesButEscapesControls) {
  ScriptBroker b(answer_hostile);
  Outcome r = run({"pane", "read", "p1", "--socket", b.broker.path()});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(r.out.rfind("line one\nx\\x1b]0;pwned", 0), 0u) << r.out;
}

TEST(BrokerText, AnErrorMessageFromTheBrokerIsOneEscapedLine) {
  ScriptBroker b(answer_hostile);
  Outcome r = run({"pane", "close", "p1", "--socket", b.broker.path()});
  EXPECT_EQ(r.status, kExitError);
  expect_no_raw_controls(r);
  EXPECT_EQ(r.err.rfind("error: NO_SUCH_PANE: no pane x\\x1b]0;pwned", 0), 0u) << r.err;
}

TEST(BrokerText, JsonOutputIsTheSameDocumentWithControlsEscaped) {
  for (const char* style : {"--json", "--pretty"}) {
    ScriptBroker b(answer_hostile);
    Outcome r = run({"pane", "get", "p1", style, "--socket", b.broker.path()});
    ASSERT_EQ(r.status, kExitOk) << r.err;
    expect_no_raw_controls(r);
    EXPECT_EQ(Json::parse(r.out)["pane"]["title"], kHostile) << style;
  }
}

TEST(BrokerText, EventLinesStayTheReceivedJsonWithControlsEscaped) {
  // Raw DEL and C1 bytes are valid inside a JSON string, and a tab or a
  // carriage return between tokens is valid JSON whitespace.
  const std::string event_line = "{\"type\":\"event\",\"event\":\"tab.updated\",\"seq\":2,\r"
                                 "\"payload\":{\"title\":\"a\x7f\xc2\x9b" "1m\\u001b[2J\"}}\n";
  FakeBroker broker([&](FakeConnection& conn) {
    auto line = conn.read_line();
    if (!line) return;
    conn.write(protocol::encode_ok(Json::parse(*line)["id"], {{"subscribed", true}, {"seq", 1}}));
    conn.write(event_line);
  });
  Outcome r = run({"events", "--socket", broker.path()});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  expect_no_raw_controls(r);
  EXPECT_EQ(Json::parse(r.out), Json::parse(event_line)) << r.out;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
