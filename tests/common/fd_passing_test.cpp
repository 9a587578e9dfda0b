// tests/common/fd_passing_test.cpp: common/fd_passing over a real socket
// pair: fds arrive usable and close-on-exec; a sender offering more than
// kMaxPassedFds is refused; a peer that pushes more fds than the receiver
// has room for, or a message longer than its buffer, is reported as cut
// short (the launcher refuses such a request); a closed peer is EOF.
#include "common/fd_passing.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

struct Pair {
  UniqueFd a;
  UniqueFd b;
  Pair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    a.reset(sv[0]);
    b.reset(sv[1]);
  }
};

struct Pipe {
  UniqueFd read;
  UniqueFd write;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    read.reset(fds[0]);
    write.reset(fds[1]);
  }
};

// Sends `count` fds with raw sendmsg, past any bound of ours.
ssize_t send_raw_fds(int socket, const std::vector<int>& fds) {
  char byte = 'x';
  iovec iov{&byte, 1};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  return ::sendmsg(socket, &msg, 0);
}

TEST(FdPassing, FdsArriveUsableAndCloseOnExec) {
  Pair pair;
  Pipe pipe;
  const int fds[] = {pipe.write.get()};
  ASSERT_EQ(send_with_fds(pair.a.get(), "hello", fds, 0), 5);
  std::array<char, 64> buf{};
  ReceivedMessage got = receive_with_fds(pair.b.get(), buf, 0);
  ASSERT_EQ(got.size, 5);
  EXPECT_EQ(std::string(buf.data(), 5), "hello");
  ASSERT_EQ(got.fds.size(), 1u);
  EXPECT_FALSE(got.data_truncated || got.fds_truncated);
  EXPECT_NE(::fcntl(got.fds[0].get(), F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_EQ(::write(got.fds[0].get(), "z", 1), 1) << "the passed fd is the pipe's write end";
  char c = 0;
  ASSERT_EQ(::read(pipe.read.get(), &c, 1), 1);
  EXPECT_EQ(c, 'z');
}

TEST(FdPassing, MoreThanTheBoundIsRefusedBeforeSending) {
  Pair pair;
  Pipe pipe;
  const std::vector<int> five(kMaxPassedFds + 1, pipe.write.get());
  errno = 0;
  EXPECT_EQ(send_with_fds(pair.a.get(), "x", five, 0), -1);
  EXPECT_EQ(errno, EINVAL);
}

TEST(FdPassing, APeerPushingMoreFdsOrBytesIsReportedCutShort) {
  Pair pair;
  Pipe pipe;
  ASSERT_EQ(send_raw_fds(pair.a.get(), std::vector<int>(kMaxPassedFds + 3, pipe.write.get())), 1);
  std::array<char, 64> buf{};
  ReceivedMessage got = receive_with_fds(pair.b.get(), buf, 0);
  EXPECT_EQ(got.size, 1);
  EXPECT_TRUE(got.fds_truncated);
  EXPECT_LE(got.fds.size(), kMaxPassedFds) << "the kernel closed what did not fit";

  const std::string long_message(200, 'y');
  ASSERT_EQ(send_with_fds(pair.a.get(), long_message, {}, 0), 200);
  std::array<char, 16> small{};
  got = receive_with_fds(pair.b.get(), small, 0);
  EXPECT_TRUE(got.data_truncated);
}

TEST(FdPassing, AClosedPeerIsEofAndAnEmptySocketWouldBlock) {
  Pair pair;
  std::array<char, 16> buf{};
  errno = 0;
  EXPECT_EQ(receive_with_fds(pair.b.get(), buf, MSG_DONTWAIT).size, -1);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
  pair.a.reset();
  EXPECT_EQ(receive_with_fds(pair.b.get(), buf, 0).size, 0);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
