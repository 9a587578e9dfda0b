// tests/integration/cli_test.cpp: the real `signaltty` program against a
// real broker: workspace and tab commands, --json passthrough, the error
// line and exit statuses, SIGNALTTY_SOCKET, and `events` streaming an
// event another command caused.
// Runs in: the integration test binary.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The CLI's documented exit statuses (signaltty --help).
constexpr int kExitError = 1;
constexpr int kExitBrokerNotRunning = 3;
constexpr int kExitReplayIncomplete = 4;

using CliAgainstBroker = BrokerTest;

RunResult run_cli(const TempDirs& dirs, std::vector<std::string> args,
                  std::vector<std::string> extra_env = {}) {
  args.insert(args.begin(), program_path("signaltty"));
  std::vector<std::string> env = base_env(dirs);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return run_program(dirs, std::move(args), std::move(env));
}

std::string describe(const RunResult& run) {
  return run.status.describe() + "\nstdout: " + run.out + "\nstderr: " + run.err;
}

Json json_of(const RunResult& run) { return Json::parse(run.out, nullptr, false); }

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Reads lines from a pipe-like fd with poll() against a deadline.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  std::optional<std::string> next(Deadline deadline) {
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[4096];
      ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n == 0) return std::nullopt;  // the writer is gone
      if (n > 0) buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

TEST_F(CliAgainstBroker, WorkspaceCreateListGetRenameClose) {
  start();
  RunResult created = run_cli(dirs_, {"workspace", "create", "--name", "My API"});
  ASSERT_EQ(created.status.code, 0) << describe(created);
  EXPECT_NE(created.out.find("handle:"), std::string::npos) << created.out;
  EXPECT_NE(created.out.find("my-api"), std::string::npos) << created.out;

  RunResult listed = run_cli(dirs_, {"workspace", "list"});
  ASSERT_EQ(listed.status.code, 0) << describe(listed);
  EXPECT_EQ(listed.out.rfind("HANDLE", 0), 0u) << listed.out;
  EXPECT_NE(listed.out.find("My API"), std::string::npos) << listed.out;
  EXPECT_EQ(line_count(listed.out), 2u) << listed.out;

  RunResult got = run_cli(dirs_, {"workspace", "get", "my-api"});
  ASSERT_EQ(got.status.code, 0) << describe(got);
  EXPECT_NE(got.out.find("My API"), std::string::npos) << got.out;

  RunResult renamed = run_cli(dirs_, {"workspace", "rename", "my-api", "Renamed"});
  ASSERT_EQ(renamed.status.code, 0) << describe(renamed);
  Json ws = connect().call("workspace.get", {{"workspace_id", "my-api"}})["workspace"];
  EXPECT_EQ(ws["name"], "Renamed");
  EXPECT_EQ(ws["handle"], "my-api");

  RunResult closed = run_cli(dirs_, {"workspace", "close", "my-api"});
  ASSERT_EQ(closed.status.code, 0) << describe(closed);
  EXPECT_EQ(closed.out, "closed\n");
  EXPECT_EQ(run_cli(dirs_, {"workspace", "list"}).out, "no workspaces\n");
}

TEST_F(CliAgainstBroker, TabCreateAddsATabToTheWorkspace) {
  start();
  Json ws = connect().call("workspace.create", {{"name", "api"}})["workspace"];
  RunResult run = run_cli(dirs_, {"tab", "create", "api", "--title", "build", "--json"});
  ASSERT_EQ(run.status.code, 0) << describe(run);
  Json tab = json_of(run)["tab"];
  EXPECT_EQ(tab["title"], "build");
  EXPECT_EQ(tab["workspace_id"], ws["id"]);
  Json tabs = connect().call("workspace.get", {{"workspace_id", "api"}})["tabs"];
  ASSERT_EQ(tabs.size(), 1u) << tabs.dump();
  EXPECT_EQ(tabs[0]["id"], tab["id"]);
}

TEST_F(CliAgainstBroker, JsonPrintsTheMethodsResultVerbatim) {
  start();
  Client client = connect();
  client.call("workspace.create", {{"name", "one"}});
  client.call("workspace.create", {{"name", "two"}});
  RunResult run = run_cli(dirs_, {"workspace", "list", "--json"});
  ASSERT_EQ(run.status.code, 0) << describe(run);
  EXPECT_EQ(line_count(run.out), 1u) << run.out;
  EXPECT_EQ(json_of(run), client.call("workspace.list"));
}

