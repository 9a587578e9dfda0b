// tests/integration/logind_shutdown_test.cpp: the broker saves before a
// system shutdown (docs/rules.md (Persistence), logind). Each test runs a private
// dbus-daemon and, on it, a fake org.freedesktop.login1 written with the
// broker's own D-Bus client: it answers Inhibit with one end of a pipe (EOF
// on the other end = inhibitor released), answers PreparingForShutdown and
// emits PrepareForShutdown. The broker finds the bus through
// DBUS_SYSTEM_BUS_ADDRESS.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "broker/dbus_connection.hpp"
#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using broker::DbusConnection;
namespace dbus = broker::dbus;

constexpr const char* kDbusDaemon = "/usr/bin/dbus-daemon";
// RequestName flag: fail rather than queue behind another owner.
constexpr std::uint32_t kDoNotQueue = 4;

// A bus that lets everyone do everything, on a socket under the test root.
std::string bus_config(const std::string& socket) {
  return R"(<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=)" + socket + R"(</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
)";
}

bool connectable(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  return ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
}

// A private dbus-daemon, killed with its process group at the end.
class PrivateBus {
 public:
  explicit PrivateBus(const TempDirs& dirs) : socket_(dirs.scratch("bus.sock")) {
    const std::string config = dirs.scratch("bus.conf");
    write_text_file(config, bus_config(socket_));
    SpawnSpec spec;
    spec.argv = {kDbusDaemon, "--config-file=" + config, "--nofork", "--nopidfile"};
    spec.stderr_path = dirs.scratch("bus.stderr");
    daemon_ = std::make_unique<ChildProcess>(spec);
    const Deadline deadline = deadline_after();
    while (!connectable(socket_)) {
      if (!daemon_->running() || Clock::now() >= deadline)
        throw HarnessError("dbus-daemon did not start: " + read_text_file(spec.stderr_path));
      daemon_->wait_exit(Clock::now() + std::chrono::milliseconds(20));
    }
  }
  std::string address() const { return "unix:path=" + socket_; }

 private:
  std::string socket_;
  std::unique_ptr<ChildProcess> daemon_;
};

// org.freedesktop.login1 on the private bus, on its own thread.
class FakeLogind {
 public:
  FakeLogind(const std::string& address, bool preparing) : preparing_(preparing) {
    std::promise<bool> named;
    auto named_future = named.get_future();
    bus_ = DbusConnection::create(
        io_, [this](dbus::Message& m) { on_call(m); },
        [&named, this](const Error&) {
          if (!named_set_.exchange(true)) named.set_value(false);
        });
    bus_->start(address, [this, &named] { request_name(named); });
    thread_ = std::thread([this] { io_.run(); });
    if (named_future.wait_until(deadline_after()) != std::future_status::ready ||
        !named_future.get())
      throw HarnessError("the fake logind could not own org.freedesktop.login1");
  }
  ~FakeLogind() {
    io_.stop();
    thread_.join();
    bus_->close();
  }

  // Waits until the broker holds an inhibitor.
  bool wait_inhibited(Deadline deadline) { return wait_for_fd(deadline) >= 0; }
  // True once the inhibitor's pipe reads EOF: every copy of its write end closed.
  bool wait_released(Deadline deadline) {
    const int fd = wait_for_fd(deadline);
    if (fd < 0) return false;
    pollfd p{fd, POLLIN, 0};
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (::poll(&p, 1, static_cast<int>(std::max<long long>(ms.count(), 0))) <= 0) return false;
    char byte = 0;
    return ::read(fd, &byte, 1) == 0;
  }
  bool released_now() { return wait_released(Clock::now()); }

  void emit_prepare(bool start) {
    boost::asio::post(io_, [this, start] {
      dbus::Message m = dbus::signal("/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                                     "PrepareForShutdown");
      dbus::BodyWriter body;
      body.put_bool(start);
      m.signature = "b";
      m.body = body.take();
      bus_->send(std::move(m));
    });
  }

  // A round trip to the broker's bus connection: once answered, the broker
  // has handled everything this fake sent it before.
  bool ping_broker(Deadline deadline) {
    auto answered = std::make_shared<std::promise<void>>();
    auto future = answered->get_future();
    boost::asio::post(io_, [this, answered] {
      bus_->call(dbus::method_call(broker_name(), "/", "org.freedesktop.DBus.Peer", "Ping"),
                 [answered](Result<dbus::Message>) { answered->set_value(); });
    });
    return future.wait_until(deadline) == std::future_status::ready;
  }

 private:
  void request_name(std::promise<bool>& named) {
    dbus::Message m = dbus::method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "RequestName");
    dbus::BodyWriter body;
    body.put_string("org.freedesktop.login1");
    body.put_u32(kDoNotQueue);
    m.signature = "su";
    m.body = body.take();
    bus_->call(std::move(m), [this, &named](Result<dbus::Message> reply) {
      if (!named_set_.exchange(true)) named.set_value(reply.ok());
    });
  }

