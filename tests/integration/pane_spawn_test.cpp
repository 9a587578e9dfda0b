// tests/integration/pane_spawn_test.cpp: pane.spawn and pane.split against
// the real broker and ptyhosts (docs/rules.md: "Spawn",
// "Who starts whom"): placement rules, failures that leave nothing behind,
// the child's environment, and the process tree the launcher builds.
// Runs in: the integration test binary.
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using namespace std::string_literals;
using PaneSpawn = PaneTest;

const std::string kUnknownPaneId = "pane_00000000000000000000000000000000";

std::string environ_of(pid_t pid) { return proc_file(pid, "environ"); }

bool environ_has(const std::string& env, const std::string& entry) {
  return ("\0"s + env).find("\0"s + entry + "\0"s) != std::string::npos;
}

TEST_F(PaneSpawn, FirstSpawnCreatesTheAgentsTabAndPublishesThePane) {
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"pane.*", "tab.*"}}});
  const std::string ws = make_workspace(client)["id"];
  Json pane = spawn(client, ws, {"cat"}, {{"cols", 5}, {"rows", 1000}});
  EXPECT_TRUE(std::regex_match(pane["id"].get<std::string>(), std::regex("pane_[0-9a-f]{32}")));
  EXPECT_EQ(pane["title"], "cat");
  EXPECT_EQ(pane["pty_size"], Json({{"cols", 20}, {"rows", 200}}));
  EXPECT_EQ(pane["live"], Json({{"state", "live"}}));
  EXPECT_EQ(pane["restore_state"], "LIVE");
  EXPECT_GT(pane["pid"].get<int>(), 0);
  EXPECT_GT(pane["ptyhost_pid"].get<int>(), 0);
  EXPECT_FALSE(pane["process_instance"].get<std::string>().empty());
  Json tab = client.call("workspace.get", {{"workspace_id", ws}})["tabs"][0];
  EXPECT_EQ(tab["title"], "agents");
  EXPECT_EQ(tab["layout"], Json({{"type", "pane"}, {"pane_id", pane["id"]}}));
  std::vector<std::string> names;
  while (names.size() < 3) {
    auto ev = watcher.next_event(deadline_after());
    ASSERT_TRUE(ev.has_value());
    names.push_back((*ev)["event"]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"tab.created", "pane.created", "tab.updated"}));
}

TEST_F(PaneSpawn, SpawnIntoATabWithPanesOrOfAnotherWorkspaceIsBadParams) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client, "a")["id"];
  const std::string other = make_workspace(client, "b")["id"];
  Json pane = spawn(client, ws, {"cat"});
  EXPECT_EQ(client.call_error("pane.spawn", {{"workspace_id", ws}, {"argv", {"cat"}}})["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.spawn", {{"workspace_id", other}, {"tab_id", pane["tab_id"]},
                                             {"argv", {"cat"}}})["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.spawn", {{"workspace_id", ws}, {"argv", Json::array()}})["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.spawn", {{"workspace_id", other}, {"argv", {"cat"}},
                                             {"cwd", dirs_.scratch("missing")}})["code"],
            "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.spawn", {{"workspace_id", other}, {"argv", {"cat"}},
                                             {"parent_pane_id", kUnknownPaneId}})["code"],
            "NO_SUCH_PANE");
  Json empty_tab = client.call("tab.create", {{"workspace_id", other}})["tab"];
  Json child = spawn(client, other, {"cat"}, {{"tab_id", empty_tab["id"]}, {"parent_pane_id", pane["id"]}});
  EXPECT_EQ(child["tab_id"], empty_tab["id"]);
  EXPECT_EQ(child["parent_pane_id"], pane["id"]);
  EXPECT_EQ(child["root_pane_id"], pane["id"]);
  EXPECT_EQ(child["relationship"], "subagent");
  EXPECT_TRUE(environ_has(environ_of(child["pid"]), "SIGNALTTY_PARENT_PANE=" + pane["id"].get<std::string>()));
}

TEST_F(PaneSpawn, ExecFailureIsSpawnFailedAndLeavesNoTabOrPane) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json error = client.call_error("pane.spawn", {{"workspace_id", ws}, {"argv", {"/nonexistent/program"}}});
  EXPECT_EQ(error["code"], "SPAWN_FAILED") << error.dump();
  Json got = client.call("workspace.get", {{"workspace_id", ws}});
  EXPECT_TRUE(got["tabs"].empty());
  EXPECT_TRUE(got["panes"].empty());
  EXPECT_EQ(client.call("server.status")["panes"], 0);
  EXPECT_TRUE(wait_until([&] { return leftovers().empty(); }));
}

