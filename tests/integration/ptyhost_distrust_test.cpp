// tests/integration/ptyhost_distrust_test.cpp: the broker does not trust
// its peers: a client line nested past the JSON bound is answered with an
// error and the broker lives; a pane whose ptyhost dies is exited with
// exit_reason "ptyhost_lost" (docs/rules.md, decision 27), while a program's own exit
// says "exited" or "signaled".
// Runs in: the integration test binary.
#include <chrono>
#include <csignal>
#include <string>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using PtyhostDistrust = PaneTest;

TEST_F(PtyhostDistrust, DeeplyNestedClientLineGetsAnErrorAndTheBrokerLives) {
  start();
  Client client = connect();
  client.send_raw(std::string(100000, '[') + "\n");
  auto answer = client.read_message(deadline_after());
  ASSERT_TRUE(answer.has_value()) << "no answer to a deeply nested line";
  EXPECT_EQ((*answer)["ok"], false);
  EXPECT_EQ((*answer)["error"]["code"], "BAD_PROTOCOL");
  EXPECT_TRUE(is_ok(client.request("server.status")));
  EXPECT_TRUE(broker().running());
}

TEST_F(PtyhostDistrust, PaneWhosePtyhostDiedIsExitedWithPtyhostLost) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  const std::string id = pane["id"];
  ASSERT_EQ(::kill(pane["ptyhost_pid"].get<pid_t>(), SIGKILL), 0);
  ASSERT_TRUE(wait_until([&] { return get_pane(client, id)["live"]["state"] == "exited"; }));
  Json now = get_pane(client, id);
  EXPECT_TRUE(now["exit_code"].is_null()) << now.dump();
  EXPECT_TRUE(now["exit_signal"].is_null()) << now.dump();
  EXPECT_EQ(now["exit_reason"], "ptyhost_lost") << now.dump();
  EXPECT_TRUE(broker().running());
}

TEST_F(PtyhostDistrust, ProgramExitAndSignalCarryTheirOwnReason) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  Json exits = spawn(client, ws, {"/bin/sh", "-c", "exit 3"});
  Json killed = client.call("pane.split", {{"pane_id", exits["id"]}, {"argv", {"cat"}}})["pane"];
  ASSERT_TRUE(wait_until([&] { return get_pane(client, exits["id"])["live"]["state"] == "exited"; }));
  Json a = get_pane(client, exits["id"]);
  EXPECT_EQ(a["exit_code"], 3);
  EXPECT_EQ(a["exit_reason"], "exited");
  client.call("pane.signal", {{"pane_id", killed["id"]}, {"signal", "KILL"}});
  ASSERT_TRUE(wait_until([&] { return get_pane(client, killed["id"])["live"]["state"] == "exited"; }));
  Json b = get_pane(client, killed["id"]);
  EXPECT_EQ(b["exit_signal"], "KILL");
  EXPECT_EQ(b["exit_reason"], "signaled");
}

// docs/rules.md, decision 26: a program setting its title in a tight loop reaches the
// journal about once a second, and the last title it set is the pane's.
TEST_F(PtyhostDistrust, TitleLoopIsCoalescedBeforeTheJournal) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const auto count_updates = [&](const std::string& id) {
    std::size_t n = 0;
    for (const Json& r : read_journal(dirs_.state_dir()).records)
      if (r.value("event", "") == "pane.updated" && r["payload"]["pane"]["id"] == id) ++n;
    return n;
  };
  const auto started = std::chrono::steady_clock::now();
  Json pane = spawn(client, ws, {"/bin/sh", "-c",
                                 "i=0; while [ $i -lt 30000 ]; do printf '\033]0;t%d\007' $i; "
                                 "i=$((i+1)); done; printf '\033]0;final-title\007'; exec cat"});
  const std::string id = pane["id"];
  const std::size_t before = count_updates(id);
  ASSERT_TRUE(wait_until([&] { return get_pane(client, id)["title"] == "final-title"; },
                         deadline_after(std::chrono::seconds(60))));
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - started).count();
  const std::size_t titles = count_updates(id) - before;
  EXPECT_LE(titles, static_cast<std::size_t>(seconds) + 2)
      << titles << " title records in about " << seconds << " s";
  EXPECT_GE(titles, 1u);
}

// A pane's own output can never make a read the broker rejects: 6000 wide
// lines with a colour change per cell, read 5000 at a time with colours and
// without, and the pane is still linked afterwards.
TEST_F(PtyhostDistrust, ReadOfManyColourfulLinesWorksAndThePaneStaysLinked) {
  start();
  Client client = connect();
  const std::string awk =
      "awk 'BEGIN{for(n=0;n<6000;n++){s=\"\";for(c=0;c<120;c++)"
      "s=s sprintf(\"\033[38;2;%d;%d;7m\033[48;2;%d;3;%dmX\",c,n%256,255-c,n%256);print s}"
      "print \"colour-done\"}'; exec cat";
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", awk},
                    {{"cols", 120}, {"rows", 40}});
  const std::string id = pane["id"];
  wait_output(client, id, "colour-done", Json::object(), std::chrono::seconds(60));
  for (bool strip : {false, true}) {
    Json read = client.call("pane.read", {{"pane_id", id}, {"mode", "tail"}, {"lines", 5000},
                                          {"strip_ansi", strip}});
    const std::string text = read["text"];
    EXPECT_NE(text.find("colour-done"), std::string::npos) << "strip_ansi " << strip;
    EXPECT_LT(text.size(), std::size_t{16} << 20);
    Json rendered = client.call("pane.read", {{"pane_id", id}, {"mode", "rendered"},
                                              {"lines", 5000}, {"strip_ansi", strip}});
    EXPECT_NE(rendered["text"].get<std::string>().find("colour-done"), std::string::npos);
  }
  Json now = get_pane(client, id);
  EXPECT_EQ(now["live"]["state"], "live") << now.dump();
  EXPECT_FALSE(now["ptyhost_pid"].is_null()) << now.dump();
  input(client, id, "still-linked\n");
  wait_output(client, id, "still-linked");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
