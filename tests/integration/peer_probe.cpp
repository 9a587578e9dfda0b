// tests/integration/peer_probe.cpp: a tiny client the peer-credential test
// runs as another uid. It connects to the socket named by argv[1], sends
// nothing, prints the first line the broker sends, then prints "EOF" if the
// broker closed the connection afterwards (else "OPEN").
// Runs in: a child of the integration tests, under another uid.
// Never: sends a byte to the broker; waits longer than its deadlines.
//
// Exit status: 0 a line was read, 2 connect failed, 3 no line arrived.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace {
namespace SIGNALTTY_UNITY_ID {

// How long the probe waits for the broker's line, and then for its close.
constexpr int kWaitMs = 5000;
constexpr int kExitConnectFailed = 2;
constexpr int kExitNoLine = 3;

enum class ReadOutcome { Data, Closed, Quiet };

// One read into `buf`, waiting at most kWaitMs for something to arrive.
ReadOutcome read_some(int fd, std::string& buf) {
  pollfd pfd{fd, POLLIN, 0};
  if (::poll(&pfd, 1, kWaitMs) <= 0) return ReadOutcome::Quiet;
  char chunk[4096];
  ssize_t n = ::read(fd, chunk, sizeof chunk);
  if (n <= 0) return ReadOutcome::Closed;  // EOF, or ECONNRESET
  buf.append(chunk, static_cast<std::size_t>(n));
  return ReadOutcome::Data;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: peer_probe SOCKET\n");
    return kExitConnectFailed;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", argv[1]);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::printf("CONNECT_FAILED %s\n", std::strerror(errno));
    return kExitConnectFailed;
  }
  std::string buf;
  while (buf.find('\n') == std::string::npos)
    if (read_some(fd, buf) != ReadOutcome::Data) break;
  std::size_t nl = buf.find('\n');
  if (nl == std::string::npos) {
    std::printf("NO_LINE\n");
    return kExitNoLine;
  }
  std::printf("%s\n", buf.substr(0, nl).c_str());
  ReadOutcome after = ReadOutcome::Data;
  while (after == ReadOutcome::Data) after = read_some(fd, buf);
  std::printf("%s\n", after == ReadOutcome::Closed ? "EOF" : "OPEN");
  ::close(fd);
  return 0;
}