TEST_F(PaneSpawn, ChildEnvironmentIsCleanAndCarriesThePaneIdentity) {
  BrokerOptions options;
  start(options);
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"},
                    {{"env", {{"LANG", "C.UTF-8"}, {"LD_PRELOAD", "/x.so"}, {"PATH", "/evil"},
                              {"CLAUDE_CONFIG_DIR", "/cfg"}}}});
  const std::string env = environ_of(pane["pid"]);
  EXPECT_TRUE(environ_has(env, "SIGNALTTY_PANE=" + pane["id"].get<std::string>()));
  EXPECT_TRUE(environ_has(env, "SIGNALTTY_SOCKET=" + broker().socket_path()));
  EXPECT_TRUE(environ_has(env, "TERM=xterm-256color"));
  EXPECT_TRUE(environ_has(env, "LANG=C.UTF-8"));
  EXPECT_TRUE(environ_has(env, "CLAUDE_CONFIG_DIR=/cfg"));
  EXPECT_TRUE(environ_has(env, "HOME=" + dirs_.home()));
  EXPECT_EQ(env.find("LD_PRELOAD"), std::string::npos);
  EXPECT_EQ(env.find("/evil"), std::string::npos);
}

TEST_F(PaneSpawn, PtyhostIsLaunchedOutsideTheBrokersTreeWithACleanEnvironmentAndFewFds) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  const pid_t host = pane["ptyhost_pid"];
  const pid_t broker_pid = broker().pid();
  EXPECT_NE(std::stoi(proc_status(host, "PPid")), broker_pid);
  EXPECT_NE(::getsid(host), ::getsid(broker_pid));
  EXPECT_EQ(::getsid(host), host) << "the ptyhost leads its own session";
  EXPECT_NE(::getsid(pane["pid"].get<pid_t>()), ::getsid(broker_pid));
  // PATH, and glibc without its per-thread malloc cache (launcher_process.cpp).
  using namespace std::string_literals;
  EXPECT_EQ(environ_of(host),
            "PATH=/usr/local/bin:/usr/bin:/bin\0GLIBC_TUNABLES=glibc.malloc.tcache_count=0\0"s);
  std::size_t fds = 0;
  std::unique_ptr<DIR, DirCloser> dir(::opendir(("/proc/" + std::to_string(host) + "/fd").c_str()));
  ASSERT_TRUE(dir);
  while (const dirent* e = ::readdir(dir.get())) {
    if (e->d_name[0] == '.') continue;
    ++fds;
    char target[PATH_MAX] = {};
    const std::string link = "/proc/" + std::to_string(host) + "/fd/" + e->d_name;
    if (::readlink(link.c_str(), target, sizeof target - 1) < 0) target[0] = '\0';  // gone meanwhile: reads as empty
    EXPECT_EQ(std::string(target).find(dirs_.state_dir()), std::string::npos)
        << "the ptyhost holds " << target;
  }
  EXPECT_LE(fds, 16u) << "0-2, its socket dir and listener, the broker link, the PTY master, the loop's own";
}

TEST_F(PaneSpawn, RelativeProgramPathIsAnchoredAtTheCwd) {
  start();
  Client client = connect();
  const std::string dir = dirs_.home() + "/bin";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  write_text_file(dir + "/hello.sh", "#!/bin/sh\necho hello-from-script\nexec cat\n");
  ::chmod((dir + "/hello.sh").c_str(), 0700);
  Json pane = spawn(client, make_workspace(client)["id"], {"./bin/hello.sh"});
  EXPECT_EQ(pane["argv"][0], dirs_.home() + "/bin/hello.sh");
  EXPECT_EQ(pane["title"], "hello.sh");
  wait_output(client, pane["id"], "hello-from-script");
}

TEST_F(PaneSpawn, SplitDefaultsToTheRightWithTheShellInTheSourceCwd) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json a = spawn(client, ws, {"cat"});
  Json b = client.call("pane.split", {{"pane_id", a["id"]}})["pane"];
  EXPECT_EQ(b["tab_id"], a["tab_id"]);
  EXPECT_EQ(b["cwd"], a["cwd"]);
  Json c = client.call("pane.split", {{"pane_id", b["id"]}, {"argv", {"cat"}}})["pane"];
  Json tab = client.call("workspace.get", {{"workspace_id", ws}})["tabs"][0];
  // Three columns, re-evened: first third, then halves of the rest.
  EXPECT_EQ(tab["layout"]["dir"], "right");
  EXPECT_NEAR(tab["layout"]["ratio"].get<double>(), 1.0 / 3, 1e-9);
  EXPECT_EQ(tab["active_pane_id"], c["id"]);
  EXPECT_EQ(client.call_error("pane.split", {{"pane_id", kUnknownPaneId}})["code"], "NO_SUCH_PANE");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
