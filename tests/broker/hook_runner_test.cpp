// tests/broker/hook_runner_test.cpp: plugin hooks run for real, through a
// real forked launcher and the hook's supervisor: the envelope on stdin,
// the environment and cwd of plugins.md, exit codes, deadlines that kill
// the hook's whole process group, spawn failures, garbage and floods on
// stdout/stderr, a hook that ignores a large stdin, at most 8 at once, the
// bounded queue, a plugin.toml edited behind the broker's back, a reload
// while a hook runs; and the launcher's codecs for all of it.
#include "broker/plugins/hook_runner.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "broker/launcher.hpp"
#include "broker/launcher_process.hpp"
#include "broker/plugins/hook_launch.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker::plugins {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using signaltty::broker::testing::read_file;
using signaltty::broker::testing::TempDir;
using signaltty::broker::testing::write_file;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A plugin `name` under `root`: plugin.toml with `hooks` (TOML), and the
// scripts given as (file name, shell body).
void write_plugin(const std::string& root, const std::string& name, const std::string& hooks,
                  const std::vector<std::pair<std::string, std::string>>& scripts = {}) {
  const std::string dir = root + "/" + name;
  std::filesystem::create_directories(dir);
  write_file(dir + "/plugin.toml", "[plugin]\nname = \"" + name + "\"\n" + hooks);
  for (const auto& [file, body] : scripts) write_file(dir + "/" + file, "#!/bin/sh\n" + body, 0755);
}

StateEvent event(std::string name, std::uint64_t seq, Json payload = Json::object()) {
  return StateEvent{seq, std::move(name), std::move(payload), "2026-12-02T00:00:00Z", {}};
}

