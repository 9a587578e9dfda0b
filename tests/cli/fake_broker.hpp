// tests/cli/fake_broker.hpp: a one-connection stand-in for the broker's
// socket, so the CLI's client and commands can be tested without one. The
// test scripts what the "broker" reads and writes on its own thread.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "common/unique_fd.hpp"

namespace signaltty::cli::testing {

// The broker's side of the one accepted connection.
class FakeConnection {
 public:
  explicit FakeConnection(UniqueFd fd) : fd_(std::move(fd)) {}
  // One line without its '\n'; nullopt at EOF.
  std::optional<std::string> read_line() {
    std::string line;
    char c;
    for (;;) {
      ssize_t n = ::read(fd_.get(), &c, 1);
      if (n <= 0) return std::nullopt;
      if (c == '\n') return line;
      line.push_back(c);
    }
  }
  // Writes everything it can; a client that went away ends the write.
  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // Everything the client sends until it hangs up.
  std::string read_until_eof() {
    std::string bytes;
    char chunk[4096];
    for (;;) {
      ssize_t n = ::read(fd_.get(), chunk, sizeof(chunk));
      if (n <= 0) return bytes;
      bytes.append(chunk, static_cast<std::size_t>(n));
    }
  }
  void close() { fd_.reset(); }

 private:
  UniqueFd fd_;
};

class FakeBroker {
 public:
  using Session = std::function<void(FakeConnection&)>;

  // Listens on a fresh socket in a temporary directory and runs `session`
  // on the first connection.
  explicit FakeBroker(Session session) {
    char dir_template[] = "/tmp/signaltty-cli-test-XXXXXX";
    dir_ = ::mkdtemp(dir_template);
    path_ = dir_ + "/broker.sock";
    listener_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr = address(path_);
    ::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
    ::listen(listener_.get(), 4);
    thread_ = std::thread([this, session = std::move(session)] {
      FakeConnection conn(UniqueFd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC)));
      session(conn);
    });
  }
  FakeBroker(const FakeBroker&) = delete;
  FakeBroker& operator=(const FakeBroker&) = delete;

  ~FakeBroker() {
    if (thread_.joinable()) {
      wake_accept();
      thread_.join();
    }
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }

  const std::string& path() const { return path_; }
  // The private (0700) directory holding the socket.
  const std::string& dir() const { return dir_; }

  // Waits for the session to finish (the test's client is done with it).
  // A client that never connected (it refused the socket) lets the
  // session see EOF at once.
  void join() {
    if (!thread_.joinable()) return;
    wake_accept();
    thread_.join();
  }

 private:
  static sockaddr_un address(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    return addr;
  }
  // If no client ever connected, connect once so accept() returns and the
  // session sees EOF straight away.
  void wake_accept() {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr = address(path_);
    (void)::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  }

  std::string dir_;
  std::string path_;
  UniqueFd listener_;
  std::thread thread_;
};

}  // namespace signaltty::cli::testing
