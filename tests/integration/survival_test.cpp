// tests/integration/survival_test.cpp: panes outlive their broker
// (docs/rules.md: Broker process contract, decisions 1-3, "The broker can
// die and nothing is lost"). Each test kills or stops the
// broker in a different way and checks what the next broker finds.
// Runs in: the integration test binary.
#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <regex>
#include <thread>

#include "tests/integration/pane_support.hpp"
#include "tests/integration/stand_in_ptyhost.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Survival = PaneTest;

// The numbers of the `line-<n>` lines in `text`, in order.
std::vector<int> line_numbers(const std::string& text) {
  std::vector<int> out;
  static const std::regex re("line-([0-9]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back(std::stoi((*it)[1]));
  return out;
}

Json read(Client& client, const std::string& pane_id, Json params) {
  params["pane_id"] = pane_id;
  return client.call("pane.read", params);
}

// Collects pty.data for `pane_id` until `want` bytes past `from` arrived.
struct Stream {
  std::uint64_t first_start = 0;
  std::uint64_t end = 0;
  bool contiguous = true;
  std::string bytes;
};
Stream collect(Client& client, const std::string& pane_id, std::uint64_t from, std::size_t want) {
  Stream s;
  s.first_start = s.end = from;
  bool first = true;
  const Deadline deadline = deadline_after();
  while (s.bytes.size() < want) {
    auto ev = client.next_event(deadline);
    if (!ev) throw HarnessError("pty.data did not arrive");
    if ((*ev)["event"] != "pty.data" || (*ev)["payload"]["pane_id"] != pane_id) continue;
    const std::string data = *base64_decode((*ev)["payload"]["data_b64"].get<std::string>());
    const std::uint64_t end = (*ev)["payload"]["output_offset"];
    const std::uint64_t start = end - data.size();
    if (first) s.first_start = start;
    else if (start != s.end) s.contiguous = false;
    first = false;
    s.end = end;
    s.bytes += data;
  }
  return s;
}

TEST_F(Survival, BrokerSigkillReadoptsLivePanesTwentyTimes) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json pane = spawn(client, ws, counter_argv());
  const std::string id = pane["id"];
  Json cat = client.call("pane.split", {{"pane_id", id}, {"argv", {"cat"}}})["pane"];
  wait_output(client, id, "line-3");
  Json attached = client.call("pane.attach", {{"pane_id", id}});
  Stream before = collect(client, id, attached["output_offset"], 64);
  EXPECT_EQ(before.first_start, attached["output_offset"].get<std::uint64_t>());
  EXPECT_TRUE(before.contiguous);
  Json cursor = read(client, id, {{"mode", "rendered"}});
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string tail_before = read(client, id, {{"mode", "tail"}, {"lines", 5000}})["text"];
    const std::uint64_t offset_before =
        client.call("pane.attach", {{"pane_id", id}, {"mark_seen", false}})["output_offset"];
    broker().sigkill();
    ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
    start();
    client = connect();
    Json now = get_pane(client, id);
    EXPECT_EQ(now["pid"], pane["pid"]);
    EXPECT_EQ(now["ptyhost_pid"], pane["ptyhost_pid"]);
    EXPECT_EQ(now["process_instance"], pane["process_instance"]);
    EXPECT_EQ(now["restore_state"], "LIVE");
    EXPECT_EQ(now["live"]["state"], "live");
    // The rendered cursor of the first broker still reads on, no gap, no repeat.
    Json next = read(client, id, {{"mode", "rendered"}, {"after_seq", cursor["next_seq"]}});
    EXPECT_EQ(next["dropped"], false);
    std::vector<int> seen = line_numbers(cursor["text"]);
    std::vector<int> more = line_numbers(next["text"]);
    if (!seen.empty() && !more.empty()) {
      EXPECT_EQ(more.front(), seen.back() + 1);
    }
    if (!more.empty()) cursor = next;
    // Scrollback intact: what was there is still there.
    const std::string tail_after = read(client, id, {{"mode", "tail"}, {"lines", 5000}})["text"];
    const auto last_line = tail_before.substr(tail_before.rfind("line-"));
    EXPECT_NE(tail_after.find(last_line), std::string::npos);
    // The offset counter never went back; the stream continues exactly.
    Json again = client.call("pane.attach", {{"pane_id", id}});
    EXPECT_GE(again["output_offset"].get<std::uint64_t>(), offset_before);
    Stream after = collect(client, id, again["output_offset"], 32);
    EXPECT_EQ(after.first_start, again["output_offset"].get<std::uint64_t>());
    EXPECT_TRUE(after.contiguous);
  }
  input(client, cat["id"], "still-typing\n");
  wait_output(client, cat["id"], "still-typing");
  EXPECT_TRUE(pid_alive(pane["pid"].get<pid_t>()));
}