// Running, or stopped: not gone and not a zombie waiting for its reaper.
bool alive(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// A real launcher over a plugin dir, the runner, and a loop to wait in.
struct Rig {
  TempDir dir{"signaltty-hooks"};
  std::string plugins = dir.path() + "/plugins";
  boost::asio::io_context io;
  std::unique_ptr<Launcher> launcher;
  std::unique_ptr<HookRunner> runner;
  std::vector<Status> outcomes;

  Rig() {
    std::filesystem::create_directories(plugins);
    ::signal(SIGPIPE, SIG_IGN);  // as the broker does (broker/server.cpp)
  }

  void start(HookRunnerLimits limits = {}) {
    LauncherConfig config{"/nonexistent/ptyhost", dir.path(), dir.path() + "/broker.sock",
                          plugins, {}};
    auto started = Launcher::start(io, config);
    ASSERT_TRUE(started.ok()) << started.error().message;
    launcher = std::move(*started);
    runner = std::make_unique<HookRunner>(io, *launcher, PluginRegistry::scan(plugins), limits);
    runner->on_finished([this](const HookRef&, const Status& s) { outcomes.push_back(s); });
  }

  // Runs the loop until `count` jobs finished or `limit` passed.
  void wait_for(std::size_t count, std::chrono::seconds limit = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (outcomes.size() < count && std::chrono::steady_clock::now() < deadline)
      io.run_one_until(deadline);
    ASSERT_GE(outcomes.size(), count) << "hooks did not finish in time";
  }

  HookStats stats(std::size_t plugin = 0, std::size_t hook = 0) {
    return runner->registry().stats({runner->registry().set(), plugin, hook}).value();
  }
};

TEST(HookRunner, AHookGetsTheEnvelopeOnStdinAndTheEnvironmentOfTheSpec) {
  Rig rig;
  write_plugin(rig.plugins, "recorder",
               "[[hook]]\nevents = [\"agent.*\"]\ncommand = [\"./record.sh\", \"one arg\"]\n"
               "[hook.env]\nEXTRA = \"from the manifest\"\nSIGNALTTY_EVENT = \"overridden\"\n",
               {{"record.sh",
                 "cat > stdin.txt\nprintf '%s\\n' \"$1\" > args.txt\npwd > cwd.txt\n"
                 "env > env.txt\n"}});
  rig.start();
  rig.runner->offer(event("workspace.created", 6));  // selected by no glob
  rig.runner->offer(event("agent.done", 7, {{"pane_id", "pane_x"}}));
  rig.wait_for(1);
  ASSERT_TRUE(rig.outcomes[0].ok()) << rig.outcomes[0].error().message;
  const std::string dir = rig.plugins + "/recorder";
  const Json envelope = Json::parse(read_file(dir + "/stdin.txt"));
  EXPECT_EQ(envelope, Json({{"protocol", "signaltty/1"},
                            {"type", "event"},
                            {"event", "agent.done"},
                            {"seq", 7},
                            {"payload", {{"pane_id", "pane_x"}}}}));
  EXPECT_EQ(read_file(dir + "/stdin.txt").back(), '\n') << "one JSONL line, as on the socket";
  EXPECT_EQ(read_file(dir + "/args.txt"), "one arg\n");
  EXPECT_EQ(read_file(dir + "/cwd.txt"), std::filesystem::canonical(dir).string() + "\n");
  const std::string env = read_file(dir + "/env.txt");
  EXPECT_THAT(env, HasSubstr("SIGNALTTY_SOCKET=" + rig.dir.path() + "/broker.sock\n"));
  EXPECT_THAT(env, HasSubstr("SIGNALTTY_EVENT=overridden\n")) << "[hook.env] comes last";
  EXPECT_THAT(env, HasSubstr("SIGNALTTY_PLUGIN_NAME=recorder\n"));
  EXPECT_THAT(env, HasSubstr("SIGNALTTY_PLUGIN_DIR=" + dir + "\n"));
  EXPECT_THAT(env, HasSubstr("EXTRA=from the manifest\n"));
  EXPECT_THAT(env, HasSubstr("PATH=")) << "the server's environment is passed on";
  const HookStats stats = rig.stats();
  EXPECT_EQ(stats.runs, 1u);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_TRUE(stats.last_run.has_value());
  EXPECT_EQ(rig.runner->running(), 0u);
}

TEST(HookRunner, ANonZeroExitIsAnErrorQuotingStderr) {
  Rig rig;
  write_plugin(rig.plugins, "failing", "[[hook]]\nevents = [\"*\"]\ncommand = [\"./fail.sh\"]\n",
               {{"fail.sh", "echo 'disk is full' >&2\nexit 3\n"}});
  rig.start();
  rig.runner->offer(event("pane.created", 1));
  rig.wait_for(1);
  const HookStats stats = rig.stats();
  EXPECT_EQ(stats.runs, 1u);
  EXPECT_EQ(stats.errors, 1u);
  EXPECT_EQ(stats.last_error.value_or(""), "exit 3: disk is full");
}

TEST(HookRunner, ADeadlineKillsTheHookAndEverythingItStarted) {
  Rig rig;
  write_plugin(rig.plugins, "slow",
               "[[hook]]\nevents = [\"*\"]\ncommand = [\"./slow.sh\"]\ntimeout_secs = 1\n",
               {{"slow.sh", "sleep 300 &\necho $! > child.pid\necho $$ > hook.pid\nsleep 300\n"}});
  rig.start();
  const auto started = std::chrono::steady_clock::now();
  rig.runner->offer(event("pane.created", 1));
  rig.wait_for(1);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_EQ(rig.stats().last_error.value_or(""), "timed out after 1s");
  const std::string dir = rig.plugins + "/slow";
  const pid_t hook = std::stoi(read_file(dir + "/hook.pid"));
  const pid_t child = std::stoi(read_file(dir + "/child.pid"));
  // Killed by the supervisor before it reported; reaped by it (the hook) or
  // by init (the background child), which may take a moment.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while ((alive(hook) || alive(child)) && std::chrono::steady_clock::now() < deadline)
    ::usleep(10000);
  EXPECT_FALSE(alive(hook));
  EXPECT_FALSE(alive(child)) << "the background child is in the hook's process group";
}

// The hook's parent is its supervisor: a hook that kills it stands for a
// supervisor killed mid-run. The job ends with an error, not a hang.
TEST(HookRunner, ASupervisorKilledMidRunEndsTheJobWithAnError) {
  Rig rig;
  write_plugin(rig.plugins, "orphan", "[[hook]]\nevents = [\"*\"]\ncommand = [\"./orphan.sh\"]\n",
               {{"orphan.sh", "kill -9 $PPID\n"}});
  rig.start();
  rig.runner->offer(event("pane.created", 1));
  rig.wait_for(1);
  EXPECT_EQ(rig.stats().last_error.value_or(""), "the hook's supervisor ended without a report");
  EXPECT_EQ(rig.runner->running(), 0u);
}

TEST(HookRunner, SpawnFailuresAreErrorsAndTheOthersStillRun) {
  Rig rig;
  write_plugin(rig.plugins, "broken",
               "[[hook]]\nevents = [\"*\"]\ncommand = [\"./missing.sh\"]\n"
               "[[hook]]\nevents = [\"*\"]\ncommand = [\"no-such-command-anywhere\"]\n"
               "[[hook]]\nevents = [\"*\"]\ncommand = [\"./not-executable.sh\"]\n"
               "[[hook]]\nevents = [\"*\"]\ncommand = [\"true\"]\n");
  write_file(rig.plugins + "/broken/not-executable.sh", "#!/bin/sh\n", 0644);
  rig.start();
  rig.runner->offer(event("pane.created", 1));
  rig.wait_for(4);
  EXPECT_THAT(rig.stats(0, 0).last_error.value_or(""), HasSubstr("No such file or directory"));
  EXPECT_THAT(rig.stats(0, 1).last_error.value_or(""),
              HasSubstr("no-such-command-anywhere: command not found in PATH"));
  // No execute bit at all: refused to root too.
  EXPECT_THAT(rig.stats(0, 2).last_error.value_or(""), HasSubstr("Permission denied"));
  EXPECT_EQ(rig.stats(0, 3).errors, 0u) << "true, found on PATH, ran";
  EXPECT_EQ(rig.stats(0, 3).runs, 1u);
}

TEST(HookRunner, GarbageAndFloodsOnStdoutAndStderrNeverStallAndAreCut) {
  Rig rig;
  write_plugin(rig.plugins, "noisy", "[[hook]]\nevents = [\"*\"]\ncommand = [\"./noisy.sh\"]\n",
               {{"noisy.sh",
                 "head -c 3000000 /dev/urandom\nhead -c 3000000 /dev/urandom >&2\n"
                 "printf '\\033]0;title\\007\\377\\376 bad bytes' >&2\nexit 1\n"}});
  rig.start();
  rig.runner->offer(event("pane.created", 1));
  rig.wait_for(1);
  const std::string error = rig.stats().last_error.value_or("");
  EXPECT_THAT(error, StartsWith("exit 1: "));
  EXPECT_LE(error.size(), kHookErrorMaxChars * 4);  // 500 characters of UTF-8
  for (unsigned char c : error) EXPECT_FALSE(c < 0x20 && c != '\n' && c != '\t') << int(c);
}

TEST(HookRunner, AHookThatIgnoresALargeStdinFinishes) {
  Rig rig;
  write_plugin(rig.plugins, "deaf", "[[hook]]\nevents = [\"*\"]\ncommand = [\"true\"]\n");
  rig.start();
  rig.runner->offer(event("pane.updated", 1, {{"blob", std::string(1 << 20, 'x')}}));
  rig.wait_for(1);
  EXPECT_TRUE(rig.outcomes[0].ok()) << rig.outcomes[0].error().message;
}

TEST(HookRunner, AtMostEightRunAtOnceAndTheRestWaitInLine) {
  Rig rig;
  // Each run holds a slot file while it sleeps and records how many it saw.
  write_plugin(rig.plugins, "wide", "[[hook]]\nevents = [\"*\"]\ncommand = [\"./slot.sh\"]\n",
               {{"slot.sh",
                 "mkdir -p slots seen\ntouch slots/$$\nls slots | wc -l > seen/$$\n"
                 "sleep 0.4\nrm slots/$$\n"}});
  rig.start();
  std::size_t peak = 0;
  for (std::uint64_t seq = 1; seq <= 20; ++seq) {
    rig.runner->offer(event("pane.created", seq));
    peak = std::max(peak, rig.runner->running());
  }
  EXPECT_EQ(rig.runner->running(), kHooksRunningMax);
  EXPECT_EQ(rig.runner->queued(), 20 - kHooksRunningMax);
  rig.wait_for(20, std::chrono::seconds(30));
  EXPECT_EQ(peak, kHooksRunningMax);
  std::size_t most_seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(rig.plugins + "/wide/seen"))
    most_seen = std::max<std::size_t>(most_seen, std::stoul(read_file(entry.path().string())));
  EXPECT_LE(most_seen, kHooksRunningMax) << "never more than 8 hook processes at once";
  EXPECT_GE(most_seen, 2u) << "hooks do run side by side";
  EXPECT_EQ(rig.stats().runs, 20u);
  EXPECT_EQ(rig.stats().errors, 0u) << rig.stats().last_error.value_or("");
}

