// tests/cli/attach_commands_test.cpp: the hand-written commands around
// attach: `new` (params, default shell, --no-attach, cleanup after a failed
// spawn), `attach` argument handling, and the pane commands for people
// (`pane send`, `pane input TEXT`, `pane list`, `pane wait-output`).
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/pane_commands.hpp"
#include "common/base64.hpp"
#include "common/protocol/methods.hpp"
#include "tests/cli/fake_broker.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;
using testing::FakeBroker;
using testing::FakeConnection;

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

EnvLookup env_of(std::map<std::string, std::string> env) {
  return [env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

// `signaltty <args>` with `env` only and `in_fd` as stdin (/dev/null by default).
Outcome run(std::vector<std::string> args, std::map<std::string, std::string> env = {},
            int in_fd = -1) {
  args.insert(args.begin(), "signaltty");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  UniqueFd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  std::ostringstream out, err;
  CliIo io{out, err, env_of(std::move(env)), ::getuid(), in_fd >= 0 ? in_fd : null_in.get(), -1};
  Outcome r;
  r.status = run_cli(static_cast<int>(argv.size()), argv.data(), io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A broker answering every request with `answer(request)` until the client
// hangs up; the requests it saw are kept in order.
struct ScriptBroker {
  std::vector<Json> requests;
  FakeBroker broker;
  explicit ScriptBroker(std::function<std::string(const Json&)> answer)
      : broker([this, answer](FakeConnection& conn) {
          while (auto line = conn.read_line()) {
            requests.push_back(Json::parse(*line));
            conn.write(answer(requests.back()));
          }
        }) {}
  std::vector<std::string> methods() const {
    std::vector<std::string> out;
    for (const auto& r : requests) out.push_back(r.value("method", ""));
    return out;
  }
};

Json pane_json(const std::string& id, const std::string& workspace_id) {
  return {{"id", id},          {"workspace_id", workspace_id}, {"tab_id", "tab_1"},
          {"argv", {"bash"}},  {"pty_size", {{"cols", 100}, {"rows", 30}}},
          {"lifecycle", "idle"}, {"live", {{"state", "live"}}}};
}

std::string answer_new(const Json& req) {
  const std::string method = req.value("method", "");
  if (method == protocol::WorkspaceCreate::name)
    return protocol::encode_ok(req["id"], {{"workspace", {{"id", "ws_1"}, {"handle", "api"}}}});
  if (method == protocol::PaneSpawn::name)
    return protocol::encode_ok(req["id"], {{"pane", pane_json("pane_1", "ws_1")}});
  return protocol::encode_error(req["id"], Error{ErrorCode::UnknownMethod, method});
}

// ---- new ---------------------------------------------------------------------

TEST(NewCommand, NoAttachCreatesAWorkspaceAndAPaneAndPrintsThePaneId) {
  ScriptBroker b(answer_new);
  Outcome r = run({"new", "--no-attach", "--cwd", "/srv/api", "--name", "api", "--socket",
                   b.broker.path(), "--", "make", "-j2", "test"});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(r.out, "pane_1\n");
  ASSERT_EQ(b.methods(), (std::vector<std::string>{std::string(protocol::WorkspaceCreate::name),
                                                   std::string(protocol::PaneSpawn::name)}));
  EXPECT_EQ(b.requests[0]["params"], Json({{"cwd", "/srv/api"}, {"name", "api"}}));
  EXPECT_EQ(b.requests[1]["params"],
            Json({{"workspace_id", "ws_1"}, {"argv", {"make", "-j2", "test"}}}));
}

TEST(NewCommand, DefaultProgramIsTheUsersShellElseSh) {
  ScriptBroker with_shell(answer_new);
  run({"new", "--no-attach", "--socket", with_shell.broker.path()}, {{"SHELL", "/bin/zsh"}});
  with_shell.broker.join();
  ASSERT_EQ(with_shell.requests.size(), 2u);
  EXPECT_EQ(with_shell.requests[1]["params"]["argv"], Json({"/bin/zsh"}));

  ScriptBroker without(answer_new);
  run({"new", "--no-attach", "--socket", without.broker.path()});
  without.broker.join();
  ASSERT_EQ(without.requests.size(), 2u);
  EXPECT_EQ(without.requests[1]["params"]["argv"], Json({"sh"}));
}

TEST(NewCommand, WorkspaceDirectoryDefaultsToTheCurrentOneAndRelativeIsAnchoredThere) {
  ScriptBroker b(answer_new);
  run({"new", "--no-attach", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_FALSE(b.requests.empty());
  EXPECT_EQ(b.requests[0]["params"]["cwd"], current_directory());

  ScriptBroker relative(answer_new);
  run({"new", "--no-attach", "--cwd", "sub/dir", "--socket", relative.broker.path()});
  relative.broker.join();
  ASSERT_FALSE(relative.requests.empty());
  EXPECT_EQ(relative.requests[0]["params"]["cwd"], current_directory() + "/sub/dir");
}

TEST(NewCommand, JsonPrintsThePaneAndTheWorkspace) {
  ScriptBroker b(answer_new);
  Outcome r = run({"new", "--no-attach", "--json", "--socket", b.broker.path()});
  b.broker.join();
  ASSERT_EQ(r.status, kExitOk) << r.err;
  Json printed = Json::parse(r.out);
  EXPECT_EQ(printed["pane"]["id"], "pane_1");
  EXPECT_EQ(printed["workspace"]["id"], "ws_1");
}

TEST(NewCommand, AFailedSpawnClosesTheWorkspaceItCreated) {
  ScriptBroker b([](const Json& req) {
    const std::string method = req.value("method", "");
    if (method == protocol::PaneSpawn::name)
      return protocol::encode_error(req["id"], Error{ErrorCode::SpawnFailed, "no such program"});
    if (method == protocol::WorkspaceClose::name)
      return protocol::encode_ok(req["id"], {{"closed", true}});
    return answer_new(req);
  });
  Outcome r = run({"new", "--no-attach", "--socket", b.broker.path(), "--", "/nonexistent"});
  b.broker.join();
  EXPECT_EQ(r.status, kExitError);
  EXPECT_EQ(r.err, "error: SPAWN_FAILED: no such program\n");
  ASSERT_EQ(b.requests.size(), 3u);
  EXPECT_EQ(b.requests[2]["method"], protocol::WorkspaceClose::name);
  EXPECT_EQ(b.requests[2]["params"], Json({{"workspace_id", "ws_1"}}));
}

TEST(NewCommand, NoBrokerIsStatusThree) {
  Outcome r = run({"new", "--no-attach"}, {{"SIGNALTTY_SOCKET", "/nonexistent-signaltty.sock"}});
  EXPECT_EQ(r.status, kExitBrokerNotRunning);
  EXPECT_NE(r.err.find("NO_SUCH_SERVER"), std::string::npos) << r.err;
}

TEST(NewCommand, HelpListsNewAndAttachAsTopLevelCommands) {
  Outcome r = run({"--help"});
  EXPECT_EQ(r.status, kExitOk);
  // packaging/dev.sh run looks for `new` this way before relying on it.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"((^|\n)[ \t]+new([ \t]|\n))"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"((^|\n)[ \t]+attach([ \t]|\n))"))) << r.out;
}

// ---- attach ------------------------------------------------------------------

TEST(AttachCommand, NeedsAPane) {
  Outcome r = run({"attach"}, {{"SIGNALTTY_SOCKET", "/nonexistent.sock"}});
  EXPECT_EQ(r.status, kExitUsage);
}

TEST(AttachCommand, AMalformedDetachKeyIsAUsageError) {
  Outcome flag = run({"attach", "p1", "--detach-key", "x"}, {{"SIGNALTTY_SOCKET", "/nonexistent.sock"}});
  EXPECT_EQ(flag.status, kExitUsage);
  EXPECT_NE(flag.err.find("detach key"), std::string::npos) << flag.err;
  Outcome env = run({"attach", "p1"}, {{"SIGNALTTY_SOCKET", "/nonexistent.sock"},
                                       {"SIGNALTTY_DETACH_KEY", "M-x"}});
  EXPECT_EQ(env.status, kExitUsage);
}

TEST(AttachCommand, NoBrokerIsStatusThree) {
  Outcome r = run({"attach", "p1"}, {{"SIGNALTTY_SOCKET", "/nonexistent-signaltty.sock"}});
  EXPECT_EQ(r.status, kExitBrokerNotRunning);
}

TEST(AttachCommand, DetachKeyFallsBackFromFlagToEnvironmentToDefault) {
  EXPECT_EQ(*resolve_detach_key("^A", env_of({{"SIGNALTTY_DETACH_KEY", "^B"}})), DetachKey{0x01});
  EXPECT_EQ(*resolve_detach_key("", env_of({{"SIGNALTTY_DETACH_KEY", "^B"}})), DetachKey{0x02});
  EXPECT_EQ(*resolve_detach_key("", env_of({})), DetachKey{kDefaultDetachKey});
}

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
  EXPECT_NE(r.out.find("100x30"), std::string::npos);
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

}  // namespace
}  // namespace signaltty::cli
