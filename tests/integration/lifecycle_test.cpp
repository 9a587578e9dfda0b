// tests/integration/lifecycle_test.cpp: how the broker stops: SIGTERM,
// SIGINT and server.shutdown all end it with status 0 (docs/rules.md,
// Broker process contract).
// Runs in: the integration test binary.
#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using BrokerLifecycle = BrokerTest;

TEST_F(BrokerLifecycle, ExitsZeroOnSigterm) {
  start();
  broker().sigterm();
  auto status = broker().wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value()) << "still running after SIGTERM";
  EXPECT_EQ(status->code, 0) << status->describe();
}

TEST_F(BrokerLifecycle, ExitsZeroOnSigint) {
  start();
  broker().sigint();
  auto status = broker().wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value()) << "still running after SIGINT";
  EXPECT_EQ(status->code, 0) << status->describe();
}

TEST_F(BrokerLifecycle, ShutdownAnswersStoppedThenExitsZero) {
  start();
  Client client = connect();
  Json result = client.call("server.shutdown");
  EXPECT_EQ(result, Json({{"stopped", true}}));
  auto status = broker().wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value()) << "still running after server.shutdown";
  EXPECT_EQ(status->code, 0) << status->describe();
  EXPECT_TRUE(client.wait_closed(deadline_after()));
}

TEST_F(BrokerLifecycle, StopsServingWhenItExits) {
  start();
  Client client = connect();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  EXPECT_TRUE(client.wait_closed(deadline_after())) << "open connections end with the broker";
  EXPECT_FALSE(Client::try_connect(broker().socket_path()).has_value());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