TEST(HookRunner, PastTheQueueBoundFiringsAreDroppedAsErrors) {
  Rig rig;
  write_plugin(rig.plugins, "one", "[[hook]]\nevents = [\"*\"]\ncommand = [\"sleep\", \"0.2\"]\n");
  rig.start({.running_max = 1, .queued_max = 2});
  for (std::uint64_t seq = 1; seq <= 5; ++seq) rig.runner->offer(event("pane.created", seq));
  // One runs, two wait, two are dropped (and counted at once).
  EXPECT_EQ(rig.stats().runs, 2u);
  EXPECT_THAT(rig.stats().last_error.value_or(""), HasSubstr("not run: 2 hook runs"));
  rig.wait_for(3);
  EXPECT_EQ(rig.stats().runs, 5u);
  EXPECT_EQ(rig.stats().errors, 2u);
}

TEST(HookRunner, APluginTomlEditedWithoutAReloadIsNotRun) {
  Rig rig;
  write_plugin(rig.plugins, "edited", "[[hook]]\nevents = [\"*\"]\ncommand = [\"true\"]\n");
  rig.start();
  write_plugin(rig.plugins, "edited", "[[hook]]\nevents = [\"*\"]\ncommand = [\"false\"]\n");
  rig.runner->offer(event("pane.created", 1));
  rig.wait_for(1);
  EXPECT_THAT(rig.stats().last_error.value_or(""),
              HasSubstr("plugin.toml changed since it was loaded"));
  rig.runner->reload();
  rig.runner->offer(event("pane.created", 2));
  rig.wait_for(2);
  EXPECT_EQ(rig.stats().last_error.value_or(""), "exit 1") << "the edited hook, after reload";
}

