// tests/cli/client_test.cpp: the CLI's blocking client against a scripted
// fake broker: request framing, skipping events, error replies, EOF, the
// deadline, the line cap and "broker not running".
#include "cli/client.hpp"

#include <gtest/gtest.h>

#include "common/limits.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"
#include "tests/cli/fake_broker.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using testing::FakeBroker;
using testing::FakeConnection;

std::string ok_line(const std::string& id, const Json& result) {
  return protocol::encode_ok(id, result);
}

TEST(Client, SendsOneRequestLineWithCountingIds) {
  std::vector<Json> requests;
  FakeBroker broker([&](FakeConnection& conn) {
    while (auto line = conn.read_line()) {
      Json request = Json::parse(*line);
      requests.push_back(request);
      conn.write(ok_line(request["id"], Json::object()));
    }
  });
  {
    auto client = Client::connect(broker.path(), ::getuid());
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(client->call(protocol::WorkspaceList::name, Json::object()).ok());
    ASSERT_TRUE(client->call(protocol::WorkspaceGet::name, {{"workspace_id", "w"}}).ok());
  }
  broker.join();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["protocol"], protocol::kProtocol);
  EXPECT_EQ(requests[0]["id"], "c1");
  EXPECT_EQ(requests[0]["method"], protocol::WorkspaceList::name);
  EXPECT_EQ(requests[1]["id"], "c2");
  EXPECT_EQ(requests[1]["params"], Json({{"workspace_id", "w"}}));
}

TEST(Client, SkipsEventsAndOtherIdsWhileWaitingForItsResponse) {
  FakeBroker broker([](FakeConnection& conn) {
    conn.read_line();
    conn.write(protocol::encode_event(protocol::ev::TabCreated::name, 7, Json::object()));
    conn.write(ok_line("c99", {{"wrong", true}}));
    conn.write(ok_line("c1", {{"right", true}}));
    conn.read_line();
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  auto result = client->call(protocol::ServerStatus::name, Json::object());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(*result, Json({{"right", true}}));
}

TEST(Client, ErrorReplyIsReturnedWithItsCodeAndMessage) {
  FakeBroker broker([](FakeConnection& conn) {
    conn.read_line();
    conn.write(protocol::encode_error(
        "c1", Error{ErrorCode::NoSuchWorkspace, "no workspace 'nope'"}));
    conn.read_line();
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  auto result = client->call(protocol::WorkspaceGet::name, {{"workspace_id", "nope"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::NoSuchWorkspace);
  EXPECT_EQ(result.error().message, "no workspace 'nope'");
}

TEST(Client, EventLinesAfterTheResponseAreReadInOrder) {
  FakeBroker broker([](FakeConnection& conn) {
    conn.read_line();
    conn.write(ok_line("c1", {{"subscribed", true}, {"seq", 3}}) +
               protocol::encode_event(protocol::ev::WorkspaceCreated::name, 4, {{"n", 1}}) +
               protocol::encode_event(protocol::ev::TabCreated::name, 5, {{"n", 2}}));
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client->call(protocol::Subscribe::name, Json::object()).ok());
  for (std::uint64_t seq : {4u, 5u}) {
    auto line = client->next_line();
    ASSERT_TRUE(line.ok() && line->has_value());
    auto* event = std::get_if<protocol::EventMessage>(&(*line)->message);
    ASSERT_NE(event, nullptr);
    EXPECT_EQ(event->seq, seq);
    EXPECT_EQ(Json::parse((*line)->text)["seq"], seq);
  }
  auto end = client->next_line();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(Client, BrokerClosingBeforeAnsweringIsIoError) {
  FakeBroker broker([](FakeConnection& conn) {
    conn.read_line();
    conn.close();
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  auto result = client->call(protocol::ServerStatus::name, Json::object());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::IoError);
}

TEST(Client, PartialLineAtEofIsIoError) {
  FakeBroker broker([](FakeConnection& conn) {
    conn.read_line();
    conn.write("{\"protocol\":\"signaltty/1\",\"id\":\"c1\"");
    conn.close();
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  auto result = client->call(protocol::ServerStatus::name, Json::object());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::IoError);
}

TEST(Client, PassedDeadlineWithoutAnswerIsTimeout) {
  FakeBroker broker([](FakeConnection& conn) {
    while (conn.read_line()) {
    }
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  auto result = client->call(protocol::ServerStatus::name, Json::object(),
                             std::chrono::steady_clock::now());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::Timeout);
}

TEST(Client, ConnectWithADeadlineStillGivesABlockingClient) {
  FakeBroker broker([](FakeConnection& conn) {
    auto line = conn.read_line();
    if (line) conn.write(ok_line("c1", {{"big", std::string(256u << 10, 'x')}}));
  });
  auto client = Client::connect(broker.path(), ::getuid(),
                                std::chrono::steady_clock::now() + std::chrono::seconds(5));
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto result = client->call(protocol::ServerStatus::name, Json::object());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ((*result)["big"].get<std::string>().size(), 256u << 10);
}

// A broker whose listen queue is full (it stopped accepting) makes a
// connect with a deadline give up then, not block.
TEST(Client, ConnectToAFullListenQueueIsTimeoutAtTheDeadline) {
  char dir_template[] = "/tmp/signaltty-cli-test-XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  const std::string path = dir + "/broker.sock";
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener.get(), 0), 0);
  std::vector<UniqueFd> queued;
  for (int i = 0; i < 64; ++i) {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) break;
    queued.push_back(std::move(fd));
  }
  const auto start = std::chrono::steady_clock::now();
  auto client = Client::connect(path, ::getuid(), start + std::chrono::milliseconds(200));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, ErrorCode::Timeout) << client.error().message;
  EXPECT_LT(took, std::chrono::seconds(2));
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

TEST(Client, LineOverTheCapIsRefusedWithoutWaitingForItsEnd) {
  FakeBroker broker([](FakeConnection& conn) {
    conn.read_line();
    conn.write(std::string(limits::kMaxLineBytes + 1, 'x'));
    conn.read_line();
  });
  auto client = Client::connect(broker.path(), ::getuid());
  ASSERT_TRUE(client.ok());
  auto result = client->call(protocol::ServerStatus::name, Json::object());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadProtocol);
}

TEST(Client, MissingSocketIsBrokerNotRunningWithHowToStartIt) {
  auto client = Client::connect("/nonexistent-signaltty-dir/signaltty.sock", ::getuid());
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, ErrorCode::NoSuchServer);
  EXPECT_NE(client.error().message.find("signaltty-broker"), std::string::npos);
  EXPECT_NE(client.error().message.find("./packaging/dev.sh run"), std::string::npos);
}

TEST(Client, SocketFileWithoutListenerIsBrokerNotRunning) {
  char dir_template[] = "/tmp/signaltty-cli-stale-XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  const std::string path = dir + "/broker.sock";
  {
    // Bound, never listening, then closed: what a crashed broker leaves.
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    ASSERT_EQ(::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
  }
  auto client = Client::connect(path, ::getuid());
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, ErrorCode::NoSuchServer);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