TEST_F(CliAgainstBroker, UnknownWorkspaceIsOneErrorLineAndStatusOne) {
  start();
  RunResult run = run_cli(dirs_, {"workspace", "get", "no-such-workspace"});
  EXPECT_EQ(run.status.code, kExitError) << describe(run);
  EXPECT_EQ(run.err.rfind("error: NO_SUCH_WORKSPACE: ", 0), 0u) << run.err;
  EXPECT_EQ(line_count(run.err), 1u) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST_F(CliAgainstBroker, NoBrokerRunningIsStatusThreeSayingHowToStartIt) {
  RunResult run = run_cli(dirs_, {"status"});
  EXPECT_EQ(run.status.code, kExitBrokerNotRunning) << describe(run);
  EXPECT_NE(run.err.find("broker not running"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("signaltty-broker"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(dirs_.socket_path()), std::string::npos) << run.err;
}

TEST_F(CliAgainstBroker, SignalttySocketEnvironmentIsHonoured) {
  const std::string socket = dirs_.scratch("elsewhere.sock");
  start(BrokerOptions{{"--socket", socket}});
  RunResult by_env = run_cli(dirs_, {"status"}, {"SIGNALTTY_SOCKET=" + socket});
  EXPECT_EQ(by_env.status.code, 0) << describe(by_env);
  EXPECT_NE(by_env.out.find("signaltty/1"), std::string::npos) << by_env.out;
  RunResult by_default = run_cli(dirs_, {"status"});
  EXPECT_EQ(by_default.status.code, kExitBrokerNotRunning) << describe(by_default);
}

TEST_F(CliAgainstBroker, SchemaListsTheLiveMethodTable) {
  start();
  RunResult run = run_cli(dirs_, {"schema"});
  ASSERT_EQ(run.status.code, 0) << describe(run);
  const Json schema = connect().call("server.schema");
  for (const auto& method : schema["methods"])
    EXPECT_NE(run.out.find(method["name"].get<std::string>()), std::string::npos)
        << method["name"];
}

TEST_F(CliAgainstBroker, EventsStreamsAnEventAnotherCommandCaused) {
  start();
  const auto head = connect().call("server.status")["seq"].get<std::uint64_t>();
  const std::string fifo = dirs_.scratch("events.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Open the reading end first, so the child's stdout opens without blocking.
  UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  ASSERT_TRUE(reader.valid());
  SpawnSpec spec;
  // From the current head: the event is delivered whether the subscription
  // lands before the create (live) or after it (replay).
  spec.argv = {program_path("signaltty"), "events", "--from-seq", std::to_string(head),
               "--events", "workspace.*"};
  spec.env = base_env(dirs_);
  spec.stdout_path = fifo;
  spec.stderr_path = dirs_.scratch("events.stderr");
  ChildProcess events(spec);

  RunResult created = run_cli(dirs_, {"workspace", "create", "--name", "streamed"});
  ASSERT_EQ(created.status.code, 0) << describe(created);

  LineReader lines(reader.get());
  auto line = lines.next(deadline_after());
  ASSERT_TRUE(line) << read_text_file(spec.stderr_path);
  Json event = Json::parse(*line, nullptr, false);
  EXPECT_EQ(event.value("type", ""), "event") << *line;
  EXPECT_EQ(event.value("event", ""), "workspace.created") << *line;
  EXPECT_GT(event.value("seq", std::uint64_t{0}), head) << *line;
  EXPECT_EQ(event["payload"]["workspace"]["name"], "streamed") << *line;

  events.send_signal(SIGINT);
  auto exit = events.wait_exit(deadline_after());
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->signal, SIGINT) << exit->describe();
}

TEST_F(CliAgainstBroker, EventsFromAheadOfTheHeadReportsRecoveryAndFails) {
  start();
  const auto head = connect().call("server.status")["seq"].get<std::uint64_t>();
  RunResult run = run_cli(dirs_, {"events", "--from-seq", std::to_string(head + 1000000)});
  EXPECT_EQ(run.status.code, kExitReplayIncomplete) << describe(run);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("cursor_ahead"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("snapshot_then_resubscribe"), std::string::npos) << run.err;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
