// broker/dbus_connection.hpp: one client connection to a D-Bus bus over a
// Unix stream socket: address parsing, SASL EXTERNAL authentication with
// unix-fd passing negotiated, Hello, method calls matched to their replies,
// and every other incoming message (signals, calls) handed to the owner.
// File descriptors travel as SCM_RIGHTS and are attached to their message.
// Runs in: broker (io thread); the tests' fake bus peers use it too.
// Never: blocks the io thread (every socket operation is non-blocking or
// asynchronous); buffers more than one bounded message (dbus_wire.hpp) of
// unparsed input; keeps an fd a message did not claim; calls a callback
// after close().
//
// Usage:
//   auto bus = DbusConnection::create(io, on_message, on_closed);
//   bus->start(address, [&] { bus->call(std::move(msg), on_reply); });
//   bus->close();  // no handler runs afterwards
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include "broker/dbus_wire.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// docs/rules.md (Persistence), logind: DBUS_SYSTEM_BUS_ADDRESS, else the standard path.
inline constexpr const char* kDefaultSystemBusAddress = "unix:path=/run/dbus/system_bus_socket";

// The socket path of the first unix:path= or unix:abstract= entry of a
// D-Bus address (abstract names come back with a leading NUL byte).
Result<std::string> parse_bus_address(std::string_view address);

class DbusConnection : public std::enable_shared_from_this<DbusConnection> {
 public:
  // A method return, or the error reply / connection failure as an Error
  // (an error reply's name leads its message).
  using ReplyHandler = std::function<void(Result<dbus::Message>)>;
  using MessageHandler = std::function<void(dbus::Message&)>;
  using ClosedHandler = std::function<void(const Error&)>;

  static std::shared_ptr<DbusConnection> create(boost::asio::io_context& io,
                                                MessageHandler on_message,
                                                ClosedHandler on_closed);
  ~DbusConnection();

  // Connects, authenticates and says Hello; `ready` runs once the bus gave
  // us our unique name. Any failure ends in on_closed.
  void start(const std::string& address, std::function<void()> ready);
  // Sends a method call; `reply` runs once with the reply, or never if the
  // connection ends first (on_closed reports that).
  void call(dbus::Message m, ReplyHandler reply);
  // Sends a message that expects no reply (signals, returns).
  void send(dbus::Message m);
  // Closes the socket; no handler runs afterwards.
  void close();

  const std::string& unique_name() const { return unique_name_; }
  bool open() const { return socket_.is_open(); }

 private:
  DbusConnection(boost::asio::io_context& io, MessageHandler on_message, ClosedHandler on_closed);
  struct Outgoing {
    std::string bytes;
    std::vector<UniqueFd> fds;
    std::size_t sent = 0;
  };

  void fail(Error error);
  void read_line_then(std::function<void(std::string)> then);
  void auth_send(std::string line, std::function<void()> then);
  void auth_expect(std::string_view prefix, std::function<void()> then);
  void say_hello(std::function<void()> ready);
  void arm_read();
  Status read_available();
  Status take_messages();
  Status dispatch(dbus::Message m);
  void flush();
  Status send_front();

  boost::asio::io_context& io_;
  boost::asio::local::stream_protocol::socket socket_;
  MessageHandler on_message_;
  ClosedHandler on_closed_;
  std::array<char, 4096> chunk_{};
  std::string in_;                 // auth lines, then message bytes
  std::deque<UniqueFd> in_fds_;    // received, not yet claimed by a message
  std::deque<Outgoing> out_;
  bool writing_ = false;
  bool reading_ = false;
  bool authenticated_ = false;
  bool closed_ = false;
  std::uint32_t next_serial_ = 1;
  std::map<std::uint32_t, ReplyHandler> pending_;
  std::string unique_name_;
};

}  // namespace signaltty::broker
