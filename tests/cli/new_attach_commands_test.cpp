// tests/cli/new_attach_commands_test.cpp: `new` (params, default shell,
// --no-attach, cleanup after a failed spawn) and `attach` argument handling
// (pane required, detach key from flag, environment or default).
#include <gtest/gtest.h>

#include <regex>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/pane_commands.hpp"
#include "common/protocol/methods.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/cli/pane_json.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using testing::Outcome;
using testing::ScriptBroker;
using testing::env_of;
using testing::pane_json;
using testing::run;

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

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
