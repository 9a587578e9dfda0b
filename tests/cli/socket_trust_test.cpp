// tests/cli/socket_trust_test.cpp: the CLI sends nothing to a socket whose
// directory is not ours and private, or whose listener runs as another
// uid, and says so with its own exit status. Each case breaks one rule
// alone: the directory's mode, the directory's owner (root only), the
// listener's uid (root only, the fake broker runs under setpriv).
#include "cli/socket_trust.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <sstream>

#include "cli/app.hpp"
#include "cli/client.hpp"
#include "cli/exit_codes.hpp"
#include "tests/cli/cli_runner.hpp"

extern char** environ;

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::FakeBroker;
using testing::FakeConnection;
using testing::Outcome;
using testing::run;
using Clock = std::chrono::steady_clock;

constexpr uid_t kOtherUid = 65534;
constexpr const char* kSetpriv = "/usr/bin/setpriv";
constexpr std::chrono::seconds kReportTimeout{20};

// A fake broker of our own uid that records every byte it is sent.
struct RecordingBroker {
  std::string received;
  bool connected = false;
  FakeBroker broker;
  RecordingBroker()
      : broker([this](FakeConnection& conn) {
          received = conn.read_until_eof();
          connected = true;
        }) {}
  // What the "broker" got once the client is done (joins its thread).
  std::string bytes_received() {
    broker.join();
    return received;
  }
};

void expect_refused(const Result<Client>& client) {
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, ErrorCode::Forbidden) << client.error().message;
  EXPECT_TRUE(is_untrusted_socket(client.error())) << client.error().message;
  EXPECT_EQ(exit_code_for(client.error()), kExitUntrustedSocket);
}

TEST(SocketTrust, PrivateDirectoryAndABrokerOfOurOwnUidAreTrusted) {
  FakeBroker broker([](FakeConnection& conn) { conn.read_until_eof(); });
  auto client = Client::connect(broker.path(), ::getuid());
  EXPECT_TRUE(client.ok()) << client.error().message;
}

TEST(SocketTrust, DirectoryOpenToGroupOrOthersIsRefusedBeforeAnyByte) {
  for (mode_t mode : {0750, 0705, 0701, 0755}) {
    RecordingBroker fake;
    ASSERT_EQ(::chmod(fake.broker.dir().c_str(), mode), 0);
    auto client = Client::connect(fake.broker.path(), ::getuid());
    expect_refused(client);
    if (!client.ok()) {
      EXPECT_NE(client.error().message.find("0700"), std::string::npos);
    }
    EXPECT_EQ(fake.bytes_received(), "") << std::oct << mode;
  }
}

TEST(SocketTrust, DirectoryOwnedByAnotherUserIsRefusedBeforeAnyByte) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another uid";
  RecordingBroker fake;  // listens as us (root); only the directory's owner is wrong
  ASSERT_EQ(::chown(fake.broker.dir().c_str(), kOtherUid, kOtherUid), 0);
  auto client = Client::connect(fake.broker.path(), ::getuid());
  expect_refused(client);
  if (!client.ok()) {
    EXPECT_NE(client.error().message.find("uid " + std::to_string(kOtherUid)), std::string::npos);
  }
  EXPECT_EQ(fake.bytes_received(), "");
}

TEST(SocketTrust, SignalttySocketIntoAnOpenDirectoryIsStatusFiveSayingWhy) {
  RecordingBroker fake;
  ASSERT_EQ(::chmod(fake.broker.dir().c_str(), 0755), 0);
  Outcome r = run({"status"}, {{"SIGNALTTY_SOCKET", fake.broker.path()}});
  EXPECT_EQ(r.status, kExitUntrustedSocket) << r.err;
  EXPECT_EQ(r.err.rfind("error: FORBIDDEN: refusing to use the broker socket " +
                            fake.broker.path(), 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("nothing was sent"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(fake.bytes_received(), "");
}

TEST(SocketTrust, AttachAndNewRefuseAnOpenDirectoryToo) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"attach", "p1"}, std::vector<std::string>{"new", "--no-attach"},
        std::vector<std::string>{"pane", "list"}, std::vector<std::string>{"events"}}) {
    RecordingBroker fake;
    ASSERT_EQ(::chmod(fake.broker.dir().c_str(), 0755), 0);
    args.insert(args.end(), {"--socket", fake.broker.path()});
    Outcome r = run(args);
    EXPECT_EQ(r.status, kExitUntrustedSocket) << args[0] << ": " << r.err;
    EXPECT_EQ(fake.bytes_received(), "") << args[0];
  }
}

