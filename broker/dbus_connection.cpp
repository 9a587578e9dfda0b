// broker/dbus_connection.cpp: a D-Bus client connection (see the header;
// the D-Bus specification's "Authentication Protocol" and "Message Bus").
// Runs in: broker (io thread). Never: blocks, or reads past a bound.
#include "broker/dbus_connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "common/fd_passing.hpp"
#include "common/hex.hpp"

namespace signaltty::broker {
namespace asio = boost::asio;
using Local = asio::local::stream_protocol;

namespace {

// Our bound on one line of the authentication dialogue.
constexpr std::size_t kMaxAuthLineBytes = 1024;
// Reads handled per wake-up before yielding the io thread to others.
constexpr int kReadsPerWake = 16;
// Received fds held while their message is incomplete.
constexpr std::size_t kMaxPendingFds = 2 * dbus::kDbusMaxFdsPerMessage;
constexpr std::string_view kCrLf = "\r\n";

Error bus_error(std::string what) { return Error{ErrorCode::IoError, "D-Bus: " + what}; }

// %XX escapes of an address value.
Result<std::string> unescape(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '%') {
      out.push_back(v[i]);
      continue;
    }
    if (i + 2 >= v.size()) return bus_error("bad %-escape in address");
    const std::string digits(v.substr(i + 1, 2));
    char* end = nullptr;
    const long byte = std::strtol(digits.c_str(), &end, 16);
    if (end != digits.c_str() + 2 || !std::isxdigit(static_cast<unsigned char>(digits[0])))
      return bus_error("bad %-escape in address");
    out.push_back(static_cast<char>(byte));
    i += 2;
  }
  return out;
}

// A printable excerpt of a peer's line for a log message.
std::string printable(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 80)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return out;
}

}  // namespace

Result<std::string> parse_bus_address(std::string_view address) {
  while (!address.empty()) {
    const std::size_t end = address.find(';');
    std::string_view entry = address.substr(0, end);
    address = end == std::string_view::npos ? std::string_view{} : address.substr(end + 1);
    if (!entry.starts_with("unix:")) continue;
    entry.remove_prefix(5);
    while (!entry.empty()) {
      const std::size_t comma = entry.find(',');
      const std::string_view pair = entry.substr(0, comma);
      entry = comma == std::string_view::npos ? std::string_view{} : entry.substr(comma + 1);
      const std::size_t eq = pair.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view key = pair.substr(0, eq);
      if (key != "path" && key != "abstract") continue;
      SIGNALTTY_TRY(std::string value, unescape(pair.substr(eq + 1)));
      if (value.empty()) break;
      return key == "path" ? value : std::string(1, '\0') + value;
    }
  }
  return bus_error("no unix:path= or unix:abstract= in the bus address");
}

std::shared_ptr<DbusConnection> DbusConnection::create(asio::io_context& io,
                                                       MessageHandler on_message,
                                                       ClosedHandler on_closed) {
  return std::shared_ptr<DbusConnection>(
      new DbusConnection(io, std::move(on_message), std::move(on_closed)));
}

DbusConnection::DbusConnection(asio::io_context& io, MessageHandler on_message,
                               ClosedHandler on_closed)
    : io_(io), socket_(io), on_message_(std::move(on_message)), on_closed_(std::move(on_closed)) {}

DbusConnection::~DbusConnection() { close(); }

void DbusConnection::close() {
  closed_ = true;
  boost::system::error_code ignored;
  socket_.close(ignored);
  pending_.clear();
  out_.clear();
  in_fds_.clear();
}

void DbusConnection::fail(Error error) {
  if (closed_) return;
  close();
  if (on_closed_) on_closed_(error);
}

// ---- authentication -------------------------------------------------------------