TEST(HookRunner, AReloadWhileAHookRunsResetsStatisticsAndTheOldRunIsNotCounted) {
  Rig rig;
  write_plugin(rig.plugins, "long", "[[hook]]\nevents = [\"*\"]\ncommand = [\"sleep\", \"0.3\"]\n");
  rig.start();
  rig.runner->offer(event("pane.created", 1));
  const protocol::PluginListResult listed = rig.runner->reload();
  ASSERT_EQ(listed.plugins.size(), 1u);
  EXPECT_EQ(listed.plugins[0].hooks[0].runs, 0u);
  rig.wait_for(1);
  EXPECT_TRUE(rig.outcomes[0].ok());
  EXPECT_EQ(rig.stats().runs, 0u) << "a run of the replaced set is not counted";
  EXPECT_EQ(rig.runner->running(), 0u);
}

TEST(HookRunner, PtyDataIsNeverOffered) {
  Rig rig;
  write_plugin(rig.plugins, "all", "[[hook]]\nevents = [\"*\"]\ncommand = [\"true\"]\n");
  rig.start();
  rig.runner->offer(event("pty.data", 1));
  EXPECT_EQ(rig.runner->running() + rig.runner->queued(), 0u);
}

// ---- the launcher's side and the codecs --------------------------------------

TEST(HookLaunch, RequestsRoundTripAndBadOnesAreRefused) {
  const HookLaunch launch{"my-plugin", 3, 0xdeadbeefcafe, "agent.done"};
  EXPECT_EQ(decode_hook_launch(encode_hook_launch(launch)), launch);
  const LaunchRequest request{9, {}, launch};
  const auto decoded = decode_launch_request(encode_launch_request(request));
  ASSERT_TRUE(decoded && decoded->hook);
  EXPECT_EQ(decoded->id, 9u);
  EXPECT_EQ(*decoded->hook, launch);
  for (std::string_view bad :
       {"../etc 0 1 agent.done", "p 0 1 ../x", "p 0 1 agent.*", "p -1 1 a.b", "p 0 zz a.b",
        "p 0 1", "p 999 1 a.b", "P 0 1 a.b", "p 0 1 a b"})
    EXPECT_FALSE(decode_hook_launch(bad).has_value()) << bad;
  EXPECT_FALSE(decode_launch_request("4 hook ../../bin 0 1 x.y").has_value());
}

