// tests/broker/ptyhost_link_test.cpp: the broker's decoder against Hello
// frames written down byte for byte as a version-1 ptyhost sends them. A
// wire change that would stop a new broker from adopting ptyhosts started
// by an older build fails here (docs/rules.md, "The broker can die and
// nothing is lost": a new broker must adopt ptyhosts started by the previous
// release).
#include <gtest/gtest.h>

#include <string>

#include "broker/ptyhost_link.hpp"
#include "common/protocol/frame.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using namespace std::string_literals;

// u32 LE length (payload + type byte), type 1 (control), the JSON.
const std::string kHelloV1Live =
    "\x7a\x01\x00\x00\x01"s
    R"({"op":"hello","version":1,"min_version":1,"features":1,)"
    R"("pane_id":"pane_0123456789abcdef0123456789abcdef","ptyhost_pid":4242,"child_pid":4243,)"
    R"("output_offset":1234,"cols":100,"rows":30,"title":"build","exit_collected":false,)"
    R"("meta":{"id":"pane_0123456789abcdef0123456789abcdef",)"
    R"("workspace_id":"ws_0123456789abcdef0123456789abcdef",)"
    R"("tab_id":"tab_0123456789abcdef0123456789abcdef"}})";

const std::string kHelloV1Exited =
    "\xdc\x00\x00\x00\x01"s
    R"({"op":"hello","version":1,"min_version":1,"features":1,)"
    R"("pane_id":"pane_0123456789abcdef0123456789abcdef","ptyhost_pid":77,"child_pid":null,)"
    R"("output_offset":9,"exited":{"code":null,"signal":"KILL"},"exit_collected":false})";

constexpr std::string_view kPaneId = "pane_0123456789abcdef0123456789abcdef";

protocol::Frame only_frame(const std::string& bytes) {
  protocol::FrameReader reader;
  reader.append(bytes);
  auto frame = reader.next();
  EXPECT_TRUE(frame.ok());
  EXPECT_TRUE(frame->has_value());
  EXPECT_EQ(reader.buffered(), 0u);
  return **frame;
}

TEST(PaneLinkHello, DecodesAFixedVersionOneHelloOfALivePane) {
  auto hello = decode_hello(only_frame(kHelloV1Live), kPaneId);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_EQ(hello->version, 1);
  EXPECT_EQ(hello->pane_id, kPaneId);
  EXPECT_EQ(hello->ptyhost_pid, 4242);
  ASSERT_TRUE(hello->child_pid.has_value());
  EXPECT_EQ(*hello->child_pid, 4243);
  EXPECT_EQ(hello->output_offset, 1234u);
  EXPECT_EQ(hello->cols, 100);
  EXPECT_EQ(hello->rows, 30);
  EXPECT_EQ(hello->title, "build");
  EXPECT_FALSE(hello->exited.has_value());
  EXPECT_EQ(hello->meta["workspace_id"], "ws_0123456789abcdef0123456789abcdef");
}

TEST(PaneLinkHello, DecodesAFixedVersionOneHelloOfAnExitedPane) {
  auto hello = decode_hello(only_frame(kHelloV1Exited), kPaneId);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_FALSE(hello->child_pid.has_value());
  ASSERT_TRUE(hello->exited.has_value());
  EXPECT_FALSE(hello->exited->code.has_value());
  EXPECT_EQ(*hello->exited->signal, "KILL");
  EXPECT_FALSE(hello->exit_collected);
}

TEST(PaneLinkHello, NewerPtyhostThatStillSpeaksOursIsAccepted) {
  protocol::Json doc = protocol::Json::parse(kHelloV1Live.substr(5));
  doc["version"] = 7;
  doc["some_future_field"] = {{"x", 1}};
  auto hello = decode_hello({protocol::FrameType::Control, doc.dump()}, kPaneId);
  EXPECT_TRUE(hello.ok());
}

TEST(PaneLinkHello, HelloWeCannotSpeakOrForAnotherPaneIsRefused) {
  protocol::Json doc = protocol::Json::parse(kHelloV1Live.substr(5));
  protocol::Json too_new = doc;
  too_new["min_version"] = protocol::ptyhost::kPtyhostWireVersion + 1;
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, too_new.dump()}, kPaneId).ok());
  protocol::Json too_old = doc;
  too_old["version"] = 0;
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, too_old.dump()}, kPaneId).ok());
  EXPECT_FALSE(decode_hello(only_frame(kHelloV1Live), "pane_ffffffffffffffffffffffffffffffff").ok());
  protocol::Json reply = doc;
  reply["op"] = "reply";
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, reply.dump()}, kPaneId).ok());
}

TEST(PaneLinkHello, GarbageIsRefusedNotTrusted) {
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, "not json"}, kPaneId).ok());
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, "[1,2]"}, kPaneId).ok());
  EXPECT_FALSE(decode_hello({protocol::FrameType::Output, kHelloV1Live.substr(5)}, kPaneId).ok());
  protocol::Json bad_pid = protocol::Json::parse(kHelloV1Live.substr(5));
  bad_pid["ptyhost_pid"] = "4242";
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, bad_pid.dump()}, kPaneId).ok());
  protocol::Json bad_id = protocol::Json::parse(kHelloV1Live.substr(5));
  bad_id["pane_id"] = "../../etc/passwd";
  EXPECT_FALSE(decode_hello({protocol::FrameType::Control, bad_id.dump()}, "").ok());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