void DbusConnection::start(const std::string& address, std::function<void()> ready) {
  auto path = parse_bus_address(address);
  if (!path.ok()) {
    auto self = shared_from_this();
    return asio::post(io_, [self, error = path.error()] { self->fail(error); });
  }
  socket_.async_connect(Local::endpoint(*path), [self = shared_from_this(), ready = std::move(
                                                                                 ready)](
                                                    const boost::system::error_code& ec) mutable {
    if (self->closed_) return;
    if (ec) return self->fail(bus_error("connect: " + ec.message()));
    // A NUL byte first, then SASL EXTERNAL with our uid in hex digits.
    std::string first(1, '\0');
    first += "AUTH EXTERNAL " + to_hex(std::to_string(::geteuid())) + std::string(kCrLf);
    self->auth_send(std::move(first), [self, ready = std::move(ready)]() mutable {
      self->auth_expect("OK ", [self, ready = std::move(ready)]() mutable {
        self->auth_send("NEGOTIATE_UNIX_FD\r\n", [self, ready = std::move(ready)]() mutable {
          self->auth_expect("AGREE_UNIX_FD", [self, ready = std::move(ready)]() mutable {
            self->auth_send("BEGIN\r\n", [self, ready = std::move(ready)]() mutable {
              self->say_hello(std::move(ready));
            });
          });
        });
      });
    });
  });
}

void DbusConnection::auth_send(std::string line, std::function<void()> then) {
  auto bytes = std::make_shared<std::string>(std::move(line));
  asio::async_write(socket_, asio::buffer(*bytes),
                    [self = shared_from_this(), bytes, then = std::move(then)](
                        const boost::system::error_code& ec, std::size_t) {
                      if (self->closed_) return;
                      if (ec) return self->fail(bus_error("auth write: " + ec.message()));
                      then();
                    });
}

void DbusConnection::read_line_then(std::function<void(std::string)> then) {
  if (const std::size_t end = in_.find(kCrLf); end != std::string::npos) {
    std::string line = in_.substr(0, end);
    in_.erase(0, end + kCrLf.size());
    return then(std::move(line));
  }
  if (in_.size() > kMaxAuthLineBytes) return fail(bus_error("authentication line too long"));
  socket_.async_read_some(asio::buffer(chunk_), [self = shared_from_this(), then = std::move(then)](
                                                    const boost::system::error_code& ec,
                                                    std::size_t n) mutable {
    if (self->closed_) return;
    if (ec) return self->fail(bus_error("auth read: " + ec.message()));
    self->in_.append(self->chunk_.data(), n);
    self->read_line_then(std::move(then));
  });
}

void DbusConnection::auth_expect(std::string_view prefix, std::function<void()> then) {
  read_line_then([this, prefix = std::string(prefix), then = std::move(then)](std::string line) {
    if (!line.starts_with(prefix))
      return fail(bus_error("authentication refused: " + printable(line)));
    then();
  });
}

void DbusConnection::say_hello(std::function<void()> ready) {
  authenticated_ = true;
  boost::system::error_code ec;
  socket_.non_blocking(true, ec);
  if (ec) return fail(bus_error("non-blocking: " + ec.message()));
  arm_read();
  flush();
  call(dbus::method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                         "Hello"),
       [this, ready = std::move(ready)](Result<dbus::Message> reply) {
         if (!reply.ok()) return fail(bus_error("Hello: " + reply.error().message));
         dbus::BodyReader in(*reply);
         auto name = in.get_string();
         if (!name.ok()) return fail(name.error());
         unique_name_ = *name;
         ready();
       });
}

// ---- reading ------------------------------------------------------------------

void DbusConnection::arm_read() {
  if (reading_ || closed_) return;
  reading_ = true;
  socket_.async_wait(Local::socket::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& ec) {
                       self->reading_ = false;
                       if (self->closed_) return;
                       if (ec) return self->fail(bus_error("wait: " + ec.message()));
                       if (Status s = self->read_available(); !s.ok()) return self->fail(s.error());
                       self->arm_read();
                     });
}

Status DbusConnection::read_available() {
  for (int i = 0; i < kReadsPerWake && !closed_; ++i) {
    ReceivedMessage got = receive_with_fds(socket_.native_handle(), chunk_, MSG_DONTWAIT);
    const ssize_t n = got.size;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {};
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "recvmsg", errno, "D-Bus");
    for (UniqueFd& fd : got.fds) in_fds_.push_back(std::move(fd));
    if (got.fds_truncated) return bus_error("file descriptors were truncated");
    if (in_fds_.size() > kMaxPendingFds) return bus_error("too many file descriptors");
    if (n == 0) return bus_error("the bus closed the connection");
    in_.append(chunk_.data(), static_cast<std::size_t>(n));
    SIGNALTTY_RETURN_IF_ERROR(take_messages());
  }
  return {};
}

