// tests/common/integrations/opencode_plugin_test.cpp: the generated OpenCode
// plugin loaded by node as an ES module (default and named export), fed
// OpenCode events, with a fake relay that records its arguments and stdin:
// which events reach the relay and with what payload, and that nothing
// runs without SIGNALTTY_PANE or when the relay fails.
#include "common/integrations/opencode_plugin.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/common/integrations/temp_home.hpp"

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::slurp;
using testing::spit;
using testing::TempHome;

// node from PATH (Debian package nodejs; ./packaging/dev.sh installs it).
std::optional<std::string> find_node() {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin:/bin";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    for (const char* name : {"node", "nodejs"}) {
      const std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

// node <script> with only `env`; its exit status (stderr goes to `log`).
int run_node(const std::string& node, const std::string& script, const std::vector<std::string>& env,
             const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(err, STDERR_FILENO);
    std::vector<char*> envp;
    std::vector<std::string> copy = env;
    for (auto& e : copy) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string program = node, arg = script;
    char* argv[] = {program.data(), arg.data(), nullptr};
    ::execve(program.c_str(), argv, envp.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

constexpr const char* kDriver = R"JS(
import plugin, { SignalttyPlugin } from "./plugins/signaltty.js";
if (plugin !== SignalttyPlugin) throw new Error("the default export is not SignalttyPlugin");
const hooks = await plugin({ directory: process.cwd() });
const events = [
  { type: "session.created", properties: { info: { id: "ses_1", title: "t" } } },
  { type: "session.status", properties: { sessionID: "ses_1", status: { type: "busy" } } },
  { type: "session.status", properties: { sessionID: "ses_1", status: { type: "retry", attempt: 1 } } },
  { type: "message.part.updated", properties: { sessionID: "ses_1" } },
  { type: "session.status", properties: { sessionId: "ses_1", status: "idle" } },
  { type: "session.idle", properties: { session_id: "ses_1" } },
  { type: "session.error", properties: { sessionID: "ses_1",
      error: { name: "APIError", message: "outer", data: { message: "rate limited" } } } },
  { type: "session.execution.failed", sessionID: "ses_2", properties: { error: { message: "boom" } } },
  { type: "session.error", properties: {} },
];
for (const event of events) await hooks.event({ event });
await hooks.event({});
)JS";

const std::string kPathVar = "PATH=/usr/bin:/bin";

class OpencodeShim : public ::testing::Test {
 protected:
  void SetUp() override {
    auto found = find_node();
    ASSERT_TRUE(found.has_value())
        << "node is required for this test (Debian package nodejs; ./packaging/dev.sh installs it)";
    node = *found;
    spit(home / "bin/signaltty-hookrelay",
         "#!/bin/sh\n{ printf '%s ' \"$@\"; printf '| '; cat; printf '\\n'; } >> '" + log + "'\n" +
             "exit \"${FAKE_RELAY_STATUS:-0}\"\n");
    ::chmod((home / "bin/signaltty-hookrelay").c_str(), 0755);
    auto text = opencode_plugin_text(home / "bin/signaltty-hookrelay");
    ASSERT_TRUE(text.ok());
    spit(home / "plugins/signaltty.js", *text);
    // Lets node of any version load the plugin's `import` syntax as ESM.
    spit(home / "plugins/package.json", "{\"type\": \"module\"}\n");
    spit(home / "driver.mjs", kDriver);
  }
  int drive(std::vector<std::string> env) {
    env.insert(env.begin(), kPathVar);
    return run_node(node, home / "driver.mjs", env, home / "node.err");
  }

  TempHome home;
  std::string node;
  std::string log = home / "relay.log";
};

TEST_F(OpencodeShim, ForwardsSessionEventsToTheRelayWithTheirPayloads) {
  ASSERT_EQ(drive({"SIGNALTTY_PANE=pane_1"}), 0) << slurp(home / "node.err");
  EXPECT_EQ(slurp(log),
            "--agent opencode --event session.created | {\"session_id\":\"ses_1\"}\n"
            "--agent opencode --event session.status | {\"session_id\":\"ses_1\",\"status\":\"busy\"}\n"
            "--agent opencode --event session.status | {\"session_id\":\"ses_1\",\"status\":\"idle\"}\n"
            "--agent opencode --event session.idle | {\"session_id\":\"ses_1\"}\n"
            "--agent opencode --event session.error | {\"session_id\":\"ses_1\",\"message\":\"rate limited\"}\n"
            "--agent opencode --event session.error | {\"session_id\":\"ses_2\",\"message\":\"boom\"}\n"
            "--agent opencode --event session.error | {\"message\":\"session error\"}\n");
}

TEST_F(OpencodeShim, DoesNothingOutsideASignalttyPane) {
  ASSERT_EQ(drive({}), 0) << slurp(home / "node.err");
  EXPECT_FALSE(std::filesystem::exists(log));
}

TEST_F(OpencodeShim, SwallowsAFailingRelay) {
  ASSERT_EQ(drive({"SIGNALTTY_PANE=pane_1", "FAKE_RELAY_STATUS=1"}), 0) << slurp(home / "node.err");
  EXPECT_NE(slurp(log).find("session.created"), std::string::npos);
}

TEST_F(OpencodeShim, SwallowsAMissingRelay) {
  std::filesystem::remove(home / "bin/signaltty-hookrelay");
  EXPECT_EQ(drive({"SIGNALTTY_PANE=pane_1"}), 0) << slurp(home / "node.err");
}

TEST(OpencodePluginText, StartsWithTheHeaderAndNamesTheRelay) {
  auto text = opencode_plugin_text("/opt/st/bin/signaltty-hookrelay");
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(is_our_opencode_plugin(*text));
  EXPECT_NE(text->find("const RELAY = \"/opt/st/bin/signaltty-hookrelay\";"), std::string::npos);
  EXPECT_NE(text->find("const TIMEOUT_MS = 8000;"), std::string::npos);
  EXPECT_FALSE(is_our_opencode_plugin("// my plugin\n"));
  EXPECT_FALSE(opencode_plugin_text("relative/relay").ok());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