  void on_call(dbus::Message& m) {
    if (m.type != dbus::MessageType::MethodCall) return;
    dbus::Message reply = dbus::method_return(m);
    dbus::BodyWriter body;
    if (m.member == "Inhibit" && m.signature == "ssss") {
      int ends[2];
      if (::pipe2(ends, O_CLOEXEC) != 0) return bus_->send(dbus::error_reply(m, "x.Failed"));
      reply.fds.emplace_back(ends[1]);  // sent, then closed here: the broker's copy is the last
      body.put_unix_fd(0);
      reply.signature = "h";
      std::lock_guard lock(mu_);
      inhibitor_read_.reset(ends[0]);
      broker_name_ = m.sender;
    } else if (m.member == "Get" && m.signature == "ss") {
      body.put_variant_bool(preparing_);
      reply.signature = "v";
    } else {
      return bus_->send(dbus::error_reply(m, "org.freedesktop.DBus.Error.UnknownMethod"));
    }
    reply.body = body.take();
    bus_->send(std::move(reply));
  }

  int wait_for_fd(Deadline deadline) {
    for (;;) {
      {
        std::lock_guard lock(mu_);
        if (inhibitor_read_.valid()) return inhibitor_read_.get();
      }
      if (Clock::now() >= deadline) return -1;
      ::poll(nullptr, 0, 10);
    }
  }
  std::string broker_name() {
    std::lock_guard lock(mu_);
    return broker_name_;
  }

  boost::asio::io_context io_;
  std::shared_ptr<DbusConnection> bus_;
  std::thread thread_;
  std::atomic<bool> named_set_{false};
  const bool preparing_;
  std::mutex mu_;
  UniqueFd inhibitor_read_;
  std::string broker_name_;
};

// base_env with logind on and the bus at `address` (or logind off).
std::vector<std::string> broker_env(const TempDirs& dirs, const std::string& address,
                                    bool logind) {
  std::vector<std::string> env;
  for (std::string& e : base_env(dirs))
    if (!e.starts_with("SIGNALTTY_LOGIND=")) env.push_back(std::move(e));
  env.push_back(std::string("SIGNALTTY_LOGIND=") + (logind ? "1" : "0"));
  env.push_back("DBUS_SYSTEM_BUS_ADDRESS=" + address);
  return env;
}

class Broker {
 public:
  Broker(const TempDirs& dirs, std::vector<std::string> env)
      : dirs_(dirs), stderr_(dirs.scratch("broker.stderr")) {
    SpawnSpec spec;
    spec.argv = {program_path("signaltty-broker")};
    spec.env = std::move(env);
    spec.stdout_path = stderr_;
    spec.stderr_path = stderr_;
    child_ = std::make_unique<ChildProcess>(spec);
  }
  // Connects once the socket answers; nullopt if the broker exited first.
  std::optional<Client> connect(Deadline deadline) {
    for (;;) {
      if (auto c = Client::try_connect(dirs_.socket_path())) return c;
      if (!child_->running() || Clock::now() >= deadline) return std::nullopt;
      child_->wait_exit(Clock::now() + std::chrono::milliseconds(20));
    }
  }
  ChildProcess& process() { return *child_; }
  std::string log() const { return read_text_file(stderr_); }

 private:
  const TempDirs& dirs_;
  std::string stderr_;
  std::unique_ptr<ChildProcess> child_;
};

class LogindShutdownTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kDbusDaemon)) GTEST_SKIP() << "dbus-daemon is not installed";
  }
  std::string snapshot() const { return read_text_file(dirs_.state_file("snapshot.json")); }

  TempDirs dirs_;
};