TEST_F(Survival, SigtermLeavesEveryPaneRunningForTheNextBroker) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  broker().sigterm();
  auto status = broker().wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 0);
  EXPECT_TRUE(pid_alive(pane["pid"].get<pid_t>()));
  start();
  client = connect();
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["pid"], pane["pid"]);
  EXPECT_EQ(now["restore_state"], "LIVE");
  input(client, pane["id"], "after-sigterm\n");
  wait_output(client, pane["id"], "after-sigterm");
}

TEST_F(Survival, ShutdownRefusesWithLivePanesAndTheNextBrokerAdoptsTheRest) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json live = spawn(client, ws, {"cat"});
  EXPECT_EQ(client.call_error("server.shutdown")["code"], "PANES_ALIVE");
  Json done = client.call("pane.split", {{"pane_id", live["id"]},
                                         {"argv", {"/bin/sh", "-c", "echo finished; exit 3"}}})["pane"];
  ASSERT_TRUE(wait_until([&] { return get_pane(client, done["id"])["live"]["state"] == "exited"; }));
  client.call("pane.close", {{"pane_id", live["id"]}});
  EXPECT_TRUE(client.call("server.shutdown")["stopped"]);
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  start();
  client = connect();
  Json now = get_pane(client, done["id"]);
  EXPECT_EQ(now["exit_code"], 3);
  EXPECT_EQ(now["restore_state"], "EXITED");
  EXPECT_FALSE(now["ptyhost_pid"].is_null()) << "the exited pane's ptyhost keeps its screen";
  EXPECT_NE(read(client, done["id"], {{"mode", "tail"}})["text"].get<std::string>().find("finished"),
            std::string::npos);
}

TEST_F(Survival, ForcedShutdownClosesEveryPane) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  EXPECT_TRUE(client.call("server.shutdown", {{"force", true}})["stopped"]);
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  EXPECT_TRUE(wait_gone(pane["pid"].get<pid_t>()));
  EXPECT_TRUE(wait_gone(pane["ptyhost_pid"].get<pid_t>()));
}

TEST_F(Survival, ChildExitWhileNoBrokerRunsIsReportedWithItsRealStatus) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string flag = dirs_.scratch("flag");
  Json coded = spawn(client, ws, {"/bin/sh", "-c", "while [ ! -e " + flag + " ]; do sleep 0.02; done; exit 7"});
  Json killed = client.call("pane.split", {{"pane_id", coded["id"]}, {"argv", {"sleep", "1000"}}})["pane"];
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  write_text_file(flag, "go");
  ::kill(killed["pid"].get<pid_t>(), SIGKILL);
  ASSERT_TRUE(wait_gone(coded["pid"].get<pid_t>()));
  ASSERT_TRUE(wait_gone(killed["pid"].get<pid_t>()));
  start();
  client = connect();
  // The ptyhost reaps its child and records the status on its own loop; a
  // broker adopting it meanwhile learns the exit as an event just after.
  Json a, b;
  EXPECT_TRUE(wait_until([&] {
    a = get_pane(client, coded["id"]);
    b = get_pane(client, killed["id"]);
    return a["live"]["state"] == "exited" && b["live"]["state"] == "exited";
  }));
  EXPECT_EQ(a["live"]["state"], "exited");
  EXPECT_EQ(a["live"]["code"], 7);
  EXPECT_EQ(a["exit_code"], 7);
  EXPECT_TRUE(a["exit_signal"].is_null());
  EXPECT_EQ(a["restore_state"], "EXITED");
  EXPECT_EQ(a["lifecycle"], "exited");
  EXPECT_TRUE(b["exit_code"].is_null());
  EXPECT_EQ(b["exit_signal"], "KILL");
}

