// tests/integration/screen_rules_test.cpp: detection without hooks, end to
// end (docs/rules.md "Detection without hooks"): every recorded Claude Code
// and Codex screen, replayed with its escape sequences into a real pane of
// the capture's size, classifies as its name says through the ptyhost's
// grid and the bundled rules; the recorded sequences move the lifecycle as
// a person would read them; an agent's prose quoting a permission question
// is not `blocked`; a spinner redrawn every 100 ms does not flap; a hooked
// process is left to its hooks; a program typed into a shell is recognised
// at once; manifests load, fail alone and reload.
// Runs in: the integration test binary. Prints the confusion table of the
// fixtures (expected against detected state).
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace stdfs = std::filesystem;

const std::string kFixtures = SIGNALTTY_AGENT_FIXTURES;
constexpr const char* kClaude = "claude-code-2.1.332";
constexpr const char* kCodex = "codex-0.171.0";

// What each capture shows, as its name and README say: the screen rule
// state, or "exited" where the program is gone.
struct Fixture {
  std::string capture;
  std::string name;
  std::string expected;   // working | blocked | idle | hold | exited
  std::string lifecycle;  // the lifecycle after this screen, in sequence
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all{
      {kClaude, "01-idle", "idle", "unknown"},
      {kClaude, "02-typed", "idle", "unknown"},
      {kClaude, "03-working", "working", "working"},
      {kClaude, "04-turn1-done", "idle", "done"},
      {kClaude, "05-idle-notified", "idle", "done"},
      {kClaude, "06-working-tool", "working", "working"},
      {kClaude, "07-permission-prompt", "blocked", "blocked"},
      {kClaude, "08-permission-notified", "blocked", "blocked"},
      {kClaude, "09-done", "idle", "idle"},
      {kClaude, "10-permission-prompt-2", "blocked", "blocked"},
      {kClaude, "11-denied", "idle", "idle"},
      {kClaude, "12-renamed", "idle", "idle"},
      {kClaude, "13-slash-exit", "idle", "idle"},
      {kClaude, "14-exited", "exited", "exited"},
      {kCodex, "01-folder-trust", "blocked", "blocked"},
      {kCodex, "02-hooks-review", "blocked", "blocked"},
      {kCodex, "03-idle", "idle", "idle"},
      {kCodex, "04-prompt-typed", "idle", "idle"},
      {kCodex, "05-working", "working", "working"},
      {kCodex, "06-turn1-done", "idle", "done"},
      {kCodex, "07-working-turn2", "working", "working"},
      {kCodex, "08-approval", "blocked", "blocked"},
      {kCodex, "09-approved-running", "working", "working"},
      {kCodex, "10-turn2-done", "idle", "done"},
      {kCodex, "10b-warning-1", "hold", "done"},
      {kCodex, "10b-warning-2", "hold", "done"},
      {kCodex, "11-exited", "exited", "exited"},
  };
  return all;
}

std::string agent_of(const std::string& capture) { return capture == kClaude ? "claude" : "codex"; }
std::string ansi_path(const Fixture& f) { return kFixtures + "/" + f.capture + "/" + f.name + ".ansi"; }

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// The last non-blank line of the capture's plain text: once the pane's
// screen shows it, the whole capture is drawn.
std::string last_line(const Fixture& f) {
  std::istringstream in(read_text_file(kFixtures + "/" + f.capture + "/" + f.name + ".txt"));
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!trimmed(line).empty()) last = trimmed(line);
  return last;
}

// Prints the capture (all but its final newline, so nothing scrolls).
std::string print_command(const std::string& path) { return "head -c -1 '" + path + "'"; }

class ScreenRules : public PaneTest {
 protected:
  std::string agents_dir() const { return dirs_.config_home() + "/signaltty/agents"; }

  Json spawn_printer(Client& client, const std::string& ws, const std::string& agent,
                     const std::string& script) {
    return spawn(client, ws, {"/bin/sh", "-c", script},
                 {{"agent_hint", agent}, {"cols", 120}, {"rows", 40}});
  }

  std::string screen(Client& client, const std::string& pane_id) {
    return client.call("pane.read", {{"pane_id", pane_id}, {"mode", "screen"}})["text"];
  }

  void wait_drawn(Client& client, const std::string& pane_id, const std::string& line) {
    const bool drawn = wait_until([&] { return screen(client, pane_id).find(line) != std::string::npos; });
    ASSERT_TRUE(drawn) << "never drew " << line << "; screen:\n" << screen(client, pane_id);
  }

  Json explain(Client& client, const std::string& pane_id) {
    return client.call("pane.explain", {{"pane_id", pane_id}});
  }

