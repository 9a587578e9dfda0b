// tests/hookrelay/hookrelay_process_test.cpp: build/bin/signaltty-hookrelay
// run as an agent hook would run it, against a stand-in broker: exactly
// one hook-event request line, stdout always empty, exit 0 whatever the
// broker does (one stderr line when the event is not taken), exit 2 only
// for a usage error, and never more than 3 s (docs/rules.md "Hook relay",
// decision 21).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/protocol/envelope.hpp"
#include "common/protocol/methods/agent.hpp"
#include "tests/cli/fake_broker.hpp"

namespace signaltty::hookrelay {
namespace {
namespace SIGNALTTY_UNITY_ID {

using cli::testing::FakeBroker;
using cli::testing::FakeConnection;
using protocol::Json;
using Clock = std::chrono::steady_clock;

struct RelayRun {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
  std::chrono::milliseconds took{0};
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// signaltty-hookrelay <args> with only `env`, `input` on stdin (written by
// a thread; a relay that stops reading ends the write), stdout and stderr
// to files.
RelayRun run_relay(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
              const std::string& input) {
  std::signal(SIGPIPE, SIG_IGN);
  char dir_template[] = "/tmp/signaltty-hookrelay-test-XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  const std::string out_path = dir + "/out", err_path = dir + "/err";
  int in_pipe[2];
  EXPECT_EQ(::pipe2(in_pipe, O_CLOEXEC), 0);
  const auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in_pipe[0], STDIN_FILENO);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    std::vector<std::string> env_text;
    for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
    std::vector<char*> envp, argv;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string program = SIGNALTTY_HOOKRELAY;
    argv.push_back(program.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execve(program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  std::thread writer([fd = in_pipe[1], &input] {
    std::string_view rest = input;
    while (!rest.empty()) {
      ssize_t n = ::write(fd, rest.data(), rest.size());
      if (n <= 0) break;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    ::close(fd);
  });
  int status = 0;
  ::waitpid(pid, &status, 0);
  RelayRun run;
  run.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  writer.join();
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = slurp(out_path);
  run.err = slurp(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  ::rmdir(dir.c_str());
  return run;
}

std::size_t lines_in(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A broker that records the one request line and answers with `reply`
// (given the request's id); it then waits for the relay to hang up.
struct AnsweringBroker {
  std::mutex mu;
  std::vector<std::string> lines;
  FakeBroker broker;
  explicit AnsweringBroker(std::function<std::string(const Json& id)> reply)
      : broker([this, reply = std::move(reply)](FakeConnection& conn) {
          auto line = conn.read_line();
          if (!line) return;
          {
            std::lock_guard lock(mu);
            lines.push_back(*line);
          }
          Json request = Json::parse(*line, nullptr, false);
          conn.write(reply(request.is_object() ? request.value("id", Json()) : Json()));
          std::string rest = conn.read_until_eof();
          std::lock_guard lock(mu);
          if (!rest.empty()) lines.push_back(rest);
        }) {}
};

std::map<std::string, std::string> env_for(const FakeBroker& broker) {
  return {{"SIGNALTTY_SOCKET", broker.path()}};
}

const char* kStopPayload = R"({"session_id":"s-1","hook_event_name":"Stop","last_assistant_message":"hi"})";

std::string accepted(const Json& id) {
  return protocol::encode_ok(id, {{"accepted", true}, {"agent", "claude"}, {"event", "Stop"},
                                  {"pane_id", "pane_0123"}, {"lifecycle", "done"}});
}

TEST(HookRelayProcess, SendsOneHookEventLineAndStaysSilent) {
  AnsweringBroker fake(accepted);
  auto env = env_for(fake.broker);
  env["SIGNALTTY_PANE"] = "pane_from_env";
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"}, env, kStopPayload);
  fake.broker.join();
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "");
  ASSERT_EQ(fake.lines.size(), 1u);
  Json request = Json::parse(fake.lines[0]);
  EXPECT_EQ(request["protocol"], "signaltty/1");
  EXPECT_EQ(request["method"], "hook-event");
  const Json& params = request["params"];
  EXPECT_EQ(params["agent"], "claude");
  EXPECT_EQ(params["event"], "Stop");
  EXPECT_EQ(params["pane_id"], "pane_from_env");
  EXPECT_EQ(params["payload"], Json::parse(kStopPayload));
  ASSERT_TRUE(params["client_pid"].is_number_integer());
  EXPECT_GT(params["client_pid"].get<std::int64_t>(), 1);
  EXPECT_FALSE(params.contains("wait_for_answer"));
}

const char* kPermissionPayload =
    R"({"session_id":"s-1","tool_name":"Bash","tool_input":{"command":"ls"}})";

TEST(HookRelayProcess, WaitingModeRegistersItsOwnDecisionIdAndPrintsOnlyTheVerdict) {
  const Json verdict = {{"hookSpecificOutput",
                         {{"hookEventName", "PermissionRequest"}, {"decision", {{"behavior", "deny"}}}}}};
  AnsweringBroker fake([&](const Json& id) {
    return protocol::encode_ok(id, {{"accepted", true}, {"agent", "claude"},
                                    {"event", "PermissionRequest"}, {"pane_id", "pane_0123"},
                                    {"native_verdict", verdict}});
  });
  RelayRun run = run_relay({"--agent", "claude", "--event", "PermissionRequest", "--pane", "pane_0123",
                            "--wait-for-answer"},
                           env_for(fake.broker), kPermissionPayload);
  fake.broker.join();
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, verdict.dump() + "\n");
  EXPECT_EQ(run.err, "");
  ASSERT_EQ(fake.lines.size(), 1u);
  const Json params = Json::parse(fake.lines[0])["params"];
  EXPECT_EQ(params["wait_for_answer"], true);
  EXPECT_TRUE(protocol::is_native_decision_id(params["decision_id"].get<std::string>()));
  EXPECT_GE(params["wait_timeout_s"].get<double>(), 118.0);
  EXPECT_LE(params["wait_timeout_s"].get<double>(), 120.0);
}

TEST(HookRelayProcess, WaitingModeWithoutAVerdictPrintsNothing) {
  AnsweringBroker fake([](const Json& id) {
    return protocol::encode_ok(id, {{"accepted", true}, {"agent", "claude"},
                                    {"event", "PermissionRequest"}, {"pane_id", "pane_0123"},
                                    {"native_verdict", nullptr}, {"reason", "timeout"}});
  });
  RelayRun run = run_relay({"--agent", "claude", "--event", "PermissionRequest", "--wait-for-answer"},
                           env_for(fake.broker), kPermissionPayload);
  fake.broker.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
}

TEST(HookRelayProcess, WaitForAnswerOnAnythingButANativePermissionIsAPlainReport) {
  AnsweringBroker fake(accepted);
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop", "--wait-for-answer"},
                           env_for(fake.broker), kStopPayload);
  fake.broker.join();
  EXPECT_EQ(run.status, 0) << run.err;
  ASSERT_EQ(fake.lines.size(), 1u);
  EXPECT_FALSE(Json::parse(fake.lines[0])["params"].contains("wait_for_answer"));
  EXPECT_LT(run.took, std::chrono::milliseconds(3000));
}

TEST(HookRelayProcess, AnExplicitPaneWinsAndNoPayloadIsSentWithoutOne) {
  AnsweringBroker fake(accepted);
  auto env = env_for(fake.broker);
  env["SIGNALTTY_PANE"] = "pane_from_env";
  RelayRun run = run_relay({"--agent=codex", "--event=SessionStart", "--pane", "pane_flag"}, env, "");
  fake.broker.join();
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "");
  ASSERT_EQ(fake.lines.size(), 1u);
  Json params = Json::parse(fake.lines[0])["params"];
  EXPECT_EQ(params["pane_id"], "pane_flag");
  EXPECT_EQ(params["agent"], "codex");
  EXPECT_FALSE(params.contains("payload"));
}

TEST(HookRelayProcess, CodexNotifyPayloadComesFromTheArgument) {
  AnsweringBroker fake(accepted);
  const std::string notify = R"({"type":"agent-turn-complete","thread-id":"t"})";
  RelayRun run = run_relay({"--agent", "codex", "--event", "notify", notify}, env_for(fake.broker), "");
  fake.broker.join();
  EXPECT_EQ(run.status, 0) << run.err;
  ASSERT_EQ(fake.lines.size(), 1u);
  Json params = Json::parse(fake.lines[0])["params"];
  EXPECT_EQ(params["payload"], Json::parse(notify));
  EXPECT_FALSE(params.contains("pane_id"));
}

TEST(HookRelayProcess, BrokerDownExitsZeroWithOneLineQuickly) {
  char dir_template[] = "/tmp/signaltty-hookrelay-down-XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"},
                      {{"SIGNALTTY_SOCKET", dir + "/nothing.sock"}}, kStopPayload);
  ::rmdir(dir.c_str());
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("broker not running"), std::string::npos) << run.err;
  EXPECT_LT(run.took, std::chrono::milliseconds(3000));
}

TEST(HookRelayProcess, ASilentBrokerIsGivenUpWithinThreeSeconds) {
  FakeBroker silent([](FakeConnection& conn) { (void)conn.read_until_eof(); });
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"}, env_for(silent), kStopPayload);
  silent.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_LT(run.took, std::chrono::milliseconds(3000));
  EXPECT_GE(run.took, std::chrono::milliseconds(1500));
}

// A broker that accepts but stops reading: the send of a large payload
// blocks, and the watchdog still ends the relay with status 0 in time.
TEST(HookRelayProcess, ABrokerThatStopsReadingIsLeftByTheWatchdog) {
  FakeBroker stuck([](FakeConnection& conn) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
    (void)conn.read_until_eof();
  });
  std::string big = "{\"session_id\":\"s\",\"pad\":\"" + std::string(900u << 10, 'x') + "\"}";
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"}, env_for(stuck), big);
  stuck.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("took too long"), std::string::npos) << run.err;
  EXPECT_LT(run.took, std::chrono::milliseconds(3000));
}