TEST_F(Survival, KillingTheBrokersProcessGroupLeavesEveryPaneAlive) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  ::kill(-broker().pid(), SIGKILL);
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  EXPECT_TRUE(pid_alive(pane["pid"].get<pid_t>()));
  EXPECT_TRUE(pid_alive(pane["ptyhost_pid"].get<pid_t>()));
  start();
  client = connect();
  EXPECT_EQ(get_pane(client, pane["id"])["restore_state"], "LIVE");
  input(client, pane["id"], "group-survivor\n");
  wait_output(client, pane["id"], "group-survivor");
}

// Sockets among a process's open descriptors.
int open_sockets(pid_t pid) {
  int count = 0;
  std::unique_ptr<DIR, DirCloser> dir(::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str()));
  while (const dirent* e = dir ? ::readdir(dir.get()) : nullptr) {
    char target[64] = {};
    const std::string link = "/proc/" + std::to_string(pid) + "/fd/" + e->d_name;
    if (::readlink(link.c_str(), target, sizeof target - 1) > 0 &&
        std::string_view(target).starts_with("socket:"))
      ++count;
  }
  return count;
}

// A broker that stops taking in a streaming pane's output (stopped here) is
// dropped by that pane's ptyhost after the stall limit; running again, the
// broker links to the ptyhost again: same pane, same program, still live.
TEST_F(Survival, StalledBrokerLinksAgainToAPtyhostThatDroppedIt) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "while :; do head -c 65536 /dev/zero | tr '\\0' y; done"});
  const pid_t ptyhost = pane["ptyhost_pid"].get<pid_t>();
  std::atomic<bool> stop{false};
  std::atomic<bool> streaming{false};
  std::thread viewer_thread([&] {
    try {
      Client viewer = connect();
      viewer.call("pane.attach", {{"pane_id", pane["id"]}, {"mark_seen", false}});
      while (!stop)
        if (viewer.next_event(deadline_after(std::chrono::milliseconds(100)))) streaming = true;
    } catch (const HarnessError&) {
      // Dropped with the stall, or at the end: what counts is the pane.
    }
  });
  const bool viewing = wait_until([&] { return streaming.load(); });
  EXPECT_EQ(open_sockets(ptyhost), 2) << "the ptyhost holds its listener and the broker's connection";
  if (viewing) ::kill(broker().pid(), SIGSTOP);
  const bool dropped = wait_until([&] { return open_sockets(ptyhost) == 1; },
                                  deadline_after(std::chrono::seconds(20)));
  ::kill(broker().pid(), SIGCONT);
  stop = true;
  viewer_thread.join();
  ASSERT_TRUE(viewing) << "no pty.data reached the viewer";
  ASSERT_TRUE(dropped) << "the ptyhost never dropped the stopped broker";
  ASSERT_TRUE(wait_until([&] { return open_sockets(ptyhost) == 2; })) << "linked again";
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["live"]["state"], "live");
  EXPECT_EQ(now["pid"], pane["pid"]);
  EXPECT_EQ(now["ptyhost_pid"], pane["ptyhost_pid"]);
  EXPECT_NE(read(client, pane["id"], {{"mode", "screen"}})["text"].get<std::string>().find("yyyy"),
            std::string::npos);
  EXPECT_NE(broker().stderr_text().find("linked again"), std::string::npos);
}

