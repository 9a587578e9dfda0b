// tests/integration/attach_tmux_test.cpp: the interactive client for real.
// A tmux server on its own socket runs a plain outer shell; the test types
// `signaltty new` into it, reads the screen with capture-pane, resizes the
// tmux window, detaches with Ctrl-\ d, checks the outer shell got its
// terminal back exactly as it was (stty -g), and reattaches to find the
// earlier output replayed from the snapshot.
// Runs in: the integration test binary. Skipped when tmux is not installed.
// Never: touches a tmux server but its own (-L, TMUX_TMPDIR in the test's
// temporary tree), or waits without a deadline.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// How often the screen is captured while waiting for text on it.
constexpr std::chrono::milliseconds kCaptureInterval{50};
// Interactive steps: a shell starting in a pane, output crossing two hops.
constexpr std::chrono::seconds kScreenTimeout{20};
constexpr int kStartCols = 100, kStartRows = 30;
constexpr int kResizedCols = 120, kResizedRows = 40;
// The shells' PS1; capture-pane drops trailing blanks, so the screen is
// searched for the prompts without their final space.
constexpr std::string_view kOuterPs1 = "outer$ ";
constexpr std::string_view kInnerPs1 = "inner$ ";
constexpr std::string_view kOuterPrompt = kOuterPs1.substr(0, kOuterPs1.size() - 1);
constexpr std::string_view kInnerPrompt = kInnerPs1.substr(0, kInnerPs1.size() - 1);
constexpr std::string_view kTmuxSession = "attach";

std::optional<std::string> find_on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + std::string(program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

std::string bin_dir() { return std::filesystem::path(program_path("signaltty")).parent_path(); }

class AttachInTmux : public PaneTest {
 protected:
  void SetUp() override {
    auto tmux = find_on_path("tmux");
    if (!tmux) GTEST_SKIP() << "tmux is not installed";
    tmux_ = *tmux;
    socket_name_ = "signaltty-attach-" + std::to_string(::getpid());
    const std::string tmux_dir = dirs_.scratch("tmux");
    ASSERT_EQ(::mkdir(tmux_dir.c_str(), 0700), 0);
    env_ = base_env(dirs_);
    for (auto& var : env_)
      if (var.starts_with("PATH=")) var = "PATH=" + bin_dir() + ":" + var.substr(5);
    env_.push_back("TMUX_TMPDIR=" + tmux_dir);
    env_.push_back("TERM=xterm-256color");
    env_.push_back("SHELL=/bin/sh");
  }

  // Our tmux server first, then (PaneTest) the ptyhosts and pane programs.
  void TearDown() override {
    if (!tmux_.empty() && started_) (void)tmux({"kill-server"});
    PaneTest::TearDown();
  }

  RunResult tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {tmux_, "-L", socket_name_});
    return run_program(dirs_, std::move(args), env_);
  }

  // tmux with a plain outer shell whose prompt the test can recognise.
  void start_tmux() {
    const std::string outer =
        "env PS1='" + std::string(kOuterPs1) + "' /bin/sh";
    RunResult r = tmux({"-f", "/dev/null", "new-session", "-d", "-s", std::string(kTmuxSession),
                        "-x", std::to_string(kStartCols), "-y", std::to_string(kStartRows), outer});
    ASSERT_EQ(r.status.code, 0) << r.err;
    started_ = true;
  }

  std::string screen() {
    RunResult r = tmux({"capture-pane", "-p", "-t", std::string(kTmuxSession)});
    return r.status.code == 0 ? r.out : std::string();
  }

  // Captures the screen until `found` says yes; the last capture either way.
  template <class Pred>
  std::string wait_screen(Pred found, std::string_view what) {
    const Deadline deadline = deadline_after(kScreenTimeout);
    std::string shown;
    for (;;) {
      shown = screen();
      if (found(shown)) return shown;
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(kCaptureInterval);  // polling tmux: it has no change feed
    }
    ADD_FAILURE() << "the screen never showed " << what << "; it shows:\n" << shown;
    return shown;
  }
  std::string wait_text(std::string_view text) {
    return wait_screen([&](const std::string& s) { return s.find(text) != std::string::npos; },
                       "'" + std::string(text) + "'");
  }

  void type(std::string_view text) {
    ASSERT_EQ(tmux({"send-keys", "-t", std::string(kTmuxSession), "-l", std::string(text)})
                  .status.code, 0);
  }
  void press_enter() {
    ASSERT_EQ(tmux({"send-keys", "-t", std::string(kTmuxSession), "Enter"}).status.code, 0);
  }
  void run_line(std::string_view line) {
    type(line);
    press_enter();
  }
  // Ctrl-\ then d, as raw bytes.
  void press_detach() {
    ASSERT_EQ(tmux({"send-keys", "-t", std::string(kTmuxSession), "-H", "1c", "64"}).status.code, 0);
  }

  // The one pane the broker holds (the test opens exactly one).
  Json only_pane() {
    Client client = connect();
    Json panes = Json::array();
    const Json listed = client.call("workspace.list");
    for (const Json& ws : listed["workspaces"]) {
      const Json got = client.call("workspace.get", {{"workspace_id", ws["id"]}});
      for (const Json& pane : got["panes"]) panes.push_back(pane);
    }
    if (panes.size() != 1) throw HarnessError("expected one pane, found " + panes.dump());
    return panes[0];
  }

  // Waits until pane.get reports the size.
  bool wait_pane_size(const std::string& pane_id, int cols, int rows) {
    Client client = connect();
    const Deadline deadline = deadline_after(kScreenTimeout);
    for (;;) {
      Json size = client.call("pane.get", {{"pane_id", pane_id}})["pane"]["pty_size"];
      if (size == Json({{"cols", cols}, {"rows", rows}})) return true;
      if (Clock::now() >= deadline) {
        ADD_FAILURE() << "pane size stayed " << size.dump();
        return false;
      }
      std::this_thread::sleep_for(kCaptureInterval);
    }
  }

  std::string tmux_;
  std::string socket_name_;
  std::vector<std::string> env_;
  bool started_ = false;
};

