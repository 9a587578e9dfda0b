// tests/cli/run_test.cpp: whole commands through run_cli() against a
// scripted fake broker: what reaches the socket, what reaches stdout and
// stderr, and the exit status.
#include "cli/app.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>

#include "cli/exit_codes.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"
#include "tests/cli/fake_broker.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using testing::FakeBroker;
using testing::FakeConnection;

struct RunOutcome {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs `signaltty <args>` with only `env` in the environment.
RunOutcome run(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), "signaltty");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  EnvLookup lookup = [env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  RunOutcome r;
  r.status = run_cli(static_cast<int>(argv.size()), argv.data(), CliIo{out, err, lookup, ::getuid()});
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A broker that answers one request with `reply(request)` and records it.
struct OneShotBroker {
  Json request;
  FakeBroker broker;
  explicit OneShotBroker(std::function<std::string(const Json&)> reply)
      : broker([this, reply](FakeConnection& conn) {
          auto line = conn.read_line();
          if (!line) return;
          request = Json::parse(*line);
          conn.write(reply(request));
        }) {}
};

Json sample_workspace_json() {
  protocol::Workspace ws;
  ws.id = "ws_0123";
  ws.handle = "api";
  ws.name = "My API";
  ws.cwd = "/srv/api";
  return protocol::encode(ws);
}

TEST(Run, WorkspaceListPrintsATableFromTheBrokersResult) {
  OneShotBroker b([](const Json& req) {
    return protocol::encode_ok(req["id"], {{"workspaces", {sample_workspace_json()}}});
  });
  RunOutcome r = run({"--socket", b.broker.path(), "workspace", "list"});
  b.broker.join();
  EXPECT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(b.request["method"], protocol::WorkspaceList::name);
  EXPECT_NE(r.out.find("HANDLE"), std::string::npos);
  EXPECT_NE(r.out.find("My API"), std::string::npos);
  EXPECT_TRUE(r.err.empty());
}

TEST(Run, JsonPrintsTheResultVerbatim) {
  const Json result = {{"workspace", sample_workspace_json()}, {"unknown_extra", 1}};
  OneShotBroker b([&](const Json& req) { return protocol::encode_ok(req["id"], result); });
  RunOutcome r = run({"workspace", "create", "--name", "My API", "--json", "--socket", b.broker.path()});
  b.broker.join();
  EXPECT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(b.request["params"], Json({{"name", "My API"}}));
  EXPECT_EQ(r.out, result.dump() + "\n");
}

TEST(Run, ErrorReplyIsOneStderrLineAndStatusOne) {
  OneShotBroker b([](const Json& req) {
    return protocol::encode_error(req["id"],
                                  Error{ErrorCode::NoSuchWorkspace, "no workspace 'nope'"});
  });
  RunOutcome r = run({"workspace", "get", "nope", "--socket", b.broker.path()});
  b.broker.join();
  EXPECT_EQ(r.status, kExitError);
  EXPECT_EQ(r.err, "error: NO_SUCH_WORKSPACE: no workspace 'nope'\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(Run, SignalttySocketEnvironmentIsHonoured) {
  OneShotBroker b([](const Json& req) {
    return protocol::encode_ok(req["id"], {{"closed", true}});
  });
  RunOutcome r = run({"workspace", "close", "api", "--signal", "KILL"},
              {{"SIGNALTTY_SOCKET", b.broker.path()}, {"XDG_RUNTIME_DIR", "/nonexistent"}});
  b.broker.join();
  EXPECT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(b.request["params"], Json({{"workspace_id", "api"}, {"signal", "KILL"}}));
  EXPECT_EQ(r.out, "closed\n");
}

TEST(Run, NoBrokerIsStatusThreeWithHowToStartIt) {
  RunOutcome r = run({"status"}, {{"XDG_RUNTIME_DIR", "/nonexistent-signaltty-runtime"}});
  EXPECT_EQ(r.status, kExitBrokerNotRunning);
  EXPECT_NE(r.err.find("error: NO_SUCH_SERVER: broker not running"), std::string::npos);
  EXPECT_NE(r.err.find("/nonexistent-signaltty-runtime/signaltty/signaltty.sock"),
            std::string::npos);
  EXPECT_NE(r.err.find("signaltty-broker"), std::string::npos);
}

TEST(Run, UsageErrorIsStatusTwoWithoutConnecting) {
  RunOutcome r = run({"workspace", "rename"}, {{"SIGNALTTY_SOCKET", "/nonexistent.sock"}});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(r.err.find("NO_SUCH_SERVER"), std::string::npos);
}

TEST(Run, EventsPrintsEachEventLineAsReceivedUntilTheBrokerCloses) {
  const std::string first =
      protocol::encode_event(protocol::ev::WorkspaceCreated::name, 8, {{"workspace", {}}});
  const std::string second =
      protocol::encode_event(protocol::ev::TabCreated::name, 9, {{"tab", {}}});
  Json request;
  FakeBroker broker([&](FakeConnection& conn) {
    request = Json::parse(*conn.read_line());
    conn.write(protocol::encode_ok(request["id"], {{"subscribed", true}, {"seq", 7}}));
    conn.write(first + second);
  });
  RunOutcome r = run({"events", "--events", "workspace.*", "--events", "tab.*", "--from-seq", "7",
               "--socket", broker.path()});
  broker.join();
  EXPECT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(request["method"], protocol::Subscribe::name);
  EXPECT_EQ(request["params"],
            Json({{"events", {"workspace.*", "tab.*"}}, {"from_seq", 7}}));
  EXPECT_EQ(r.out, first + second);
}

TEST(Run, EventsWithRefusedReplayReportsRecoveryAndExitsFour) {
  FakeBroker broker([](FakeConnection& conn) {
    Json req = Json::parse(*conn.read_line());
    protocol::SubscribeResult result;
    result.subscribed = false;
    result.seq = 90;
    result.replay = protocol::ReplayInfo{protocol::ReplayStatus::HistoryLost, 3, 50, 90, 0,
                                         std::string(protocol::kRecoverySnapshotThenResubscribe)};
    conn.write(protocol::encode_ok(req["id"], protocol::encode(result)));
  });
  RunOutcome r = run({"events", "--from-seq", "3", "--socket", broker.path()});
  broker.join();
  EXPECT_EQ(r.status, kExitReplayIncomplete);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("history_lost"), std::string::npos);
  EXPECT_NE(r.err.find("snapshot_then_resubscribe"), std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