// Requests that meet a link being re-established (sent while the stopped
// broker's ptyhost drops it) wait for the new link and are answered from
// the live pane, not failed as if it had exited.
TEST_F(Survival, RequestsDuringARelinkWaitForItAndAreAnswered) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "while :; do head -c 65536 /dev/zero | tr '\\0' y; done"});
  const pid_t ptyhost = pane["ptyhost_pid"].get<pid_t>();
  Client viewer = connect();
  viewer.call("pane.attach", {{"pane_id", pane["id"]}, {"mark_seen", false}});
  ASSERT_TRUE(viewer.next_event(deadline_after()).has_value()) << "no pty.data reached the viewer";
  ::kill(broker().pid(), SIGSTOP);
  const bool dropped = wait_until([&] { return open_sockets(ptyhost) == 1; },
                                  deadline_after(std::chrono::seconds(20)));
  // Queued while the broker is stopped: each meets the hung-up link, before
  // or after the broker sees the hangup.
  const Json read_id = client.send_request("pane.read", {{"pane_id", pane["id"]}, {"mode", "screen"}});
  const Json resize_id =
      client.send_request("pane.resize", {{"pane_id", pane["id"]}, {"cols", 100}, {"rows", 30}});
  const Json signal_id =
      client.send_request("pane.signal", {{"pane_id", pane["id"]}, {"signal", "SIGWINCH"}});
  ::kill(broker().pid(), SIGCONT);
  ASSERT_TRUE(dropped) << "the ptyhost never dropped the stopped broker";
  const Json read_reply = client.await_response(read_id, deadline_after(std::chrono::seconds(20)));
  ASSERT_TRUE(is_ok(read_reply)) << read_reply.dump();
  EXPECT_NE(read_reply["result"]["text"].get<std::string>().find("yyyy"), std::string::npos);
  const Json resize_reply = client.await_response(resize_id, deadline_after(std::chrono::seconds(20)));
  EXPECT_TRUE(is_ok(resize_reply)) << resize_reply.dump();
  // A signal is not sent twice: under way when the link went, it may fail
  // (PANE_EXITED, "went away"); met by the relink, it waits and is sent.
  const Json signal_reply = client.await_response(signal_id, deadline_after(std::chrono::seconds(20)));
  if (!is_ok(signal_reply)) {
    EXPECT_EQ(error_code(signal_reply), "PANE_EXITED") << signal_reply.dump();
  }
  EXPECT_EQ(get_pane(client, pane["id"])["live"]["state"], "live");
  EXPECT_TRUE(wait_until([&] { return open_sockets(ptyhost) == 2; })) << "linked again";
  EXPECT_NE(broker().stderr_text().find("linked again"), std::string::npos);
}

// A close that meets a link being re-established (the ptyhost dropped a
// stalled broker) still signals and reaps the child before the pane goes
// (docs/rules.md, decision 17).
TEST_F(Survival, PaneCloseWhileTheBrokerLinksAgainReapsTheChildFirst) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "while :; do head -c 65536 /dev/zero | tr '\\0' y; done"});
  const pid_t ptyhost = pane["ptyhost_pid"].get<pid_t>();
  Client viewer = connect();
  viewer.call("pane.attach", {{"pane_id", pane["id"]}, {"mark_seen", false}});
  ASSERT_TRUE(viewer.next_event(deadline_after()).has_value()) << "no pty.data reached the viewer";
  ::kill(broker().pid(), SIGSTOP);
  const bool dropped = wait_until([&] { return open_sockets(ptyhost) == 1; },
                                  deadline_after(std::chrono::seconds(20)));
  // Queued while the broker is stopped: it meets the hung-up link first.
  const Json close_id = client.send_request("pane.close", {{"pane_id", pane["id"]}});
  ::kill(broker().pid(), SIGCONT);
  ASSERT_TRUE(dropped) << "the ptyhost never dropped the stopped broker";
  const Json closed = client.await_response(close_id, deadline_after(std::chrono::seconds(20)));
  ASSERT_TRUE(is_ok(closed)) << closed.dump();
  EXPECT_TRUE(wait_gone(pane["pid"].get<pid_t>())) << "the child outlived its pane record";
  EXPECT_TRUE(wait_gone(ptyhost)) << "the ptyhost outlived its pane";
  EXPECT_EQ(error_code(client.request("pane.get", {{"pane_id", pane["id"]}})), "NO_SUCH_PANE");
}

std::string panes_dir(const TempDirs& dirs) { return dirs.socket_dir() + "/panes"; }

TEST_F(Survival, StaleSocketIsRemovedAtStartup) {
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  const std::string path = panes_dir(dirs_) + "/pane_0123456789abcdef0123456789abcdef.sock";
  {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }  // closed without listening: connecting now is ECONNREFUSED
  ASSERT_TRUE(path_exists(path));
  start();
  EXPECT_FALSE(path_exists(path));
}

// docs/rules.md, decision 2: the snapshot and the journal lost, the pane
// comes back in `recovered`.
TEST_F(Survival, LivePtyhostWithoutARecordIsAdoptedIntoRecovered) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  // Snapshot and journal both lost: nothing knows the pane any more.
  ::unlink(dirs_.state_file("snapshot.json").c_str());
  ::unlink(dirs_.state_file("audit.jsonl").c_str());
  start();
  client = connect();
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["pid"], pane["pid"]);
  Json ws = client.call("workspace.get", {{"workspace_id", now["workspace_id"]}})["workspace"];
  EXPECT_EQ(ws["name"], "recovered");
  input(client, pane["id"], "recovered-input\n");
  wait_output(client, pane["id"], "recovered-input");
}

