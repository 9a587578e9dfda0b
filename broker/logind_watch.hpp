// broker/logind_watch.hpp: the save before a system shutdown
// (docs/rules.md (Persistence), Snapshot triggers, logind). On the system bus it
// subscribes to org.freedesktop.login1.Manager.PrepareForShutdown, takes a
// "shutdown"/"delay" inhibitor (an fd; closing it releases the lock) and
// reads PreparingForShutdown. On PrepareForShutdown(true), or when that
// property is already true, it asks the owner to save while the inhibitor
// is held; the owner's release() closes the inhibitor, then the owner stops
// the broker normally. A `false` signal does nothing. Bus failures retry
// after 1, 2, 4 … 60 s.
// Runs in: broker (io thread). Never: delays startup (start() only posts
// work), blocks the io thread, acts on a signal not sent by logind's
// current bus name, or saves twice.
//
// Usage:
//   if (logind_enabled_from_env()) {
//     watch = std::make_unique<LogindWatch>(io, system_bus_address_from_env(),
//         [&](LogindWatch::Release release) { save(); release(); stop(); });
//     watch->start();
//   }
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/dbus_connection.hpp"
#include "common/limits.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// SIGNALTTY_LOGIND=0 turns the watch off (tests); anything else, or unset, on.
bool logind_enabled_from_env();
// DBUS_SYSTEM_BUS_ADDRESS, else kDefaultSystemBusAddress.
std::string system_bus_address_from_env();

class LogindWatch {
 public:
  // Closes the inhibitor. Runs once, whether the save worked or not.
  using Release = std::function<void()>;
  using Save = std::function<void(Release release)>;

  LogindWatch(boost::asio::io_context& io, std::string bus_address, Save save,
              std::chrono::milliseconds retry_first = limits::kLogindRetryFirst);
  ~LogindWatch();
  LogindWatch(const LogindWatch&) = delete;
  LogindWatch& operator=(const LogindWatch&) = delete;

  // Connects in the background; returns at once.
  void start();
  // Closes the bus connection and cancels retries (the broker is stopping);
  // safe from inside the save callback.
  void stop();

  // For tests and logs.
  bool holding_inhibitor() const { return inhibitor_.valid(); }

 private:
  void connect();
  void subscribe();
  void take_inhibitor();
  void read_preparing();
  void subscribed();
  void on_message(dbus::Message& m);
  void on_prepare_signal(const dbus::Message& m);
  void prepare_for_shutdown();
  void on_bus_closed(const Error& error);
  void bus_failed(const Error& error);
  // Runs `then` with whether `sender` is logind's current bus name.
  void check_sender(const std::string& sender, std::function<void(bool)> then);
  void retry_later();

  boost::asio::io_context& io_;
  const std::string bus_address_;
  Save save_;
  const std::chrono::milliseconds retry_first_;
  std::chrono::milliseconds retry_next_;
  boost::asio::steady_timer retry_;
  std::shared_ptr<DbusConnection> bus_;
  std::optional<std::string> login1_owner_;  // logind's unique bus name
  UniqueFd inhibitor_;
  bool shutting_down_ = false;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace signaltty::broker