TEST_F(AttachInTmux, NewAttachesResizesDetachesRestoresTheTerminalAndReattaches) {
  start();
  env_.push_back("SIGNALTTY_SOCKET=" + broker().socket_path());
  start_tmux();
  wait_text(kOuterPrompt);
  const std::string before = dirs_.scratch("stty-before");
  const std::string after = dirs_.scratch("stty-after");
  run_line("stty -g > " + before + "; echo saved-$((1+1))");
  wait_text("saved-2\n");

  // A new workspace and shell pane, attached to tmux's terminal.
  run_line("signaltty new -- /usr/bin/env PS1='" + std::string(kInnerPs1) + "' /bin/sh");
  wait_screen([](const std::string& s) { return s.find(kInnerPrompt) != std::string::npos &&
                                                s.find(kOuterPrompt) == std::string::npos; },
              "the inner prompt on a cleared screen");
  const std::string pane_id = only_pane()["id"];
  EXPECT_TRUE(wait_pane_size(pane_id, kStartCols, kStartRows)) << "attach sent tmux's size";

  // Keys travel to the pane and its output comes back.
  run_line("echo hello-$((6*7))-attach");
  wait_text("hello-42-attach");

  // SIGWINCH → pane.resize.
  ASSERT_EQ(tmux({"resize-window", "-t", std::string(kTmuxSession), "-x",
                  std::to_string(kResizedCols), "-y", std::to_string(kResizedRows)})
                .status.code, 0);
  EXPECT_TRUE(wait_pane_size(pane_id, kResizedCols, kResizedRows));

  // Ctrl-\ d: the client detaches and the outer shell has its terminal back.
  press_detach();
  wait_text("[detached from " + pane_id + "]");
  run_line("echo status=$?; stty -g > " + after + "; echo saved-$((2+1))");
  std::string shown = wait_text("saved-3\n");
  EXPECT_NE(shown.find("status=0"), std::string::npos) << shown;
  EXPECT_EQ(read_text_file(after), read_text_file(before)) << "terminal settings restored";
  EXPECT_EQ(only_pane()["live"]["state"], "live") << "detaching leaves the pane running";

  // Reattach: the earlier output is replayed from the snapshot. The outer
  // screen is cleared first, and seen cleared, so the old text still on it
  // cannot pass for the replay.
  run_line("clear");
  wait_screen([](const std::string& s) { return s.find("hello-42-attach") == std::string::npos; },
              "the outer screen cleared");
  run_line("signaltty attach " + pane_id);
  shown = wait_text("hello-42-attach");
  EXPECT_EQ(shown.find(kOuterPrompt), std::string::npos) << shown;

  // The pane's shell exits: the client says so and returns 0.
  run_line("exit 5");
  shown = wait_text("[pane exited: code 5]");
  run_line("echo status=$?-$((3+4))");
  shown = wait_text("-7\n");
  EXPECT_NE(shown.find("status=0-7"), std::string::npos) << shown;
}

