// tests/broker/ptyhost_link_distrust_test.cpp: PtyhostLink against a fake
// ptyhost listening on a pane socket path. Whatever the fake sends (a Hello
// nested past the JSON bound, a reply of the wrong type, an event it cannot
// decode, garbage frames), the link reports an error or drops the peer;
// nothing throws out of the io loop and no callback sees undecoded JSON.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>

#include "broker/ptyhost_link.hpp"
#include "common/protocol/frame.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::FrameType;
using protocol::Json;
using namespace std::chrono_literals;

constexpr std::string_view kPaneId = "pane_0123456789abcdef0123456789abcdef";

Json hello_doc() {
  return Json{{"op", "hello"},          {"version", 1},         {"min_version", 1},
              {"features", 1},          {"pane_id", kPaneId},   {"ptyhost_pid", ::getpid()},
              {"child_pid", 1},         {"output_offset", 0},   {"cols", 80},
              {"rows", 24},             {"title", ""},          {"exit_collected", false}};
}

// A listening "ptyhost" in this process; the test drives both ends.
class FakePtyhost : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/signaltty-link-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/" + std::string(kPaneId) + ".sock";
    listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path_.c_str());
    ASSERT_EQ(::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(listener_.get(), 4), 0);
    link_ = std::make_shared<PtyhostLink>(io_, path_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Starts the link, accepts it and sends `first` as the first frame.
  void connect_and_send(const std::string& first) {
    PtyhostLink::Handlers handlers;
    handlers.on_event = [this](const wire::Event&) { ++events_; };
    handlers.on_closed = [this](const std::string&) { closed_ = true; };
    link_->start({std::string(kPaneId), std::nullopt, 2000ms}, handlers,
                 [this](Result<wire::Hello> hello, LinkFailure failure) {
                   started_ = hello.ok();
                   failure_ = failure;
                 });
    run_until([this] { return accept_ready(); });
    if (HasFatalFailure()) return;
    peer_.reset(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    ASSERT_TRUE(peer_.valid());
    send_raw(first);
  }
  bool accept_ready() {
    io_.poll();
    fd_set set;
    FD_ZERO(&set);
    FD_SET(listener_.get(), &set);
    timeval zero{};
    return ::select(listener_.get() + 1, &set, nullptr, nullptr, &zero) > 0;
  }
  void send_raw(const std::string& bytes) {
    ASSERT_EQ(::write(peer_.get(), bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  void send_control(const std::string& text) {
    send_raw(protocol::encode_frame(FrameType::Control, text));
  }
  // The next frame the link sent us.
  protocol::Frame next_frame() {
    for (;;) {
      auto frame = reader_.next();
      EXPECT_TRUE(frame.ok());
      if (frame.ok() && frame->has_value()) return **frame;
      if (!frame.ok() || HasFatalFailure()) return {};
      run_until([this] {
        char buf[4096];
        const ssize_t n = ::recv(peer_.get(), buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) reader_.append(std::string_view(buf, static_cast<std::size_t>(n)));
        return n > 0;
      });
    }
  }
  void handshake() {
    connect_and_send(protocol::encode_frame(FrameType::Control, hello_doc().dump()));
    run_until([this] { return started_.has_value(); });
    ASSERT_TRUE(*started_);
    EXPECT_EQ(next_frame().type, FrameType::Control);  // HelloAck
  }
  template <class Pred>
  void run_until(Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done()) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "timed out";
      io_.run_for(5ms);
      io_.restart();
    }
  }

  boost::asio::io_context io_;
  std::string dir_;
  std::string path_;
  UniqueFd listener_;
  UniqueFd peer_;
  protocol::FrameReader reader_;
  std::shared_ptr<PtyhostLink> link_;
  std::optional<bool> started_;
  LinkFailure failure_ = LinkFailure::None;
  bool closed_ = false;
  int events_ = 0;
};

TEST_F(FakePtyhost, HelloNestedPastTheBoundIsRejected) {
  Json hello = hello_doc();
  std::string text = hello.dump();
  text.insert(text.size() - 1, ",\"meta\":" + std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_NO_THROW({
    connect_and_send(protocol::encode_frame(FrameType::Control, text));
    run_until([this] { return started_.has_value(); });
  });
  EXPECT_FALSE(*started_);
  EXPECT_EQ(failure_, LinkFailure::Rejected);
}

TEST_F(FakePtyhost, GarbageFirstFrameIsRejected) {
  connect_and_send(std::string("\x05\x00\x00\x00\x09garbage", 12));
  run_until([this] { return started_.has_value(); });
  EXPECT_FALSE(*started_);
}

TEST_F(FakePtyhost, WrongTypedReplyFailsTheCallAndDropsTheLink) {
  handshake();
  std::optional<Result<wire::ReadReply>> got;
  link_->read({}, [&](Result<wire::ReadReply> r, std::string) { got = std::move(r); });
  const protocol::Frame request = next_frame();
  const Json doc = Json::parse(request.payload);
  EXPECT_EQ(doc["op"], "read");
  EXPECT_EQ(doc["mode"], "tail");
  Json reply{{"op", "reply"}, {"rid", doc["rid"]}, {"ok", true},
             {"result", {{"text", 5}, {"truncated", "no"}}}};
  EXPECT_NO_THROW({
    send_control(reply.dump());
    run_until([&] { return got.has_value() && closed_; });
  });
  EXPECT_FALSE(got->ok());
  EXPECT_FALSE(link_->ready());
}

TEST_F(FakePtyhost, ReplyOfTheRightShapeReachesTheCallerDecoded) {
  handshake();
  std::optional<Result<wire::ReadReply>> got;
  link_->read({}, [&](Result<wire::ReadReply> r, std::string) { got = std::move(r); });
  const Json doc = Json::parse(next_frame().payload);
  Json reply{{"op", "reply"}, {"rid", doc["rid"]}, {"ok", true},
             {"result", {{"text", "hi"}, {"truncated", false}, {"scrollback_len", 3}}}};
  send_control(reply.dump());
  run_until([&] { return got.has_value(); });
  ASSERT_TRUE(got->ok());
  EXPECT_EQ((*got)->text, "hi");
  EXPECT_EQ((*got)->scrollback_len, 3u);
  EXPECT_TRUE(link_->ready());
}

TEST_F(FakePtyhost, DeepControlFrameAfterHelloDropsTheLink) {
  handshake();
  EXPECT_NO_THROW({
    send_control(std::string(100000, '[') + std::string(100000, ']'));
    run_until([this] { return closed_; });
  });
}

TEST_F(FakePtyhost, EventOfAnUnknownKindOrWrongTypesDropsTheLink) {
  handshake();
  send_control(R"({"op":"event","kind":"title","title":7})");
  run_until([this] { return closed_; });
  EXPECT_EQ(events_, 0);
}

TEST_F(FakePtyhost, UnknownFrameTypeDropsTheLink) {
  handshake();
  send_raw(protocol::encode_frame(FrameType::Input, "xxxxxxxxxxxx"));
  run_until([this] { return closed_; });
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
