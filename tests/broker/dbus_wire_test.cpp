// tests/broker/dbus_wire_test.cpp: D-Bus messages round-trip, bus addresses
// parse, and no truncated or corrupted message from a hostile peer is read
// past its end (every prefix and every single-byte change is decoded).
#include "broker/dbus_wire.hpp"

#include <gtest/gtest.h>

#include "broker/dbus_connection.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

dbus::Message inhibit_call() {
  dbus::Message m = dbus::method_call("org.freedesktop.login1", "/org/freedesktop/login1",
                                      "org.freedesktop.login1.Manager", "Inhibit");
  dbus::BodyWriter body;
  for (const char* s : {"shutdown", "signaltty", "save state", "delay"}) body.put_string(s);
  m.signature = "ssss";
  m.body = body.take();
  return m;
}

TEST(DbusWire, MethodCallRoundTrips) {
  const std::string bytes = dbus::encode(inhibit_call(), 7);
  auto total = dbus::frame_length(bytes.substr(0, dbus::kFixedHeaderBytes));
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(*total, bytes.size());
  auto m = dbus::decode(bytes);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->serial, 7u);
  EXPECT_EQ(m->destination, "org.freedesktop.login1");
  EXPECT_EQ(m->path, "/org/freedesktop/login1");
  EXPECT_EQ(m->interface, "org.freedesktop.login1.Manager");
  EXPECT_EQ(m->member, "Inhibit");
  EXPECT_EQ(m->signature, "ssss");
  dbus::BodyReader in(*m);
  for (const char* want : {"shutdown", "signaltty", "save state", "delay"}) {
    auto s = in.get_string();
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(*s, want);
  }
  EXPECT_TRUE(in.at_end());
}

TEST(DbusWire, ReplyCarriesSerialFdCountAndVariant) {
  dbus::Message call = inhibit_call();
  call.serial = 9;
  call.sender = ":1.4";
  dbus::Message reply = dbus::method_return(call);
  dbus::BodyWriter body;
  body.put_variant_bool(true);
  body.put_unix_fd(0);
  reply.signature = "vh";
  reply.body = body.take();
  reply.fds.emplace_back(::dup(0));
  auto m = dbus::decode(dbus::encode(reply, 3));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->type, dbus::MessageType::MethodReturn);
  EXPECT_EQ(m->reply_serial, 9u);
  EXPECT_EQ(m->destination, ":1.4");
  EXPECT_EQ(m->unix_fds, 1u);
  dbus::BodyReader in(*m);
  EXPECT_EQ(in.get_variant_bool().value(), true);
  EXPECT_EQ(in.get_unix_fd().value(), 0u);
}

TEST(DbusWire, BigEndianBodyIsRead) {
  // A bool true and the string "ab" as a big-endian peer writes them.
  const std::string body("\0\0\0\1\0\0\0\2ab\0", 11);
  dbus::BodyReader in(body, /*big_endian=*/true);
  EXPECT_EQ(in.get_bool().value(), true);
  EXPECT_EQ(in.get_string().value(), "ab");
}

TEST(DbusWire, EveryTruncationIsRefusedNotOverread) {
  const std::string bytes = dbus::encode(inhibit_call(), 1);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    auto m = dbus::decode(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(m.ok()) << "prefix of " << n << " bytes";
  }
}

TEST(DbusWire, EverySingleByteCorruptionDecodesOrFailsCleanly) {
  const std::string bytes = dbus::encode(inhibit_call(), 1);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(v);
      auto total = dbus::frame_length(std::string_view(bad).substr(0, dbus::kFixedHeaderBytes));
      if (!total.ok() || *total != bad.size()) continue;
      auto m = dbus::decode(bad);
      if (!m.ok()) continue;
      dbus::BodyReader in(*m);
      while (!in.at_end() && in.get_string().ok()) {
      }
    }
  }
  SUCCEED() << "no crash (run under ASan for the overread check)";
}

TEST(DbusWire, OversizedLengthsAreRefusedFromTheFixedHeader) {
  std::string head = dbus::encode(inhibit_call(), 1).substr(0, dbus::kFixedHeaderBytes);
  head[4] = head[5] = head[6] = head[7] = '\xff';  // body length
  EXPECT_FALSE(dbus::frame_length(head).ok());
}

TEST(DbusWire, StringLengthPastTheBodyIsRefused) {
  const std::string body("\xff\xff\xff\x7f" "abc\0", 8);
  dbus::BodyReader in(body, false);
  EXPECT_FALSE(in.get_string().ok());
}

TEST(DbusAddress, FirstUnixPathOrAbstractEntryWins) {
  EXPECT_EQ(parse_bus_address("unix:path=/run/dbus/system_bus_socket").value(),
            "/run/dbus/system_bus_socket");
  EXPECT_EQ(parse_bus_address("tcp:host=x,port=1;unix:guid=g,path=/tmp/a%2cb").value(),
            "/tmp/a,b");
  EXPECT_EQ(parse_bus_address("unix:abstract=bus").value(), std::string("\0bus", 4));
  EXPECT_FALSE(parse_bus_address("tcp:host=x").ok());
  EXPECT_FALSE(parse_bus_address("unix:path=/x%4").ok());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
