// broker/logind_watch.cpp: subscribe to logind, hold a delay inhibitor, save
// on PrepareForShutdown(true) (see the header; logind's D-Bus API is
// org.freedesktop.login1(5)).
// Runs in: broker (io thread). Never: stops the broker itself (the owner
// does), or trusts a PrepareForShutdown from anyone but logind.
#include "broker/logind_watch.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <utility>

#include <boost/asio/post.hpp>

#include "common/log.hpp"

namespace signaltty::broker {
namespace {

constexpr const char* kBusName = "org.freedesktop.DBus";
constexpr const char* kBusPath = "/org/freedesktop/DBus";
constexpr const char* kLogin1 = "org.freedesktop.login1";
constexpr const char* kLogin1Path = "/org/freedesktop/login1";
constexpr const char* kManager = "org.freedesktop.login1.Manager";
constexpr const char* kProperties = "org.freedesktop.DBus.Properties";
constexpr std::string_view kPrepareForShutdown = "PrepareForShutdown";
constexpr const char* kMatchRule =
    "type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',"
    "interface='org.freedesktop.login1.Manager',member='PrepareForShutdown'";
// Inhibit(what, who, why, mode): docs/rules.md (Persistence), logind.
constexpr const char* kInhibitWhat = "shutdown";
constexpr const char* kInhibitWho = "signaltty";
constexpr const char* kInhibitWhy = "save state";
constexpr const char* kInhibitMode = "delay";
constexpr const char* kEnvDisable = "SIGNALTTY_LOGIND";
constexpr const char* kEnvBusAddress = "DBUS_SYSTEM_BUS_ADDRESS";

dbus::Message string_call(const char* dest, const char* path, const char* iface,
                          const char* member, std::initializer_list<std::string_view> args) {
  dbus::Message m = dbus::method_call(dest, path, iface, member);
  dbus::BodyWriter body;
  for (std::string_view a : args) body.put_string(a);
  m.signature = std::string(args.size(), 's');
  m.body = body.take();
  return m;
}

std::string seconds(std::chrono::milliseconds d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

}  // namespace

bool logind_enabled_from_env() {
  const char* v = std::getenv(kEnvDisable);
  return v == nullptr || std::string_view(v) != "0";
}

std::string system_bus_address_from_env() {
  const char* v = std::getenv(kEnvBusAddress);
  return v != nullptr && *v != '\0' ? v : kDefaultSystemBusAddress;
}

LogindWatch::LogindWatch(boost::asio::io_context& io, std::string bus_address, Save save,
                         std::chrono::milliseconds retry_first)
    : io_(io),
      bus_address_(std::move(bus_address)),
      save_(std::move(save)),
      retry_first_(retry_first),
      retry_next_(retry_first),
      retry_(io) {}

LogindWatch::~LogindWatch() {
  retry_.cancel();
  if (bus_) bus_->close();
}

void LogindWatch::start() {
  boost::asio::post(io_, [this, alive = std::weak_ptr<int>(alive_)] {
    if (!alive.expired()) connect();
  });
}

void LogindWatch::stop() {
  shutting_down_ = true;
  retry_.cancel();
  if (bus_) bus_->close();
}

void LogindWatch::connect() {
  if (bus_) bus_->close();
  bus_ = DbusConnection::create(
      io_, [this](dbus::Message& m) { on_message(m); },
      [this](const Error& error) { on_bus_closed(error); });
  bus_->start(bus_address_, [this] { subscribe(); });
}

void LogindWatch::bus_failed(const Error& error) {
  if (bus_) bus_->close();  // on_closed is not called after close(): report here
  on_bus_closed(error);
}

// AddMatch first, so no PrepareForShutdown is missed between the steps.
void LogindWatch::subscribe() {
  bus_->call(string_call(kBusName, kBusPath, kBusName, "AddMatch", {kMatchRule}),
             [this](Result<dbus::Message> reply) {
               if (!reply.ok()) return bus_failed(reply.error());
               check_sender("", [this](bool) { take_inhibitor(); });
             });
}

void LogindWatch::take_inhibitor() {
  bus_->call(string_call(kLogin1, kLogin1Path, kManager, "Inhibit",
                         {kInhibitWhat, kInhibitWho, kInhibitWhy, kInhibitMode}),
             [this](Result<dbus::Message> reply) {
               if (!reply.ok()) {
                 log::warn("logind: no shutdown inhibitor (" + reply.error().message +
                           "); a shutdown may not wait for the save");
                 return read_preparing();
               }
               dbus::BodyReader in(*reply);
               auto index = in.get_unix_fd();
               if (reply->signature != "h" || !index.ok() || *index >= reply->fds.size())
                 return bus_failed(Error{ErrorCode::IoError, "logind: Inhibit reply without an fd"});
               inhibitor_ = std::move(reply->fds[*index]);
               read_preparing();
             });
}

void LogindWatch::read_preparing() {
  bus_->call(string_call(kLogin1, kLogin1Path, kProperties, "Get",
                         {kManager, "PreparingForShutdown"}),
             [this](Result<dbus::Message> reply) {
               subscribed();
               if (!reply.ok()) {
                 log::warn("logind: PreparingForShutdown unreadable: " + reply.error().message);
                 return;
               }
               dbus::BodyReader in(*reply);
               auto preparing = in.get_variant_bool();
               if (reply->signature != "v" || !preparing.ok())
                 return bus_failed(Error{ErrorCode::IoError, "logind: bad PreparingForShutdown"});
               if (*preparing) prepare_for_shutdown();
             });
}

void LogindWatch::subscribed() {
  retry_next_ = retry_first_;
  log::debug(std::string("logind: watching for shutdown, inhibitor ") +
             (inhibitor_.valid() ? "held" : "not held"));
}

void LogindWatch::on_message(dbus::Message& m) {
  if (m.type == dbus::MessageType::Signal) {
    if (m.interface == kManager && m.member == kPrepareForShutdown && m.path == kLogin1Path)
      on_prepare_signal(m);
    return;
  }
  if (m.type == dbus::MessageType::MethodCall && !(m.flags & dbus::kFlagNoReplyExpected))
    bus_->send(dbus::error_reply(m, "org.freedesktop.DBus.Error.UnknownMethod"));
}

void LogindWatch::on_prepare_signal(const dbus::Message& m) {
  dbus::BodyReader in(m);
  auto start = in.get_bool();
  if (m.signature != "b" || !start.ok()) {
    log::warn("logind: malformed PrepareForShutdown ignored");
    return;
  }
  if (!*start) return;  // a shutdown was cancelled: nothing to undo
  check_sender(m.sender, [this](bool from_logind) {
    if (from_logind) return prepare_for_shutdown();
    log::warn("logind: PrepareForShutdown from another bus name ignored");
  });
}

// Compares with the cached owner; asks the bus when it is unknown or
// differs (logind restarted). An empty sender only refreshes the cache.
void LogindWatch::check_sender(const std::string& sender, std::function<void(bool)> then) {
  if (!sender.empty() && login1_owner_ == sender) return then(true);
  bus_->call(string_call(kBusName, kBusPath, kBusName, "GetNameOwner", {kLogin1}),
             [this, sender, then = std::move(then)](Result<dbus::Message> reply) {
               login1_owner_.reset();
               if (reply.ok() && reply->signature == "s") {
                 dbus::BodyReader in(*reply);
                 if (auto owner = in.get_string(); owner.ok()) login1_owner_ = *owner;
               }
               then(!sender.empty() && login1_owner_ == sender);
             });
}

void LogindWatch::prepare_for_shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  log::info(std::string("logind: the system is shutting down; saving state (inhibitor ") +
            (inhibitor_.valid() ? "held)" : "not held)"));
  save_([this, alive = std::weak_ptr<int>(alive_)] {
    if (alive.expired()) return;
    inhibitor_.reset();
    log::info("logind: state saved, inhibitor released");
  });
}

void LogindWatch::on_bus_closed(const Error& error) {
  if (shutting_down_) return;  // the inhibitor stays held until the save is done
  inhibitor_.reset();
  login1_owner_.reset();
  log::warn("logind: system bus: " + error.message + "; retrying in " + seconds(retry_next_));
  retry_later();
}

void LogindWatch::retry_later() {
  retry_.expires_after(retry_next_);
  retry_next_ = std::min(retry_next_ * 2, limits::kLogindRetryMax);
  retry_.async_wait([this, alive = std::weak_ptr<int>(alive_)](const boost::system::error_code& ec) {
    if (!ec && !alive.expired()) connect();
  });
}

}  // namespace signaltty::broker