// The pane record lost but its workspace and tab kept: its meta puts it back.
TEST_F(Survival, PaneWithoutARecordGoesBackToItsTabFromItsMeta) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  Json snapshot = Json::parse(read_text_file(dirs_.state_file("snapshot.json")));
  snapshot["panes"] = Json::array();
  write_text_file(dirs_.state_file("snapshot.json"), snapshot.dump());
  start();
  client = connect();
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["workspace_id"], pane["workspace_id"]);
  EXPECT_EQ(now["tab_id"], pane["tab_id"]);
}

// docs/rules.md, decision 2: a ptyhost whose spawn never reached it (its
// broker died first) runs nothing and nobody heard of its pane: the next
// broker closes it instead of showing a pane without a program.
TEST_F(Survival, PtyhostThatNeverStartedAProgramIsClosedNotRecovered) {
  start();
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  const std::string pane_id = "pane_00000000000000000000000000000001";
  SpawnSpec spec;
  spec.argv = {program_path("signaltty-ptyhost"), "--pane", pane_id, "--dir", panes_dir(dirs_)};
  spec.env = {"PATH=/usr/bin:/bin"};
  ChildProcess ptyhost(spec);
  ASSERT_TRUE(wait_until([&] { return path_exists(panes_dir(dirs_) + "/" + pane_id + ".sock"); }));
  start();
  const auto exit = ptyhost.wait_exit(deadline_after());
  ASSERT_TRUE(exit.has_value()) << "the unstarted ptyhost still runs";
  EXPECT_EQ(exit->code, 0) << exit->describe();
  Client client = connect();
  EXPECT_EQ(client.call("server.status")["panes"], 0);
  EXPECT_TRUE(client.call("workspace.list")["workspaces"].empty());
  EXPECT_NE(broker().stderr_text().find("never started a program"), std::string::npos);
}

// A spawn the broker was killed in the middle of (its ptyhost got the
// request, the pane was never published or answered): the ptyhost holds
// the pane's record from the spawn on, so the next broker puts the running
// pane back in the tab it was asked for, with its command, not in
// `recovered` as a pane of unknown origin. The spawn is held open by a
// Codex whose --no-daemon probe waits for the test.
TEST_F(Survival, PaneOfASpawnCutShortByTheKillComesBackInItsOwnTab) {
  const std::string bin = dirs_.scratch("slow-codex");
  ::mkdir(bin.c_str(), 0700);
  const std::string codex = bin + "/codex", probing = bin + "/probing", go = bin + "/go";
  write_text_file(codex, "#!/bin/sh\n"
                         "if [ \"$2\" = --version ]; then\n"
                         "  : > '" + probing + "'\n"
                         "  while [ ! -e '" + go + "' ]; do sleep 0.01; done\n"
                         "  echo 'codex-cli 0.171.0'; exit 0\n"
                         "fi\n"
                         "exec cat\n");
  ::chmod(codex.c_str(), 0700);
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string tab = client.call("tab.create", {{"workspace_id", ws}})["tab"]["id"];
  client.send_request("pane.spawn", {{"workspace_id", ws}, {"tab_id", tab}, {"argv", {codex}}});
  ASSERT_TRUE(wait_until([&] { return path_exists(probing); }));
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  write_text_file(go, "");
  ASSERT_TRUE(wait_until([&] {
    for (pid_t pid : leftovers())
      if (proc_file(pid, "cmdline").rfind("cat", 0) == 0) return true;
    return false;
  })) << "the pane's program did not start after the probe";
  start();
  client = connect();
  const Json panes = client.call("workspace.get", {{"workspace_id", ws}})["panes"];
  ASSERT_EQ(panes.size(), 1u) << client.call("workspace.list").dump();
  EXPECT_EQ(panes[0]["tab_id"], tab);
  EXPECT_EQ(panes[0]["argv"], Json::array({codex}));
  EXPECT_EQ(panes[0]["live"]["state"], "live");
  EXPECT_TRUE(pid_alive(panes[0]["pid"].get<pid_t>()));
  EXPECT_EQ(client.call("workspace.list")["workspaces"].size(), 1u) << "no `recovered` workspace";
}