// The same commands without a terminal, as scripts use them: new
// --no-attach, pane send / wait-output / list / read / input, and attach
// to a pane whose program has exited (snapshot, then the exit note).
class AttachCommandsWithoutATerminal : public PaneTest {
 protected:
  bool exited(const std::string& pane_id) {
    Client client = connect();
    return get_pane(client, pane_id)["live"]["state"] == "exited";
  }
};

TEST_F(AttachCommandsWithoutATerminal, NewSendReadListInputThenAttachToTheExitedPane) {
  start();
  auto cli = [&](std::vector<std::string> args) {
    args.insert(args.begin(), program_path("signaltty"));
    std::vector<std::string> env = base_env(dirs_);
    env.push_back("SIGNALTTY_SOCKET=" + broker().socket_path());
    return run_program(dirs_, std::move(args), std::move(env), {}, deadline_after(kScreenTimeout));
  };
  RunResult created = cli({"new", "--no-attach", "--cwd", dirs_.home(), "--", "/bin/sh"});
  ASSERT_EQ(created.status.code, 0) << created.err;
  const std::string pane_id = created.out.substr(0, created.out.find('\n'));
  ASSERT_TRUE(pane_id.starts_with("pane_")) << created.out;

  RunResult sent = cli({"pane", "send", pane_id, "echo sent-$((6*7))", "--enter"});
  ASSERT_EQ(sent.status.code, 0) << sent.err;
  RunResult waited = cli({"pane", "wait-output", pane_id, "sent-42", "--timeout-s", "15"});
  ASSERT_EQ(waited.status.code, 0) << waited.err;
  EXPECT_EQ(waited.out, "sent-42\n");

  RunResult listed = cli({"pane", "list"});
  ASSERT_EQ(listed.status.code, 0) << listed.err;
  EXPECT_NE(listed.out.find(pane_id), std::string::npos) << listed.out;
  RunResult read = cli({"pane", "read", pane_id});
  EXPECT_NE(read.out.find("sent-42"), std::string::npos) << read.out;

  RunResult typed = cli({"pane", "input", pane_id, "exit 3\r"});
  ASSERT_EQ(typed.status.code, 0) << typed.err;
  ASSERT_TRUE(wait_until([&] { return exited(pane_id); }, deadline_after(kScreenTimeout)));

  RunResult attached = cli({"attach", pane_id});
  EXPECT_EQ(attached.status.code, 0) << attached.err;
  EXPECT_NE(attached.out.find("sent-42"), std::string::npos) << "the snapshot: " << attached.out;
  EXPECT_NE(attached.out.find("[pane exited: code 3]"), std::string::npos) << attached.out;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