  // The state the bundled rules give the pane's screen now.
  std::string detected(Client& client, const std::string& pane_id) {
    const Json e = explain(client, pane_id);
    return e.contains("matched") ? e["matched"]["state"].get<std::string>() : "none";
  }

  bool wait_lifecycle(Client& client, const std::string& pane_id, const std::string& lifecycle,
                      Deadline deadline = deadline_after()) {
    return wait_until([&] { return get_pane(client, pane_id)["lifecycle"] == lifecycle; }, deadline);
  }
};

TEST_F(ScreenRules, EveryCaptureClassifiesThroughThePtyhostGrid) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  std::ostringstream table;
  table << "| capture | screen | expected | detected |\n|---|---|---|---|\n";
  int wrong = 0;
  for (const Fixture& f : fixtures()) {
    const bool exits = f.expected == "exited";
    const std::string script =
        print_command(ansi_path(f)) + (exits ? "" : "; exec sleep 1000");
    const std::string pane = spawn_printer(client, ws, agent_of(f.capture), script)["id"];
    std::string got;
    if (exits) {
      got = wait_lifecycle(client, pane, "exited") ? "exited" : get_pane(client, pane)["lifecycle"];
    } else {
      wait_drawn(client, pane, last_line(f));
      const Json e = explain(client, pane);
      EXPECT_TRUE(e["classifies"].get<bool>()) << f.name << ": " << e.dump();
      EXPECT_EQ(e["source"], "bundled") << f.name;
      got = detected(client, pane);
    }
    table << "| " << f.capture << " | " << f.name << " | " << f.expected << " | " << got << " |\n";
    if (got != f.expected) ++wrong;
    EXPECT_EQ(got, f.expected) << f.capture << "/" << f.name << "; screen:\n" << screen(client, pane);
    client.call("pane.close", {{"pane_id", pane}, {"signal", "KILL"}});
  }
  std::cout << "confusion table (fixture screens, bundled rules, real grid):\n"
            << table.str() << wrong << " wrong\n";
}

// One pane per capture replays its screens in order, each after a line on
// stdin: the lifecycle follows docs/rules.md's screen transitions.
TEST_F(ScreenRules, RecordedSequencesMoveTheLifecycle) {
  start();
  Client client = connect();
  std::ostringstream table;
  table << "| capture | after screen | expected lifecycle | detected |\n|---|---|---|---|\n";
  for (const std::string capture : {kClaude, kCodex}) {
    const std::string ws = make_workspace(client, agent_of(capture))["id"];
    std::string script;
    std::vector<Fixture> steps;
    for (const Fixture& f : fixtures())
      if (f.capture == capture) steps.push_back(f);
    for (const Fixture& f : steps)
      script += "read line; printf '\\033[H\\033[2J\\033[3J'; " + print_command(ansi_path(f)) + "; ";
    const std::string pane = spawn_printer(client, ws, agent_of(capture), script)["id"];
    for (const Fixture& f : steps) {
      input(client, pane, "\n");
      if (f.lifecycle != "exited") wait_drawn(client, pane, last_line(f));
      const bool reached = wait_lifecycle(client, pane, f.lifecycle);
      const Json now = get_pane(client, pane);
      table << "| " << capture << " | " << f.name << " | " << f.lifecycle << " | "
            << now["lifecycle"].get<std::string>() << " |\n";
      EXPECT_TRUE(reached) << capture << "/" << f.name << ": " << now.dump();
      if (f.lifecycle == "blocked") {
        EXPECT_EQ(now["attention"], "input_required") << f.name;
      }
    }
  }
  std::cout << "confusion table (recorded sequences):\n" << table.str();
}

// The false states users of other supervisors report most.
TEST_F(ScreenRules, ProseQuotingAPermissionQuestionIsNotBlocked) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  // Claude's idle screen after turn 1, its answer now quoting the dialog.
  std::string capture = read_text_file(kFixtures + "/" + kClaude + "/04-turn1-done.ansi");
  const std::string answer = "Hello from fake";
  const auto at = capture.find(answer);
  ASSERT_NE(at, std::string::npos);
  capture.replace(at, answer.size(), "Do you want to proceed? \xE2\x9D\xAF 1. Yes  2. No  Esc to cancel");
  const std::string path = dirs_.scratch("quoted.ansi");
  write_text_file(path, capture);
  const std::string pane =
      spawn_printer(client, ws, "claude", print_command(path) + "; exec sleep 1000")["id"];
  wait_drawn(client, pane, "Do you want to proceed?");
  EXPECT_EQ(detected(client, pane), "idle");
  // Three ticks later it is still not blocked.
  EXPECT_FALSE(wait_lifecycle(client, pane, "blocked", deadline_after(std::chrono::milliseconds(1500))));
  EXPECT_EQ(get_pane(client, pane)["attention"], "none");
}