TEST_F(LogindShutdownTest, PrepareForShutdownTrueSavesReleasesTheInhibitorAndExitsZero) {
  PrivateBus bus(dirs_);
  FakeLogind logind(bus.address(), /*preparing=*/false);
  Broker broker(dirs_, broker_env(dirs_, bus.address(), true));
  auto client = broker.connect(deadline_after(kStartTimeout));
  ASSERT_TRUE(client) << broker.log();
  ASSERT_TRUE(logind.wait_inhibited(deadline_after())) << broker.log();
  client->call("workspace.create", {{"name", "saved-at-shutdown"}, {"cwd", dirs_.home()}});

  logind.emit_prepare(true);

  auto status = broker.process().wait_exit(deadline_after());
  ASSERT_TRUE(status) << broker.log();
  EXPECT_EQ(status->code, 0) << status->describe() << "\n" << broker.log();
  EXPECT_TRUE(logind.wait_released(deadline_after())) << "the inhibitor fd is still open";
  EXPECT_NE(snapshot().find("saved-at-shutdown"), std::string::npos) << snapshot();
}

TEST_F(LogindShutdownTest, PreparingForShutdownAlreadyTrueSavesAndExitsZero) {
  PrivateBus bus(dirs_);
  FakeLogind logind(bus.address(), /*preparing=*/true);
  Broker broker(dirs_, broker_env(dirs_, bus.address(), true));
  auto status = broker.process().wait_exit(deadline_after(kStartTimeout));
  ASSERT_TRUE(status) << broker.log();
  EXPECT_EQ(status->code, 0) << broker.log();
  EXPECT_TRUE(logind.wait_released(deadline_after()));
  EXPECT_TRUE(std::filesystem::exists(dirs_.state_file("snapshot.json")));
}

TEST_F(LogindShutdownTest, PrepareForShutdownFalseDoesNothing) {
  PrivateBus bus(dirs_);
  FakeLogind logind(bus.address(), /*preparing=*/false);
  Broker broker(dirs_, broker_env(dirs_, bus.address(), true));
  auto client = broker.connect(deadline_after(kStartTimeout));
  ASSERT_TRUE(client) << broker.log();
  ASSERT_TRUE(logind.wait_inhibited(deadline_after())) << broker.log();

  logind.emit_prepare(false);
  ASSERT_TRUE(logind.ping_broker(deadline_after())) << "the broker's bus link answers in order";

  EXPECT_TRUE(broker.process().running());
  EXPECT_FALSE(logind.released_now()) << "the inhibitor is still held";
  client->call("server.status");
  broker.process().send_signal(SIGTERM);
  auto status = broker.process().wait_exit(deadline_after());
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0);
}

// A listening socket standing in for the bus: a connect lands in its
// backlog even if nobody accepts.
UniqueFd listen_at(const std::string& path) {
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener.get(), 8) != 0)
    throw HarnessError("cannot listen at " + path);
  return listener;
}

TEST_F(LogindShutdownTest, EnabledWatchConnectsToTheConfiguredBusWithoutDelayingStartup) {
  const std::string path = dirs_.scratch("fake-bus.sock");
  UniqueFd listener = listen_at(path);
  Broker broker(dirs_, broker_env(dirs_, "unix:path=" + path, true));
  auto client = broker.connect(deadline_after(kStartTimeout));
  ASSERT_TRUE(client) << "a bus that never answers does not hold startup: " << broker.log();
  client->call("server.status");
  pollfd p{listener.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(kStepTimeout).count())), 1);
  UniqueFd accepted(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  EXPECT_TRUE(accepted.valid());
}

TEST_F(LogindShutdownTest, DisabledByEnvironmentNeverConnectsToTheBus) {
  // After the broker's whole life an empty backlog means it never tried.
  const std::string path = dirs_.scratch("fake-bus.sock");
  UniqueFd listener = listen_at(path);
  Broker broker(dirs_, broker_env(dirs_, "unix:path=" + path, false));
  auto client = broker.connect(deadline_after(kStartTimeout));
  ASSERT_TRUE(client) << broker.log();
  client->call("server.status");
  broker.process().send_signal(SIGTERM);
  auto status = broker.process().wait_exit(deadline_after());
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0);
  UniqueFd accepted(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  EXPECT_FALSE(accepted.valid()) << "the broker connected to the bus";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