TEST(HookLaunch, EndsRoundTripAndOutcomesReadAsTheSpecWrites) {
  for (const ChildEnd& end : {ChildEnd{ChildEnd::Kind::Exited, 0, ""},
                             ChildEnd{ChildEnd::Kind::Exited, 2, ""},
                             ChildEnd{ChildEnd::Kind::Signaled, 9, ""},
                             ChildEnd{ChildEnd::Kind::TimedOut, 10, ""},
                             ChildEnd{ChildEnd::Kind::SpawnFailed, 2, "execve /x y"}})
    EXPECT_EQ(decode_child_end(encode_child_end(end)), end);
  for (std::string_view bad : {"", "exit", "exit -1", "exit 1x", "spawn x y", "quit 0"})
    EXPECT_FALSE(decode_child_end(bad).has_value()) << bad;
  EXPECT_TRUE(hook_outcome({ChildEnd::Kind::Exited, 0, ""}, 10, "noise").ok());
  EXPECT_EQ(hook_outcome({ChildEnd::Kind::Exited, 2, ""}, 10, "bad\n").error().message, "exit 2: bad");
  EXPECT_EQ(hook_outcome({ChildEnd::Kind::TimedOut, 7, ""}, 7, "").error().message,
            "timed out after 7s");
  EXPECT_EQ(hook_outcome({ChildEnd::Kind::SpawnFailed, ENOENT, "execve ./x"}, 7, "").error().message,
            "execve ./x: No such file or directory");
}

TEST(HookLaunch, TheEnvironmentLayersServerThenOursThenTheHooks) {
  Plugin plugin;
  plugin.name = "p";
  plugin.dir = "/plugins/p";
  PluginHook hook;
  hook.env = {{"PATH", "/hook/bin"}, {"NEW", "1"}};
  const std::vector<std::string> base = {"PATH=/usr/bin", "HOME=/home/u", "SIGNALTTY_EVENT=x",
                                         "=junk", "nonsense"};
  const std::vector<std::string> env = hook_environment(base, plugin, hook, "/run/s.sock", "a.b");
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/hook/bin", "HOME=/home/u", "SIGNALTTY_EVENT=a.b",
                                           "SIGNALTTY_SOCKET=/run/s.sock",
                                           "SIGNALTTY_PLUGIN_DIR=/plugins/p",
                                           "SIGNALTTY_PLUGIN_NAME=p", "NEW=1"}));
}

TEST(HookLaunch, FindExecutableLooksAlongPathOnlyForBareNames) {
  TempDir dir("signaltty-path");
  write_file(dir.file("tool"), "#!/bin/sh\n", 0755);
  write_file(dir.file("plain"), "", 0644);
  std::filesystem::create_directories(dir.file("subdir"));
  EXPECT_EQ(find_executable("./x", "", "/").value(), "./x");
  EXPECT_EQ(find_executable("/abs/x", "", "/").value(), "/abs/x");
  EXPECT_EQ(find_executable("tool", "/nonexistent:" + dir.path(), "/").value(), dir.file("tool"));
  EXPECT_EQ(find_executable("tool", "", dir.path()).value(), dir.file("tool")) << "empty = cwd";
  EXPECT_FALSE(find_executable("subdir", dir.path(), "/").ok());
  EXPECT_FALSE(find_executable("plain", dir.path(), "/").ok()) << "no execute bit, even for root";
  EXPECT_FALSE(find_executable("nothing-here", dir.path(), "/").ok());
}

TEST(HookLaunch, TheLauncherRefusesAHookRequestWithoutItsPipes) {
  TempDir dir("signaltty-launcher-hooks");
  std::filesystem::create_directories(dir.file("plugins/p"));
  write_file(dir.file("plugins/p/plugin.toml"),
             "[plugin]\nname = \"p\"\n[[hook]]\nevents = [\"*\"]\ncommand = [\"true\"]\n");
  LauncherConfig config{"/nonexistent", dir.path(), dir.file("s.sock"), dir.file("plugins"), {}};
  EXPECT_THAT(start_hook(config, {"p", 0, 1, "a.b"}, {}).error().message, HasSubstr("four pipes"));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::plugins
