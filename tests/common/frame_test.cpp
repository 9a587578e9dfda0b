// tests/common/frame_test.cpp: broker⇄ptyhost framing.
#include "common/protocol/frame.hpp"

#include <gtest/gtest.h>

namespace signaltty::protocol {
namespace {

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

}  // namespace
}  // namespace signaltty::protocol
