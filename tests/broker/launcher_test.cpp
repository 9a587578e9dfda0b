// tests/broker/launcher_test.cpp: the broker's launcher client matches each
// reply to its request by id without blocking the io thread, and the real
// launcher serves several launches in flight, each with its own ptyhost.
// Runs in: the broker unit tests (the last test forks a real launcher).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "broker/launcher.hpp"
#include "broker/launcher_process.hpp"
#include "common/ids.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Outcomes = std::map<std::string, Result<pid_t>>;

// A channel whose far end the test plays, as the launcher would.
struct FakeLauncher {
  UniqueFd ours;
  UniqueFd theirs;
  FakeLauncher() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    ours.reset(sv[0]);
    theirs.reset(sv[1]);
  }
  LaunchRequest next_request() {
    std::array<char, 256> buf{};
    const ssize_t n = ::recv(theirs.get(), buf.data(), buf.size(), 0);
    auto request = decode_launch_request(
        std::string_view(buf.data(), n > 0 ? static_cast<std::size_t>(n) : 0));
    EXPECT_TRUE(request.has_value());
    return request.value_or(LaunchRequest{});
  }
  void reply(const std::string& message) {
    ASSERT_GT(::send(theirs.get(), message.data(), message.size(), MSG_NOSIGNAL), 0);
  }
};

Launcher::LaunchDone record(Outcomes& outcomes, const std::string& pane_id) {
  return [&outcomes, pane_id](Result<pid_t> r) { outcomes.emplace(pane_id, std::move(r)); };
}

void run_until(boost::asio::io_context& io, const Outcomes& outcomes, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (outcomes.size() < count && io.run_one_until(deadline) > 0) {
  }
}

TEST(LauncherClient, RepliesArrivingOutOfOrderReachTheirOwnRequests) {
  boost::asio::io_context io;
  FakeLauncher fake;
  Launcher launcher(io, std::move(fake.ours), -1);
  Outcomes outcomes;
  const std::vector<std::string> panes = {new_id("pane"), new_id("pane"), new_id("pane")};
  for (const auto& id : panes) launcher.launch(id, record(outcomes, id));
  EXPECT_TRUE(outcomes.empty()) << "launch() returns before any answer";

  std::map<std::string, std::uint64_t> request_ids;
  for (std::size_t i = 0; i < panes.size(); ++i) {
    LaunchRequest r = fake.next_request();
    request_ids[r.pane_id] = r.id;
  }
  fake.reply(std::to_string(request_ids[panes[2]]) + " ok 3003");
  fake.reply("999 ok 4242");  // nobody asked: dropped
  fake.reply(std::to_string(request_ids[panes[0]]) + " ok 1001");
  fake.reply(std::to_string(request_ids[panes[1]]) + " err 2 execve failed");
  run_until(io, outcomes, panes.size());

  ASSERT_EQ(outcomes.size(), panes.size());
  ASSERT_TRUE(outcomes.at(panes[0]).ok());
  EXPECT_EQ(*outcomes.at(panes[0]), 1001);
  ASSERT_TRUE(outcomes.at(panes[2]).ok());
  EXPECT_EQ(*outcomes.at(panes[2]), 3003);
  ASSERT_FALSE(outcomes.at(panes[1]).ok());
  EXPECT_EQ(outcomes.at(panes[1]).error().code, ErrorCode::SpawnFailed);
}

TEST(LauncherClient, LauncherGoneFailsEveryPendingLaunch) {
  boost::asio::io_context io;
  FakeLauncher fake;
  Launcher launcher(io, std::move(fake.ours), -1);
  Outcomes outcomes;
  const std::string a = new_id("pane");
  const std::string b = new_id("pane");
  launcher.launch(a, record(outcomes, a));
  launcher.launch(b, record(outcomes, b));
  fake.theirs.reset();
  run_until(io, outcomes, 2);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes.at(a).error().code, ErrorCode::SpawnFailed);
  EXPECT_EQ(outcomes.at(b).error().code, ErrorCode::SpawnFailed);
}

TEST(LauncherClient, ALauncherLostWhileIdleIsNoticedAndLaterLaunchesFailAtOnce) {
  boost::asio::io_context io;
  FakeLauncher fake;
  Launcher launcher(io, std::move(fake.ours), -1);
  fake.theirs.reset();  // dies with nothing pending
  // Noticed without a request: the loop has the EOF to handle.
  EXPECT_GT(io.run_one_for(std::chrono::seconds(5)), 0u);
  io.restart();  // out of work once the EOF was handled
  Outcomes outcomes;
  const std::string a = new_id("pane");
  launcher.launch(a, record(outcomes, a));
  run_until(io, outcomes, 1);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes.at(a).error().code, ErrorCode::SpawnFailed);
  EXPECT_NE(outcomes.at(a).error().message.find("restart the broker"), std::string::npos)
      << outcomes.at(a).error().message;
}

// A stand-in for signaltty-ptyhost that stays up, its argv visible in
// /proc/<pid>/cmdline.
std::string write_stand_in(const std::string& dir) {
  const std::string path = dir + "/stand-in-ptyhost";
  std::ofstream(path) << "#!/bin/sh\nsleep 30\n";
  ::chmod(path.c_str(), 0700);
  return path;
}

std::string cmdline_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(Launcher, ConcurrentLaunchesEachStartTheirOwnPtyhost) {
  char tmpl[] = "/tmp/sigtty-launcher-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  boost::asio::io_context io;
  auto launcher = Launcher::start(io, {write_stand_in(dir), dir, dir + "/broker.sock", {}});
  ASSERT_TRUE(launcher.ok()) << launcher.error().message;
  Outcomes outcomes;
  std::vector<std::string> panes;
  for (int i = 0; i < 4; ++i) panes.push_back(new_id("pane"));
  for (const auto& id : panes) (*launcher)->launch(id, record(outcomes, id));
  run_until(io, outcomes, panes.size());

  ASSERT_EQ(outcomes.size(), panes.size());
  for (const auto& id : panes) {
    ASSERT_TRUE(outcomes.at(id).ok()) << outcomes.at(id).error().message;
    const pid_t pid = *outcomes.at(id);
    EXPECT_NE(cmdline_of(pid).find(std::string("--pane") + '\0' + id + '\0'), std::string::npos)
        << "the pid answered for " << id << " runs for another pane";
    ::kill(-pid, SIGKILL);  // its own session and group, started by this test
  }
  ::unlink((dir + "/stand-in-ptyhost").c_str());
  ::rmdir(dir.c_str());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
