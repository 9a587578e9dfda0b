// tests/ptyhost/ptyhost_probe_test.cpp: spawn's exec probe (Codex's
// --no-daemon, docs/rules.md "Agent integrations"): the probe runs with the
// pane's env and cwd; exit 0 in time starts argv_if_passed, anything else
// the plain argv; a probe past its time has its whole process group
// killed and costs no more than its timeout; a bad probe is BAD_PARAMS.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "ptyhost_harness.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Json = nlohmann::json;

Json spawn_fields(const Json& probe, const std::string& cwd = "/") {
  return {{"argv", {"sh", "-c", "echo plain-argv; exec sleep 1000"}},
          {"env", default_env()},
          {"cwd", cwd},
          {"cols", 80},
          {"rows", 24},
          {"probe", probe}};
}

Json probe_of(const std::string& script, int timeout_ms = 3000) {
  return {{"probe", {"sh", "-c", script}},
          {"argv_if_passed", {"sh", "-c", "echo probed-argv; exec sleep 1000"}},
          {"timeout_ms", timeout_ms}};
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z';
}

TEST(PtyhostProbe, AProbeThatExitsZeroStartsTheOtherArgv) {
  Pane pane;
  ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
  Reply r = pane.spawn_with(spawn_fields(probe_of("exit 0")));
  ASSERT_TRUE(r.ok) << r.code;
  EXPECT_EQ(r.result["probe_passed"], true);
  EXPECT_TRUE(pane.broker.await_output("probed-argv"));
  EXPECT_EQ(pane.broker.output().find("plain-argv"), std::string::npos);
}

TEST(PtyhostProbe, AFailingOrMissingProbeStartsTheGivenArgv) {
  for (const Json& probe :
       {probe_of("echo 'unexpected argument' >&2; exit 2"),
        Json{{"probe", {"no-such-program-anywhere", "--no-daemon", "--version"}},
             {"argv_if_passed", {"sh", "-c", "echo probed-argv"}},
             {"timeout_ms", 3000}}}) {
    Pane pane;
    ASSERT_TRUE(pane.broker.request("stream", {{"on", true}}).ok);
    Reply r = pane.spawn_with(spawn_fields(probe));
    ASSERT_TRUE(r.ok) << r.code;
    EXPECT_EQ(r.result["probe_passed"], false);
    EXPECT_TRUE(pane.broker.await_output("plain-argv"));
  }
}

// The probe sees the pane's cwd and environment.
TEST(PtyhostProbe, TheProbeRunsInThePanesCwdAndEnvironment) {
  TempDir scratch;
  Pane pane;
  const std::string out = scratch.file("probe.out");
  Reply r = pane.spawn_with(spawn_fields(
      probe_of("pwd > " + out + "; echo \"$LANG\" >> " + out),
      scratch.path()));
  ASSERT_TRUE(r.ok) << r.code;
  EXPECT_EQ(r.result["probe_passed"], true);
  const std::string seen = slurp(out);
  EXPECT_EQ(seen.rfind(scratch.path() + "\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("C.UTF-8"), std::string::npos) << seen;
}

// A probe that hangs costs its timeout, then it and what it started die.
TEST(PtyhostProbe, AHangingProbeIsKilledWithItsGroupAtItsTimeout) {
  TempDir scratch;
  Pane pane;
  const std::string pids = scratch.file("pids");
  const auto started = Clock::now();
  Reply r = pane.spawn_with(spawn_fields(
      probe_of("sleep 1000 & echo $! > " + pids + "; echo $$ >> " + pids + "; wait", 400)));
  const auto took = Clock::now() - started;
  ASSERT_TRUE(r.ok) << r.code;
  EXPECT_EQ(r.result["probe_passed"], false);
  EXPECT_GE(took, std::chrono::milliseconds(400));
  EXPECT_LT(took, std::chrono::milliseconds(400) + kDeadline);
  std::ifstream in(pids);
  pid_t sleeper = -1;
  pid_t shell = -1;
  in >> sleeper >> shell;
  ASSERT_GT(sleeper, 0);
  ASSERT_GT(shell, 0);
  EXPECT_TRUE(process_gone(shell));
  const auto deadline = Clock::now() + kDeadline;
  while (!process_gone(sleeper) && Clock::now() < deadline) ::usleep(10000);
  EXPECT_TRUE(process_gone(sleeper)) << "the probe's background child outlived it";
}

TEST(PtyhostProbe, AMalformedProbeIsBadParamsAndNothingRuns) {
  const Json bad[] = {
      {{"probe", Json::array()}, {"argv_if_passed", {"true"}}, {"timeout_ms", 100}},
      {{"probe", {"true"}}, {"argv_if_passed", Json::array()}, {"timeout_ms", 100}},
      {{"probe", {"true"}}, {"argv_if_passed", {"true"}}, {"timeout_ms", 0}},
      {{"probe", {"true"}}, {"argv_if_passed", {"true"}}, {"timeout_ms", 10001}},
      {{"probe", {std::string("tr\0ue", 5)}}, {"argv_if_passed", {"true"}}, {"timeout_ms", 100}},
  };
  for (const Json& probe : bad) {
    Pane pane;
    Reply r = pane.spawn_with(spawn_fields(probe));
    EXPECT_EQ(r.code, "BAD_PARAMS") << probe.dump();
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::ptyhost::testing