Status DbusConnection::take_messages() {
  while (!closed_ && in_.size() >= dbus::kFixedHeaderBytes) {
    SIGNALTTY_TRY(std::size_t total, dbus::frame_length(in_));
    if (in_.size() < total) return {};
    SIGNALTTY_TRY(dbus::Message m, dbus::decode(std::string_view(in_).substr(0, total)));
    in_.erase(0, total);
    if (m.unix_fds > in_fds_.size()) return bus_error("message claims fds that did not arrive");
    for (std::uint32_t i = 0; i < m.unix_fds; ++i) {
      m.fds.push_back(std::move(in_fds_.front()));
      in_fds_.pop_front();
    }
    SIGNALTTY_RETURN_IF_ERROR(dispatch(std::move(m)));
  }
  return {};
}

Status DbusConnection::dispatch(dbus::Message m) {
  if (m.type == dbus::MessageType::MethodReturn || m.type == dbus::MessageType::Error) {
    if (!m.reply_serial) return bus_error("a reply without a reply serial");
    auto it = pending_.find(*m.reply_serial);
    if (it == pending_.end()) return {};  // not ours, or already answered
    ReplyHandler reply = std::move(it->second);
    pending_.erase(it);
    if (m.type == dbus::MessageType::MethodReturn) {
      reply(std::move(m));
      return {};
    }
    std::string text;
    if (m.signature.starts_with("s")) {
      dbus::BodyReader in(m);
      if (auto s = in.get_string(); s.ok()) text = ": " + printable(*s);
    }
    reply(Error{ErrorCode::IoError, printable(m.error_name) + text});
    return {};
  }
  if (on_message_) on_message_(m);
  return {};
}

// ---- writing ------------------------------------------------------------------

void DbusConnection::call(dbus::Message m, ReplyHandler reply) {
  if (closed_) return;
  const std::uint32_t serial = next_serial_++;
  if (next_serial_ == 0) next_serial_ = 1;
  pending_[serial] = std::move(reply);
  out_.push_back(Outgoing{dbus::encode(m, serial), std::move(m.fds), 0});
  flush();
}

void DbusConnection::send(dbus::Message m) {
  if (closed_) return;
  const std::uint32_t serial = next_serial_++;
  if (next_serial_ == 0) next_serial_ = 1;
  out_.push_back(Outgoing{dbus::encode(m, serial), std::move(m.fds), 0});
  flush();
}

void DbusConnection::flush() {
  if (!authenticated_ || writing_ || closed_) return;
  while (!out_.empty() && !closed_) {
    Status sent = send_front();
    if (!sent.ok()) return fail(sent.error());
    if (writing_) return;  // waiting for the socket to drain
  }
}

// sendmsg() of the front message, its fds with its first byte.
Status DbusConnection::send_front() {
  Outgoing& o = out_.front();
  if (o.fds.size() > dbus::kDbusMaxFdsPerMessage) return bus_error("too many fds to send");
  std::vector<int> fds;
  for (const UniqueFd& fd : o.fds) fds.push_back(fd.get());
  const ssize_t n = send_with_fds(socket_.native_handle(),
                                  std::string_view(o.bytes).substr(o.sent), fds,
                                  MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n < 0 && errno == EINTR) return {};
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    writing_ = true;
    socket_.async_wait(Local::socket::wait_write,
                       [self = shared_from_this()](const boost::system::error_code& ec) {
                         self->writing_ = false;
                         if (self->closed_) return;
                         if (ec) return self->fail(bus_error("wait: " + ec.message()));
                         self->flush();
                       });
    return {};
  }
  if (n < 0) return Error::from_errno(ErrorCode::IoError, "sendmsg", errno, "D-Bus");
  o.fds.clear();  // the kernel holds its own copies now
  o.sent += static_cast<std::size_t>(n);
  if (o.sent == o.bytes.size()) out_.pop_front();
  return {};
}

}  // namespace signaltty::broker