// The Hello of a ptyhost whose program runs: a recovered pane, not one
// closed for never having started (decision 2). Its "program" is this
// process, only reported: nothing in these tests has it signalled.
Json fake_hello(const std::string& pane_id, int version) {
  return {{"op", "hello"}, {"version", version}, {"min_version", version}, {"features", 0},
          {"pane_id", pane_id}, {"ptyhost_pid", ::getpid()}, {"child_pid", ::getpid()},
          {"output_offset", 0}, {"meta", nullptr}};
}

TEST_F(Survival, PtyhostSendingGarbageIsDisconnectedAndTheBrokerCarriesOn) {
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  const std::string id = "pane_0123456789abcdef0123456789abcdef";
  StandInPtyhost fake(panes_dir(dirs_) + "/" + id + ".sock", id, {}, fake_hello(id, 1),
                      std::string("\xff\xff\xff\x7f\x09garbage", 10));
  start();
  Client client = connect();
  ASSERT_TRUE(wait_until([&] { return fake.hung_up(); }));
  Json pane = get_pane(client, id);
  EXPECT_TRUE(pane["ptyhost_pid"].is_null()) << pane.dump();
  EXPECT_EQ(pane["live"]["state"], "exited");
  EXPECT_TRUE(is_ok(client.request("server.status")));
}

TEST_F(Survival, PtyhostSpeakingAVersionWeDoNotKnowIsLeftAlone) {
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  const std::string id = "pane_abcdefabcdefabcdefabcdefabcdefab";
  const std::string path = panes_dir(dirs_) + "/" + id + ".sock";
  StandInPtyhost fake(path, id, {}, fake_hello(id, 0));
  start();
  Client client = connect();
  ASSERT_TRUE(wait_until([&] { return fake.hung_up(); }));
  EXPECT_EQ(client.call_error("pane.get", {{"pane_id", id}})["code"], "NO_SUCH_PANE");
  EXPECT_TRUE(path_exists(path)) << "never unlinked";
}

TEST_F(Survival, PtyhostWhosePidDoesNotMatchTheRecordIsLeftAlone) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  Json snapshot = Json::parse(read_text_file(dirs_.state_file("snapshot.json")));
  for (Json& p : snapshot["panes"]) p["ptyhost_pid"] = 1;
  write_text_file(dirs_.state_file("snapshot.json"), snapshot.dump());
  start();
  client = connect();
  Json now = get_pane(client, pane["id"]);
  EXPECT_NE(now["restore_state"], "LIVE");
  EXPECT_TRUE(now["ptyhost_pid"].is_null());
  EXPECT_TRUE(pid_alive(pane["ptyhost_pid"].get<pid_t>())) << "never killed";
  EXPECT_TRUE(path_exists(panes_dir(dirs_) + "/" + pane["id"].get<std::string>() + ".sock"))
      << "never unlinked";
}

