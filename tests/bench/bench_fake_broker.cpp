// tests/bench/bench_fake_broker.cpp: a live stand-in broker for
// bench_hookrelay.sh: listens on argv[1] (its directory must exist, 0700)
// and answers every request line with an accepted hook-event result, one
// connection at a time, until killed.
// Runs in: benchmarks only. Never: checks what it is sent.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "common/protocol/envelope.hpp"

namespace {

void serve(int fd) {
  std::string buffer;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) return;
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
      auto request = signaltty::protocol::Json::parse(buffer.substr(0, nl), nullptr, false);
      buffer.erase(0, nl + 1);
      auto id = request.is_object() ? request.value("id", signaltty::protocol::Json()) : nullptr;
      std::string line = signaltty::protocol::encode_ok(
          id, {{"accepted", true}, {"agent", "claude"}, {"event", "Stop"}, {"pane_id", nullptr}});
      (void)!::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_fake_broker SOCKET\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string(argv[1]).copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 64) != 0) {
    std::perror("bench_fake_broker: bind/listen");
    return 1;
  }
  for (;;) {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    serve(fd);
    ::close(fd);
  }
}