// A working screen whose spinner and word change every 100 ms, for 4 s:
// one agent.working, nothing else, then done when the turn ends.
TEST_F(ScreenRules, ASpinnerRedrawnEvery100msDoesNotFlap) {
  start();
  Client client = connect();
  Client events = connect();
  events.call("subscribe", {{"events", {"agent.*"}}});
  const std::string ws = make_workspace(client)["id"];
  const std::string working = read_text_file(kFixtures + "/" + kClaude + "/03-working.ansi");
  const std::string frames_dir = dirs_.scratch("frames");
  ::mkdir(frames_dir.c_str(), 0700);
  // The spinner line as the capture draws it: glyph, colours, word.
  const std::string spinner_line = "\xC2\xB7\033[39m \033[38;5;174mPollinating";
  const std::vector<std::string> spinners = {"\xC2\xB7 Pollinating", "\xE2\x9C\xA2 Whisking",
                                             "\xE2\x9C\xB3 Cogitating", "\xE2\x9C\xB6 Pondering"};
  for (std::size_t i = 0; i < spinners.size(); ++i) {
    std::string frame = working;
    const auto at = frame.find(spinner_line);
    ASSERT_NE(at, std::string::npos);
    frame.replace(at, spinner_line.size(), spinners[i]);
    write_text_file(frames_dir + "/" + std::to_string(i), "\033[H\033[2J" + frame.substr(0, frame.size() - 1));
  }
  const std::string done = ansi_path({kClaude, "04-turn1-done", "", ""});
  const std::string script = "i=0; while [ $i -lt 40 ]; do cat '" + frames_dir +
                             "'/$((i % 4)); i=$((i+1)); sleep 0.1; done; printf '\\033[H\\033[2J'; " +
                             print_command(done) + "; exec sleep 1000";
  const std::string pane = spawn_printer(client, ws, "claude", script)["id"];
  ASSERT_TRUE(wait_lifecycle(client, pane, "done", deadline_after(std::chrono::seconds(15))));
  std::vector<std::string> seen;
  while (auto event = events.next_event(deadline_after(std::chrono::milliseconds(300)))) {
    if ((*event)["payload"].value("pane_id", "") != pane) continue;
    seen.push_back((*event)["event"].get<std::string>() + "/" +
                   (*event)["payload"].value("source", ""));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"agent.working/screen", "agent.done/screen"}));
}

// Hooks win: once the pane's process has sent one, its screen is not read.
TEST_F(ScreenRules, AHookedProcessIsLeftToItsHooks) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string pane = spawn_printer(
      client, ws, "claude",
      print_command(ansi_path({kClaude, "07-permission-prompt", "", ""})) + "; exec sleep 1000")["id"];
  ASSERT_TRUE(wait_lifecycle(client, pane, "blocked"));
  EXPECT_EQ(get_pane(client, pane)["attention"], "input_required");
  client.call("hook-event", {{"agent", "claude"}, {"event", "Stop"}, {"pane_id", pane},
                             {"payload", {{"session_id", "s-1"}}}});
  const Json after = get_pane(client, pane);
  EXPECT_EQ(after["lifecycle"], "done");
  EXPECT_NE(after["attention"], "input_required");  // the rule's raise is withdrawn
  const Json e = explain(client, pane);
  EXPECT_TRUE(e["hooked"].get<bool>());
  EXPECT_FALSE(e["classifies"].get<bool>());
  EXPECT_EQ(detected(client, pane), "blocked");  // the trace still reads the screen
  EXPECT_FALSE(wait_lifecycle(client, pane, "blocked", deadline_after(std::chrono::milliseconds(1500))));
}

// A program typed into a shell pane is named, promotes the generic pane and
// moves its cwd as soon as it takes the terminal, not 10 s later.
TEST_F(ScreenRules, AnAgentTypedIntoAShellIsRecognisedAtOnce) {
  start();
  Client client = connect();
  const std::string ws = make_workspace(client)["id"];
  const std::string bin = dirs_.scratch("bin");
  const std::string work = dirs_.scratch("work");
  ::mkdir(bin.c_str(), 0700);
  ::mkdir(work.c_str(), 0700);
  stdfs::copy_file("/bin/sleep", bin + "/codex");
  const std::string pane = spawn(client, ws, {"/bin/sh"})["id"];
  EXPECT_EQ(get_pane(client, pane)["agent"]["kind"], "generic");
  const auto typed = Clock::now();
  input(client, pane, "cd '" + work + "' && '" + bin + "/codex' 1000\n");
  ASSERT_TRUE(wait_until([&] { return get_pane(client, pane)["agent"]["kind"] == "codex"; },
                         deadline_after(std::chrono::seconds(12))));
  EXPECT_LT(Clock::now() - typed, std::chrono::seconds(5));  // on demand, not the 10 s tick
  const std::string real_work = stdfs::canonical(work).string();
  EXPECT_TRUE(wait_until([&] { return get_pane(client, pane)["cwd"] == real_work; }));
  const Json e = explain(client, pane);
  EXPECT_EQ(e["process"], "codex");
  EXPECT_EQ(e["kind"], "codex");
}