// docs/rules.md "Restore": the ptyhost is gone (a reboot); the pane comes
// back RESTORED (RESUMABLE with a resume argv) with its saved tail.
TEST_F(Survival, RebootRestoresPanesWithTheirSavedTail) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json plain = spawn(client, ws, {"/bin/sh", "-c", "echo tail-marker-one; exec cat"});
  Json agent = client.call("pane.split", {{"pane_id", plain["id"]},
                                          {"argv", {"/bin/sh", "-c", "echo tail-marker-two; exec cat"}}})["pane"];
  Json gone = client.call("pane.split", {{"pane_id", plain["id"]}, {"argv", {"/bin/sh", "-c", "exit 4"}}})["pane"];
  ASSERT_TRUE(wait_until([&] { return get_pane(client, gone["id"])["live"]["state"] == "exited"; }));
  const std::string tail = dirs_.state_file("history/" + plain["id"].get<std::string>() + ".tail");
  ASSERT_TRUE(wait_until([&] {
    return path_exists(tail) && read_text_file(tail).find("tail-marker-one") != std::string::npos;
  }, deadline_after(std::chrono::seconds(15))));
  // The exit must be in the saved snapshot before the "power loss".
  ASSERT_TRUE(wait_until([&] {
    const std::string text = read_text_file(dirs_.state_file("snapshot.json"));
    Json saved = Json::parse(text, nullptr, false);
    if (!saved.is_object()) return false;
    for (const Json& p : saved.value("panes", Json::array()))
      if (p["id"] == gone["id"]) return p["live"]["state"] == "exited";
    return false;
  }, deadline_after(std::chrono::seconds(15))));
  struct stat st {};
  ASSERT_EQ(::stat(tail.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  kill_leftovers();  // the machine went down: every ptyhost and program is gone
  Json snapshot = Json::parse(read_text_file(dirs_.state_file("snapshot.json")));
  for (Json& p : snapshot["panes"])
    if (p["id"] == agent["id"]) p["agent"]["resume_argv"] = {"claude", "--resume", "s1"};
  write_text_file(dirs_.state_file("snapshot.json"), snapshot.dump());
  start();
  client = connect();
  Json a = get_pane(client, plain["id"]);
  EXPECT_EQ(a["restore_state"], "RESTORED");
  EXPECT_EQ(a["live"]["state"], "exited");
  EXPECT_TRUE(a["live"]["code"].is_null());
  EXPECT_TRUE(a["pid"].is_null());
  EXPECT_TRUE(a["ptyhost_pid"].is_null());
  EXPECT_NE(a["process_instance"], plain["process_instance"]);
  EXPECT_EQ(get_pane(client, agent["id"])["restore_state"], "RESUMABLE");
  EXPECT_EQ(get_pane(client, gone["id"])["restore_state"], "EXITED");
  EXPECT_NE(read(client, plain["id"], {{"mode", "tail"}})["text"].get<std::string>().find("tail-marker-one"),
            std::string::npos);
  Json rendered = read(client, plain["id"], {{"mode", "rendered"}, {"after_seq", 3}});
  EXPECT_EQ(rendered["dropped"], true) << "a cursor from before the reboot";
  // docs/rules.md "Rendered ring": every pre-restart cursor reads as dropped, the one equal to the
  // restored tail's line count included; a cursor taken after it is valid.
  const std::string saved = read(client, plain["id"], {{"mode", "tail"}, {"lines", 5000}})["text"];
  const auto saved_lines = static_cast<std::uint64_t>(std::count(saved.begin(), saved.end(), '\n') + 1);
  EXPECT_EQ(read(client, plain["id"], {{"mode", "rendered"}, {"after_seq", saved_lines}})["dropped"], true)
      << "a cursor equal to the tail's line count, from before the reboot";
  Json fresh = read(client, plain["id"], {{"mode", "rendered"}});
  EXPECT_EQ(fresh["dropped"], false);
  Json again = read(client, plain["id"], {{"mode", "rendered"}, {"after_seq", fresh["next_seq"]}});
  EXPECT_EQ(again["dropped"], false);
  EXPECT_EQ(again["text"], "");
  Json attached = client.call("pane.attach", {{"pane_id", plain["id"]}});
  EXPECT_EQ(attached["live"], false);
  EXPECT_NE(base64_decode(attached["snapshot_b64"].get<std::string>())->find("tail-marker-one"),
            std::string::npos);
  EXPECT_EQ(client.call_error("pane.input", {{"pane_id", plain["id"]}, {"data_b64", "eA=="}})["code"],
            "PANE_EXITED");
}

TEST_F(Survival, RestartToReadyWithFiftyLivePanes) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json first = spawn(client, ws, {"cat"});
  std::vector<Json> panes{first};
  for (int i = 1; i < 50; ++i)
    panes.push_back(client.call("pane.split", {{"pane_id", panes.back()["id"]}, {"argv", {"cat"}},
                                               {"direction", i % 2 ? "down" : "right"}})["pane"]);
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  const auto t0 = Clock::now();
  start();
  const auto ready_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  client = connect();
  EXPECT_EQ(client.call("server.status")["live_panes"], 50);
  for (const Json& p : panes) EXPECT_EQ(get_pane(client, p["id"])["pid"], p["pid"]);
  const std::string log = broker().stderr_text();
  std::smatch m;
  std::regex adopted("([0-9]+) adopted .*; ([0-9]+) ms");
  ASSERT_TRUE(std::regex_search(log, m, adopted)) << log;
  EXPECT_EQ(m[1], "50");
  RecordProperty("restart_to_ready_ms", static_cast<int>(ready_ms));
  RecordProperty("adoption_ms", std::stoi(m[2]));
  std::cout << "restart-to-ready with 50 live panes: " << ready_ms << " ms (adoption " << m[2]
            << " ms)\n";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
