// tests/common/frame_test.cpp: broker⇄ptyhost framing.
#include "common/protocol/frame.hpp"

#include <gtest/gtest.h>

namespace signaltty::protocol {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(FrameReader, ReassemblesFramesSplitAcrossReads) {
  std::string wire = encode_frame(FrameType::Control, "{\"op\":\"hello\"}") +
                     encode_tagged_frame(FrameType::Output, 42, "abc");
  FrameReader reader;
  std::vector<Frame> got;
  for (char c : wire) {
    reader.append(std::string_view(&c, 1));
    for (;;) {
      auto f = reader.next();
      ASSERT_TRUE(f.ok());
      if (!*f) break;
      got.push_back(std::move(**f));
    }
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].type, FrameType::Control);
  EXPECT_EQ(got[0].payload, "{\"op\":\"hello\"}");
  auto tagged = split_tagged(got[1].payload);
  ASSERT_TRUE(tagged);
  EXPECT_EQ(tagged->first, 42u);
  EXPECT_EQ(tagged->second, "abc");
}

TEST(FrameReader, GivesBackTheRoomOfALargeFrameOnceItIsTaken) {
  FrameReader reader;
  const std::string big = encode_frame(FrameType::State, std::string(8u << 20, 's'));
  for (std::size_t i = 0; i < big.size(); i += 64u << 10)
    reader.append(std::string_view(big).substr(i, 64u << 10));
  reader.append(encode_frame(FrameType::Control, "{}").substr(0, 3));  // the next one begun
  auto frame = reader.next();
  ASSERT_TRUE(frame.ok() && *frame);
  EXPECT_EQ((*frame)->payload.size(), 8u << 20);
  EXPECT_LT(reader.held(), 1u << 20);
  reader.append(encode_frame(FrameType::Control, "{}").substr(3));
  frame = reader.next();
  ASSERT_TRUE(frame.ok() && *frame);
  EXPECT_EQ((*frame)->payload, "{}");
}

TEST(FrameReader, RefusesOversizedLengthBeforeBufferingPayload) {
  FrameReader reader(1024);
  std::string header = {'\xff', '\xff', '\xff', '\x7f', '\x01'};
  reader.append(header);
  auto f = reader.next();
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, ErrorCode::BadProtocol);
}

TEST(FrameReader, RefusesUnknownTypeAndZeroLength) {
  FrameReader a;
  a.append(std::string("\x02\x00\x00\x00\x09x", 6));
  EXPECT_FALSE(a.next().ok());
  FrameReader b;
  b.append(std::string("\x00\x00\x00\x00\x01", 5));
  EXPECT_FALSE(b.next().ok());
}

TEST(FrameReader, TaggedFrameShorterThanTagIsDetected) {
  EXPECT_FALSE(split_tagged("1234567").has_value());
}

TEST(InputFrame, CarriesRidAndBudgetLittleEndianAheadOfTheBytes) {
  const std::string wire = encode_input_frame(0x0102030405060708u, 0x0a0b0c0du, "ls\r");
  EXPECT_EQ(wire, std::string("\x10\x00\x00\x00\x03"
                              "\x08\x07\x06\x05\x04\x03\x02\x01"
                              "\x0d\x0c\x0b\x0a"
                              "ls\r",
                              20));
  FrameReader reader;
  reader.append(wire);
  auto frame = reader.next();
  ASSERT_TRUE(frame.ok() && *frame);
  EXPECT_EQ((*frame)->type, FrameType::Input);
  auto input = split_input((*frame)->payload);
  ASSERT_TRUE(input);
  EXPECT_EQ(input->rid, 0x0102030405060708u);
  EXPECT_EQ(input->budget_ms, 0x0a0b0c0du);
  EXPECT_EQ(input->bytes, "ls\r");
}

TEST(InputFrame, PayloadShorterThanRidAndBudgetIsDetected) {
  EXPECT_FALSE(split_input(std::string(11, '\0')).has_value());
  EXPECT_TRUE(split_input(std::string(12, '\0')).has_value());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::protocol