TEST(HookRelayProcess, ARefusedEventExitsZeroWithOneStderrLine) {
  AnsweringBroker fake([](const Json& id) {
    return protocol::encode_error(id, Error{ErrorCode::NoSuchPane, "no pane pane_x"});
  });
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop", "--pane", "pane_x"},
                      env_for(fake.broker), kStopPayload);
  fake.broker.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("NO_SUCH_PANE"), std::string::npos) << run.err;
}

TEST(HookRelayProcess, ADroppedEventIsOneStderrLineToo) {
  AnsweringBroker fake([](const Json& id) {
    return protocol::encode_ok(id, {{"accepted", false}, {"agent", "claude"}, {"event", "Stop"},
                                    {"pane_id", "pane_1"}, {"dropped", true},
                                    {"reason", "harness_mismatch"}});
  });
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"}, env_for(fake.broker), kStopPayload);
  fake.broker.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("harness_mismatch"), std::string::npos) << run.err;
}

TEST(HookRelayProcess, UsageErrorsExitTwo) {
  const std::map<std::string, std::string> env{{"SIGNALTTY_SOCKET", "/nonexistent/s.sock"}};
  for (const auto& args : std::vector<std::vector<std::string>>{
           {},
           {"--agent", "claude"},
           {"--event", "Stop"},
           {"--agent", "gemini", "--event", "Stop"},
           {"--agent", "claude", "--event", "Stop", "--bogus"},
           {"--agent", "claude", "--event"},
           {"--agent", "claude", "--agent", "codex", "--event", "Stop"},
           {"--agent", "codex", "--event", "notify", "{}", "{}"},
           {"--agent", "claude", "--event", "PermissionRequest", "--wait-for-answer",
            "--wait-for-answer"}}) {
    RelayRun run = run_relay(args, env, "");
    EXPECT_EQ(run.status, 2) << run.err;
    EXPECT_EQ(run.out, "");
    EXPECT_NE(run.err.find("usage:"), std::string::npos);
  }
}

TEST(HookRelayProcess, PrintsItsVersion) {
  RelayRun run = run_relay({"--version"}, {}, "");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out.rfind("signaltty-hookrelay ", 0), 0u) << run.out;
}

TEST(HookRelayProcess, MoreThanOneMebibyteOfPayloadIsRefusedUnsent) {
  AnsweringBroker fake(accepted);
  std::string big = "{\"session_id\":\"s\",\"pad\":\"" + std::string((1u << 20) + 16, 'x') + "\"}";
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"}, env_for(fake.broker), big);
  fake.broker.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("1 MiB"), std::string::npos) << run.err;
  EXPECT_TRUE(fake.lines.empty());
}

TEST(HookRelayProcess, APayloadThatIsNotJsonIsRefusedUnsent) {
  AnsweringBroker fake(accepted);
  RelayRun run = run_relay({"--agent", "claude", "--event", "Stop"}, env_for(fake.broker), "{not json");
  fake.broker.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(lines_in(run.err), 1u) << run.err;
  EXPECT_TRUE(fake.lines.empty());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::hookrelay
