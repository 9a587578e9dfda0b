// tests/integration/pane_resume_test.cpp: a pane whose terminal is gone
// (its ptyhost died with the broker down) comes back RESUMABLE with its
// agent's resume command; pane.resume starts that command in the same pane
// id (a new process instance, lifecycle unknown), and a workspace with
// auto_resume does it at broker start (docs/rules.md "Resume", decision 5).
// Runs in: the integration test binary.
#include <sys/stat.h>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

class PaneResume : public PaneTest {
 protected:
  // A stand-in `claude` that prints its arguments and stays.
  std::string fake_claude() {
    const std::string dir = dirs_.scratch("agent-bin");
    ::mkdir(dir.c_str(), 0700);
    const std::string path = dir + "/claude";
    write_text_file(path, "#!/bin/sh\necho \"started: $*\"\nexec cat\n");
    ::chmod(path.c_str(), 0700);
    return path;
  }

  // A pane running the stand-in with a recorded session, whose ptyhost is
  // then killed while no broker runs; the broker restarted.
  std::string resumable_pane(bool auto_resume, std::string& claude) {
    start();
    Client client = connect();
    claude = fake_claude();
    const std::string ws = client.call("workspace.create", {{"name", "w"},
                                                            {"cwd", dirs_.home()},
                                                            {"auto_resume", auto_resume}})["workspace"]["id"];
    const Json pane = spawn(client, ws, {claude});
    client.call("report-session", {{"pane_id", pane["id"]}, {"agent_session_id", "sess-9"}});
    const Json recorded = get_pane(client, pane["id"]);
    EXPECT_EQ(recorded["agent"]["resume_argv"], Json::array({claude, "--resume", "sess-9"}));
    broker().sigkill();
    EXPECT_TRUE(broker().wait_exit(deadline_after()).has_value());
    const pid_t ptyhost = recorded["ptyhost_pid"].get<pid_t>();
    ::kill(ptyhost, SIGKILL);
    EXPECT_TRUE(wait_gone(ptyhost));
    start();
    return pane["id"];
  }
};

TEST_F(PaneResume, ARestoredAgentPaneResumesItsSessionInTheSamePane) {
  std::string claude;
  const std::string id = resumable_pane(false, claude);
  Client client = connect();
  const Json restored = get_pane(client, id);
  EXPECT_EQ(restored["restore_state"], "RESUMABLE");
  const std::string before = restored["process_instance"];
  const Json baseline = client.call("pane.get", {{"pane_id", id}})["wait_baseline"];

  const Json resumed = client.call("pane.resume", {{"pane_id", id}})["pane"];
  EXPECT_EQ(resumed["id"], id);
  EXPECT_EQ(resumed["restore_state"], "LIVE");
  EXPECT_EQ(resumed["live"]["state"], "live");
  EXPECT_EQ(resumed["lifecycle"], "unknown");
  EXPECT_NE(resumed["process_instance"], before);
  wait_output(client, id, "started: --resume sess-9");
  EXPECT_EQ(client.call_error("wait", {{"pane_id", id}, {"until", "done"}, {"after", baseline}})["code"],
            "IDENTITY_CHANGED");
  // Live now: a second resume is refused.
  EXPECT_EQ(client.call_error("pane.resume", {{"pane_id", id}})["code"], "BAD_PARAMS");
}

TEST_F(PaneResume, AutoResumeWorkspacesResumeTheirAgentPanesAtStart) {
  std::string claude;
  const std::string id = resumable_pane(true, claude);
  Client client = connect();
  EXPECT_TRUE(wait_until([&] { return get_pane(client, id)["restore_state"] == "LIVE"; }));
  wait_output(client, id, "started: --resume sess-9");
}

TEST_F(PaneResume, APaneWithoutAResumeCommandOrStillRunningIsNotResumed) {
  start();
  Client client = connect();
  const std::string id = spawn(client, make_workspace(client)["id"], {"cat"})["id"];
  EXPECT_EQ(client.call_error("pane.resume", {{"pane_id", id}})["code"], "BAD_PARAMS");
  EXPECT_EQ(client.call_error("pane.resume", {{"pane_id", "pane_nope"}})["code"], "NO_SUCH_PANE");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