TEST_F(ScreenRules, ManifestsLoadFailAloneAndReload) {
  stdfs::create_directories(agents_dir());
  write_text_file(agents_dir() + "/mine.toml",
                  "[agent]\nkind = \"claude\"\n\n[[screen]]\nid = \"always\"\nstate = \"hold\"\n"
                  "regex = ['']\n");
  write_text_file(agents_dir() + "/broken.toml", "this is [not toml\n");
  start();
  Client client = connect();
  Json list = client.call("agents.list");
  ASSERT_EQ(list["manifests"].size(), 1u) << list.dump();
  EXPECT_EQ(list["manifests"][0]["kind"], "claude");
  EXPECT_EQ(list["manifests"][0]["screen_rules"], 1);
  ASSERT_EQ(list["failures"].size(), 1u);
  EXPECT_NE(list["failures"][0]["file"].get<std::string>().find("broken.toml"), std::string::npos);

  // User rules replace the bundled ones for claude panes.
  const std::string ws = make_workspace(client)["id"];
  const std::string pane = spawn_printer(
      client, ws, "claude",
      print_command(ansi_path({kClaude, "03-working", "", ""})) + "; exec sleep 1000")["id"];
  wait_drawn(client, pane, last_line({kClaude, "03-working", "", ""}));
  Json e = explain(client, pane);
  EXPECT_EQ(e["source"], "user");
  EXPECT_EQ(e["matched"]["id"], "always");

  // A reload swaps the whole set: the user file gone, the bundled rules back.
  stdfs::remove(agents_dir() + "/mine.toml");
  list = client.call("agents.reload");
  EXPECT_TRUE(list["manifests"].empty());
  e = explain(client, pane);
  EXPECT_EQ(e["source"], "bundled");
  EXPECT_EQ(e["matched"]["state"], "working");

  // A directory that cannot be listed keeps the active set.
  stdfs::remove_all(agents_dir());
  write_text_file(agents_dir(), "not a directory");
  EXPECT_EQ(client.call_error("agents.reload")["code"], "IO_ERROR");
  EXPECT_EQ(explain(client, pane)["source"], "bundled");
}

// Layer 5: a title set with OSC 2 feeds the same transitions, with the
// source `osc`; a BEL raises unread as ever.
TEST_F(ScreenRules, ATitleRuleMovesThePaneWithTheOscSource) {
  stdfs::create_directories(agents_dir());
  write_text_file(agents_dir() + "/titles.toml",
                  "[agent]\nkind = \"generic\"\nbinaries = [\"sh\", \"sleep\"]\n\n"
                  "[[screen]]\nid = \"spinner_title\"\nstate = \"working\"\nregion = \"title\"\n"
                  "regex = ['^\u2802 ']\n\n"
                  "[[screen]]\nid = \"idle_title\"\nstate = \"idle\"\nregion = \"title\"\n"
                  "regex = ['^\u2733 ']\n");
  start();
  Client client = connect();
  Client events = connect();
  events.call("subscribe", {{"events", {"agent.*"}}});
  const std::string ws = make_workspace(client)["id"];
  const std::string pane = spawn(
      client, ws,
      {"/bin/sh", "-c",
       "printf '\\033]2;\xE2\xA0\x82 fixing the tests\\007'; read line; "
       "printf '\\033]2;\xE2\x9C\xB3 my agent\\007\\007'; exec sleep 1000"})["id"];
  ASSERT_TRUE(wait_lifecycle(client, pane, "working"));
  input(client, pane, "\n");
  ASSERT_TRUE(wait_lifecycle(client, pane, "done"));
  EXPECT_EQ(get_pane(client, pane)["attention"], "unread");
  std::vector<std::string> seen;
  while (auto event = events.next_event(deadline_after(std::chrono::milliseconds(300)))) {
    if ((*event)["payload"].value("pane_id", "") != pane) continue;
    seen.push_back((*event)["event"].get<std::string>() + "/" +
                   (*event)["payload"].value("source", ""));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"agent.working/osc", "agent.done/osc"}));
  const Json e = explain(client, pane);
  EXPECT_EQ(e["source"], "user");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