TEST(SocketTrust, MissingSocketIsStillBrokerNotRunningWhereverItWouldBe) {
  // "/" is not ours (or not private): with nothing listening there is
  // nothing to trust, and the answer stays "not running".
  Outcome r = run({"status"}, {{"SIGNALTTY_SOCKET", "/nonexistent-signaltty.sock"}});
  EXPECT_EQ(r.status, kExitBrokerNotRunning) << r.err;
}

// ---- a broker of another uid, in a directory that is ours and private -----

// The fake broker of tests/cli/foreign_broker.cpp, run as kOtherUid under
// setpriv. We bind its socket in our 0700 directory and hand it the bound
// fd; it calls listen(), so SO_PEERCRED reports kOtherUid.
class ForeignBroker {
 public:
  ForeignBroker() {
    char dir_template[] = "/tmp/signaltty-cli-foreign-XXXXXX";
    dir_ = ::mkdtemp(dir_template);
    path_ = dir_ + "/signaltty.sock";
    UniqueFd bound(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    if (::bind(bound.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) return;
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return;
    report_.reset(report[0]);
    UniqueFd report_write(report[1]);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, bound.get(), 3);
    posix_spawn_file_actions_adddup2(&actions, report_write.get(), STDOUT_FILENO);
    const char* argv[] = {kSetpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                          SIGNALTTY_FOREIGN_BROKER, nullptr};
    if (posix_spawn(&pid_, kSetpriv, &actions, nullptr, const_cast<char**>(argv), environ) != 0)
      pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ForeignBroker(const ForeignBroker&) = delete;
  ForeignBroker& operator=(const ForeignBroker&) = delete;
  ~ForeignBroker() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }

  const std::string& path() const { return path_; }

  // The next line the fake broker reports ("listening", then the byte
  // count once the client hung up); nullopt if none came in time.
  std::optional<std::string> next_report() {
    const auto deadline = Clock::now() + kReportTimeout;
    std::string line;
    while (Clock::now() < deadline) {
      pollfd pfd{report_.get(), POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      char c;
      if (::read(report_.get(), &c, 1) != 1) return std::nullopt;
      if (c == '\n') return line;
      line.push_back(c);
    }
    return std::nullopt;
  }

 private:
  std::string dir_;
  std::string path_;
  UniqueFd report_;
  pid_t pid_ = -1;
};

// GTEST_SKIP returns from the test body, so this is a macro.
#define SKIP_UNLESS_ROOT_WITH_SETPRIV()                                                  \
  do {                                                                                   \
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a broker as another uid";  \
    if (::access(kSetpriv, X_OK) != 0) GTEST_SKIP() << "setpriv is not installed";      \
  } while (0)

TEST(SocketTrust, BrokerRunningAsAnotherUserIsRefusedBeforeAnyByte) {
  SKIP_UNLESS_ROOT_WITH_SETPRIV();
  ForeignBroker fake;
  ASSERT_EQ(fake.next_report(), "listening");
  auto client = Client::connect(fake.path(), ::getuid());
  expect_refused(client);
  if (!client.ok()) {
    EXPECT_NE(client.error().message.find("runs as uid " + std::to_string(kOtherUid)),
              std::string::npos)
        << client.error().message;
  }
  { auto drop = std::move(client); }  // hang up
  EXPECT_EQ(fake.next_report(), "0");
}

TEST(SocketTrust, AttachToABrokerOfAnotherUserSendsNoKeystroke) {
  SKIP_UNLESS_ROOT_WITH_SETPRIV();
  ForeignBroker fake;
  ASSERT_EQ(fake.next_report(), "listening");
  Outcome r = run({"attach", "p1"}, {{"SIGNALTTY_SOCKET", fake.path()}});
  EXPECT_EQ(r.status, kExitUntrustedSocket) << r.err;
  EXPECT_EQ(fake.next_report(), "0");
}

TEST(SocketTrust, StatusFromABrokerOfAnotherUserIsNeverPrinted) {
  SKIP_UNLESS_ROOT_WITH_SETPRIV();
  ForeignBroker fake;
  ASSERT_EQ(fake.next_report(), "listening");
  Outcome r = run({"status"}, {{"SIGNALTTY_SOCKET", fake.path()}});
  EXPECT_EQ(r.status, kExitUntrustedSocket) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(fake.next_report(), "0");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
