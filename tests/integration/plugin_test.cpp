// tests/integration/plugin_test.cpp: executable plugins end to end against
// the real broker and CLI (docs/plugins.md): a hook fires on a live event
// with the envelope the socket carries, a hook that hangs is killed at its
// deadline and one that prints garbage fails alone, a broken package is
// listed in failures, plugin.list counts, plugin.reload resets, the plugin
// dir resolves from --plugin-dir and from the config dir, `signaltty plugin
// run` runs a command in the CLI's context, and a broker killed while a
// hook runs still leaves the hook's deadline enforced.
// Runs in: the integration test binary.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path, std::ios::binary) << text;
  ::chmod(path.c_str(), mode);
}

// Polls `ready` every 20 ms until it holds or the deadline passes.
template <class Pred>
bool eventually(Pred ready, Deadline deadline = deadline_after()) {
  while (!ready()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

bool gone(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z';
}

class PluginTest : public ::testing::Test {
 protected:
  TempDirs dirs_;
  // The default plugin dir under XDG_CONFIG_HOME.
  std::string plugins_ = dirs_.config_home() + "/signaltty/plugins";

  void SetUp() override { std::filesystem::create_directories(plugins_); }

  void add_plugin(const std::string& name, const std::string& body,
                  const std::vector<std::pair<std::string, std::string>>& scripts = {}) {
    const std::string dir = plugins_ + "/" + name;
    std::filesystem::create_directories(dir);
    write_file(dir + "/plugin.toml", "[plugin]\nname = \"" + name + "\"\n" + body);
    for (const auto& [file, text] : scripts) write_file(dir + "/" + file, "#!/bin/sh\n" + text, 0755);
  }

  Json hook_of(Client& client, const std::string& plugin) {
    const Json listed = client.call("plugin.list");
    for (const Json& p : listed["plugins"])
      if (p["name"] == plugin) return p["hooks"][0];
    return Json();
  }

  RunResult run_cli(std::vector<std::string> args) {
    args.insert(args.begin(), program_path("signaltty"));
    return run_program(dirs_, std::move(args), base_env(dirs_));
  }
};

TEST_F(PluginTest, HooksFireOnLiveEventsAndBadOnesFailAlone) {
  add_plugin("log",
             "version = \"1.2.0\"\ndescription = \"appends events\"\n"
             "[[hook]]\nevents = [\"workspace.created\"]\ncommand = [\"./log.sh\"]\n",
             {{"log.sh", "cat >> events.jsonl\necho \"$SIGNALTTY_EVENT\" >> names.txt\n"}});
  add_plugin("hang", "[[hook]]\nevents = [\"workspace.created\"]\ncommand = [\"./hang.sh\"]\n"
                     "timeout_secs = 1\n",
             {{"hang.sh", "echo $$ > hook.pid\nexec sleep 300\n"}});
  add_plugin("garbage", "[[hook]]\nevents = [\"*\"]\ncommand = [\"./garbage.sh\"]\n",
             {{"garbage.sh", "head -c 100000 /dev/urandom\nhead -c 100000 /dev/urandom >&2\nexit 9\n"}});
  std::filesystem::create_directories(plugins_ + "/broken");
  write_file(plugins_ + "/broken/plugin.toml", "[plugin\nname = \"broken\"\n");
  auto broker = start_broker(dirs_);
  Client client(broker->socket_path());

  const Json listed = client.call("plugin.list");
  EXPECT_EQ(listed["dir"], plugins_);
  ASSERT_EQ(listed["plugins"].size(), 3u);
  EXPECT_EQ(listed["plugins"][1]["name"], "hang");
  const Json log = listed["plugins"][2];
  EXPECT_EQ(log["version"], "1.2.0");
  EXPECT_EQ(log["hooks"][0]["command"][0], plugins_ + "/log/log.sh");
  EXPECT_EQ(log["hooks"][0]["runs"], 0);
  EXPECT_TRUE(log["hooks"][0]["last_run"].is_null());
  ASSERT_EQ(listed["failures"].size(), 1u);
  EXPECT_EQ(listed["failures"][0]["dir"], plugins_ + "/broken");

  client.call("subscribe", {{"events", {"workspace.created"}}});
  client.call("workspace.create", {{"name", "api"}});
  const std::optional<Json> created = client.next_event(deadline_after());
  ASSERT_TRUE(created.has_value());

  const std::string events = plugins_ + "/log/events.jsonl";
  ASSERT_TRUE(eventually([&] { return hook_of(client, "log")["runs"] == 1; }));
  const Json envelope = Json::parse(read_file(events));
  EXPECT_EQ(envelope, *created) << "the hook reads the event exactly as a subscriber got it";
  EXPECT_EQ(read_file(plugins_ + "/log/names.txt"), "workspace.created\n");
  EXPECT_EQ(hook_of(client, "log")["errors"], 0);
  EXPECT_TRUE(hook_of(client, "log")["last_run"].is_string());

  ASSERT_TRUE(eventually([&] { return hook_of(client, "garbage")["runs"] >= 1; }));
  const std::string garbage_error = hook_of(client, "garbage")["last_error"];
  EXPECT_EQ(garbage_error.rfind("exit 9", 0), 0u) << garbage_error;

  ASSERT_TRUE(eventually([&] { return hook_of(client, "hang")["runs"] == 1; },
                         deadline_after(std::chrono::seconds(15))));
  EXPECT_EQ(hook_of(client, "hang")["last_error"], "timed out after 1s");
  EXPECT_TRUE(gone(std::stoi(read_file(plugins_ + "/hang/hook.pid"))));
  client.call("server.status");  // throws unless answered ok

  const Json reloaded = client.call("plugin.reload");
  EXPECT_EQ(reloaded["plugins"][2]["hooks"][0]["runs"], 0) << "a reload resets statistics";
  EXPECT_TRUE(reloaded["plugins"][2]["hooks"][0]["last_error"].is_null());
  EXPECT_EQ(reloaded["failures"].size(), 1u);
}

TEST_F(PluginTest, TheDirComesFromTheFlagAndACommandRunsInTheCliContext) {
  const std::string elsewhere = dirs_.scratch("my-plugins");
  plugins_ = elsewhere;
  std::filesystem::create_directories(plugins_);
  add_plugin("tools", "[[command]]\nname = \"echo-args\"\nrun = [\"./args.sh\", \"first\"]\n",
             {{"args.sh", "printf '%s|' \"$@\" > args.txt\npwd > cwd.txt\n"
                          "echo \"$SIGNALTTY_SOCKET\" > socket.txt\nexit 7\n"}});
  auto broker = start_broker(dirs_, {.args = {"--plugin-dir", elsewhere}});
  Client client(broker->socket_path());
  EXPECT_EQ(client.call("plugin.list")["dir"], elsewhere);

  RunResult list = run_cli({"plugin", "list", "--json"});
  ASSERT_EQ(list.status.code, 0) << list.err;
  EXPECT_EQ(Json::parse(list.out)["plugins"][0]["commands"][0]["name"], "echo-args");

  RunResult run = run_cli({"plugin", "run", "tools", "echo-args", "--", "a b", "--flag"});
  EXPECT_EQ(run.status.code, 7) << "the command's exit status is the CLI's: " << run.err;
  const std::string dir = elsewhere + "/tools";
  EXPECT_EQ(read_file(dir + "/args.txt"), "first|a b|--flag|");
  EXPECT_EQ(read_file(dir + "/cwd.txt"), std::filesystem::canonical(dir).string() + "\n");
  EXPECT_EQ(read_file(dir + "/socket.txt"), broker->socket_path() + "\n");

  RunResult unknown = run_cli({"plugin", "run", "tools", "nope"});
  EXPECT_NE(unknown.status.code, 0);
  EXPECT_NE(unknown.err.find("no command named nope"), std::string::npos) << unknown.err;
  RunResult no_plugin = run_cli({"plugin", "run", "nobody", "x"});
  EXPECT_NE(no_plugin.status.code, 0);
  EXPECT_NE(no_plugin.err.find("no plugin named nobody"), std::string::npos) << no_plugin.err;
}

TEST_F(PluginTest, AHookOutlivesAKilledBrokerOnlyUntilItsDeadline) {
  add_plugin("stuck", "[[hook]]\nevents = [\"workspace.created\"]\ncommand = [\"./stuck.sh\"]\n"
                      "timeout_secs = 2\n",
             {{"stuck.sh", "echo $$ > hook.pid\nexec sleep 300\n"}});
  auto broker = start_broker(dirs_);
  {
    Client client(broker->socket_path());
    client.call("workspace.create", {{"name", "api"}});
  }
  const std::string pid_file = plugins_ + "/stuck/hook.pid";
  ASSERT_TRUE(eventually([&] { return read_file(pid_file).size() > 1; }));
  const pid_t hook = std::stoi(read_file(pid_file));
  broker->sigkill();
  ASSERT_TRUE(broker->wait_exit(deadline_after()).has_value());
  EXPECT_FALSE(gone(hook)) << "the hook is not the broker's child: it keeps running";
  EXPECT_TRUE(eventually([&] { return gone(hook); }, deadline_after(std::chrono::seconds(10))))
      << "its supervisor still kills it at the deadline";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
