// tests/integration/pane_input_test.cpp: pane.input outcomes the seed
// fixes beyond the plain write (docs/rules.md (Client protocol) pane.input; docs/rules.md (Panes and PTYs)
// "Input"): nothing to write is `{written: 0}`, and every failure carries
// details.written_bytes, including refusals the ptyhost makes before it
// queues anything.
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using PaneInput = PaneTest;

// Just under the 1 MiB base64 cap of one request.
constexpr std::size_t kLargeInputBytes = 780000;
// Enough of them to pass the ptyhost's 8 MiB input queue.
constexpr int kLargeInputs = 13;

TEST_F(PaneInput, EmptyDataWritesNothingAndSucceeds) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  Json written = client.call("pane.input", {{"pane_id", pane["id"]}, {"data_b64", ""}});
  EXPECT_EQ(written, Json({{"written", 0}}));
}

TEST_F(PaneInput, EmptyDataToAnExitedPaneIsPaneExitedWithWrittenBytes) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", "exit 0"});
  ASSERT_TRUE(wait_until([&] { return get_pane(client, pane["id"])["live"]["state"] == "exited"; }));
  Json error = client.call_error("pane.input", {{"pane_id", pane["id"]}, {"data_b64", ""}});
  EXPECT_EQ(error["code"], "PANE_EXITED");
  EXPECT_EQ(error["details"]["written_bytes"], 0);
}

// A raw terminal nobody reads holds every byte in the ptyhost's queue, so
// the later requests are refused as RATE_LIMITED before any write.
TEST_F(PaneInput, RefusalsOfAFullInputQueueCarryWrittenBytes) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c", "stty raw -echo; echo stalled-ready; exec sleep 1000"});
  wait_output(client, pane["id"], "stalled-ready");
  const std::string data = base64_encode(std::string(kLargeInputBytes, 'a'));
  std::vector<Json> requests(kLargeInputs, Json{{"pane_id", pane["id"]}, {"data_b64", data}});
  std::vector<Json> ids;
  for (const Json& params : requests) ids.push_back(client.send_request("pane.input", params));
  int refused = 0;
  for (const Json& id : ids) {
    const Json response = client.await_response(id, deadline_after(std::chrono::seconds(20)));
    ASSERT_FALSE(is_ok(response));
    const Json& details = response["error"]["details"];
    EXPECT_TRUE(details.contains("written_bytes")) << response.dump().substr(0, 300);
    if (error_code(response) == "RATE_LIMITED") {
      ++refused;
      EXPECT_EQ(details["written_bytes"], 0);
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
