// tests/integration/audit_test.cpp: `signaltty audit` against the journal a
// real broker writes: verify and head while it runs, the reader and its
// follow mode picking up a change as it is journaled, an anchor proved after
// a clean shutdown, and an edited record caught.
// Runs in: the integration test binary.
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using AuditReview = BrokerTest;

// `signaltty audit` exit statuses (docs/cli.md, Audit journal).
constexpr int kExitTampered = 6;
// How often a follower's output file is looked at: it has no change feed.
constexpr std::chrono::milliseconds kPollInterval{20};

RunResult audit(const TempDirs& dirs, std::vector<std::string> args) {
  args.insert(args.begin(), {program_path("signaltty"), "audit"});
  return run_program(dirs, std::move(args), base_env(dirs));
}

// Polls `path` until it holds `needle` or the deadline passes.
bool file_gets(const std::string& path, const std::string& needle, Deadline deadline) {
  while (Clock::now() < deadline) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(kPollInterval);
  }
  return false;
}

TEST_F(AuditReview, ReviewerVerifiesFollowsAnchorsAndCatchesAnEdit) {
  start();
  Client client = connect();
  const std::string ws = client.call("workspace.create", {{"name", "review"}})["workspace"]["id"];
  client.call("workspace.rename", {{"workspace_id", ws}, {"name", "renamed"}});

  RunResult verified = audit(dirs_, {"verify"});
  EXPECT_EQ(verified.status.code, 0) << verified.out << verified.err;
  EXPECT_EQ(verified.out.rfind("OK: ", 0), 0u) << verified.out;

  RunResult shown = audit(dirs_, {"show", "--workspace", ws});
  EXPECT_EQ(shown.status.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("workspace.created"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("workspace.updated"), std::string::npos) << shown.out;

  const std::string follow_out = dirs_.scratch("follow.out");
  {
    ChildProcess follower(SpawnSpec{{program_path("signaltty"), "audit", "tail", "-f", "--json",
                                     "--event", "workspace.*"},
                                    base_env(dirs_), follow_out, dirs_.scratch("follow.err")});
    ASSERT_TRUE(file_gets(follow_out, "renamed", deadline_after())) << "the last records first";
    client.call("workspace.rename", {{"workspace_id", ws}, {"name", "followed"}});
    EXPECT_TRUE(file_gets(follow_out, "followed", deadline_after())) << "then each new one";
  }

  RunResult head = audit(dirs_, {"head"});
  ASSERT_EQ(head.status.code, 0) << head.err;
  const std::string anchor = head.out.substr(0, head.out.find('\n'));
  client.call("workspace.rename", {{"workspace_id", ws}, {"name", "after-anchor"}});
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  RunResult extended = audit(dirs_, {"verify", "--anchor", anchor});
  EXPECT_EQ(extended.status.code, 0) << extended.out << extended.err;
  EXPECT_NE(extended.out.find("extends the anchor"), std::string::npos) << extended.out;

  const std::string journal = dirs_.state_file("audit.jsonl");
  std::string text = read_text_file(journal);
  const auto at = text.find("\"renamed\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "\"RENAMED\"");
  write_text_file(journal, text);
  RunResult tampered = audit(dirs_, {"verify"});
  EXPECT_EQ(tampered.status.code, kExitTampered) << tampered.out << tampered.err;
  EXPECT_EQ(tampered.out.rfind("TAMPERED at seq ", 0), 0u) << tampered.out;
}

// An OpenSSL configuration in the environment, here one that makes every
// digest fail (it activates a provider module that does not exist), changes
// nothing: the broker and `signaltty audit` never read one.
TEST_F(AuditReview, AnOpensslConfigInTheEnvironmentIsNeverRead) {
  const std::string conf = dirs_.scratch("openssl.cnf");
  write_text_file(conf,
                  "openssl_conf = init\nconfig_diagnostics = 1\n[init]\nproviders = providers\n"
                  "[providers]\nmissing = missing\n[missing]\nmodule = " +
                      dirs_.scratch("no-such-module.so") + "\nactivate = 1\n");
  start(BrokerOptions{.env = {"OPENSSL_CONF=" + conf}});
  Client client = connect();
  const Json created = client.request("workspace.create", {{"name", "conf"}});
  ASSERT_TRUE(is_ok(created)) << created.dump() << broker().stderr_text();
  const std::string ws = created["result"]["workspace"]["id"];
  // A pane's token is an HMAC under the broker's key.
  const Json pane = client.call("pane.spawn", {{"workspace_id", ws}, {"argv", {"cat"}}})["pane"];
  EXPECT_TRUE(pane.contains("id")) << pane.dump();

  std::vector<std::string> env = base_env(dirs_);
  env.push_back("OPENSSL_CONF=" + conf);
  RunResult verified = run_program(dirs_, {program_path("signaltty"), "audit", "verify"}, env);
  EXPECT_EQ(verified.status.code, 0) << verified.out << verified.err;
  EXPECT_EQ(verified.out.rfind("OK: ", 0), 0u) << verified.out;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
