// tests/bench/bench_broker.cpp: the broker's request path under load, as
// figures side by side from one run:
//   - pipelined server.status over 1 and over 16 connections (req/s, p50/p99)
//   - workspace.rename from 16 concurrent clients with group commit on and
//     off (events/s, journal syncs per event, and the ratio between them).
// Runs in: a benchmark process that starts the real signaltty-broker on
// temporary XDG dirs. Never: touches the user's broker or dirs.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Requests each read-only connection sends, and how many may be in flight.
constexpr int kStatusRequestsPerConn = 100000;
constexpr int kStatusRequestsPer16Conn = 20000;
constexpr int kPipelineDepth = 128;
// Renames per client, and how many each client keeps in flight.
constexpr int kRenamesPerClient = 400;
constexpr int kRenameDepth = 4;
constexpr int kClients = 16;

struct Broker {
  pid_t pid = -1;
  std::string root;
  std::string socket;
};

void must(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

int connect_to(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  must(fd >= 0, "socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A blocking line client: enough for a benchmark driver.
class LineClient {
 public:
  explicit LineClient(const std::string& path) : fd_(connect_to(path)) {
    must(fd_ >= 0, "connect");
  }
  ~LineClient() { ::close(fd_); }
  void send(const std::string& data) {
    std::size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::write(fd_, data.data() + off, data.size() - off);
      must(n > 0, "write");
      off += static_cast<std::size_t>(n);
    }
  }
  std::string read_line() {
    for (;;) {
      auto nl = buf_.find('\n', pos_);
      if (nl != std::string::npos) {
        std::string line = buf_.substr(pos_, nl - pos_);
        pos_ = nl + 1;
        if (pos_ > (1u << 20)) {
          buf_.erase(0, pos_);
          pos_ = 0;
        }
        return line;
      }
      char tmp[65536];
      ssize_t n = ::read(fd_, tmp, sizeof tmp);
      must(n > 0, "read");
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
  }
  Json call(const std::string& method, const Json& params) {
    send(request("x", method, params));
    Json r = Json::parse(read_line());
    if (!r.value("ok", false)) throw std::runtime_error(method + " failed: " + r.dump());
    return r["result"];
  }
  static std::string request(const std::string& id, const std::string& method, const Json& params) {
    return Json{{"protocol", "signaltty/1"}, {"id", id}, {"method", method}, {"params", params}}
               .dump() + "\n";
  }

 private:
  int fd_;
  std::string buf_;
  std::size_t pos_ = 0;
};

Broker start_broker(const std::vector<std::string>& extra) {
  Broker b;
  char tmpl[] = "/tmp/signaltty-bench-XXXXXX";
  must(::mkdtemp(tmpl) != nullptr, "mkdtemp");
  b.root = tmpl;
  std::filesystem::create_directories(b.root + "/run");
  ::chmod((b.root + "/run").c_str(), 0700);
  b.socket = b.root + "/run/signaltty/signaltty.sock";
  b.pid = ::fork();
  must(b.pid >= 0, "fork");
  if (b.pid == 0) {
    ::setpgid(0, 0);
    ::setenv("XDG_RUNTIME_DIR", (b.root + "/run").c_str(), 1);
    ::setenv("XDG_STATE_HOME", (b.root + "/state").c_str(), 1);
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 2);
    std::string bin = std::string(SIGNALTTY_BIN_DIR) + "/signaltty-broker";
    std::vector<char*> argv{const_cast<char*>(bin.c_str()),
                            const_cast<char*>("--log-level"), const_cast<char*>("warn")};
    for (const auto& e : extra) argv.push_back(const_cast<char*>(e.c_str()));
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    int fd = connect_to(b.socket);
    if (fd >= 0) {
      ::close(fd);
      return b;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling the start, bounded
  }
  throw std::runtime_error("broker did not start");
}

void stop_broker(Broker& b) {
  ::kill(b.pid, SIGTERM);
  int status = 0;
  ::waitpid(b.pid, &status, 0);
  std::filesystem::remove_all(b.root);
}

struct Latencies {
  std::vector<double> us;
  double pct(double p) {
    if (us.empty()) return 0;
    std::sort(us.begin(), us.end());
    return us[std::min(us.size() - 1, static_cast<std::size_t>(p * us.size()))];
  }
};

// Sends `count` requests keeping `depth` in flight; records each latency.
void pipelined(LineClient& c, int count, int depth, const std::vector<std::string>& lines,
               Latencies& lat) {
  std::vector<Clock::time_point> sent(static_cast<std::size_t>(count));
  int next = 0, done = 0;
  while (done < count) {
    std::string batch;
    while (next < count && next - done < depth) {
      sent[static_cast<std::size_t>(next)] = Clock::now();
      batch += lines[static_cast<std::size_t>(next) % lines.size()];
      ++next;
    }
    if (!batch.empty()) c.send(batch);
    c.read_line();
    lat.us.push_back(std::chrono::duration<double, std::micro>(
                         Clock::now() - sent[static_cast<std::size_t>(done)])
                         .count());
    ++done;
  }
}

struct Figure {
  double per_sec = 0;
  double p50_us = 0;
  double p99_us = 0;
};

Figure status_load(const Broker& b, int conns, int per_conn) {
  std::vector<std::thread> threads;
  std::vector<Latencies> lats(static_cast<std::size_t>(conns));
  std::vector<std::string> lines{LineClient::request("s", "server.status", Json::object())};
  auto t0 = Clock::now();
  for (int i = 0; i < conns; ++i)
    threads.emplace_back([&, i] {
      LineClient c(b.socket);
      pipelined(c, per_conn, kPipelineDepth, lines, lats[static_cast<std::size_t>(i)]);
    });
  for (auto& t : threads) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  Latencies all;
  for (auto& l : lats) all.us.insert(all.us.end(), l.us.begin(), l.us.end());
  return {conns * per_conn / secs, all.pct(0.50), all.pct(0.99)};
}

struct RenameFigure {
  Figure f;
  double syncs_per_event = 0;
};

RenameFigure rename_load(const Broker& b) {
  std::vector<std::string> ids;
  {
    LineClient setup(b.socket);
    for (int i = 0; i < kClients; ++i)
      ids.push_back(setup.call("workspace.create", {{"name", "w" + std::to_string(i)},
                                                    {"cwd", "/tmp"}})["workspace"]["id"]);
  }
  Json before = LineClient(b.socket).call("server.status", Json::object());
  std::vector<std::thread> threads;
  std::vector<Latencies> lats(kClients);
  auto t0 = Clock::now();
  for (int i = 0; i < kClients; ++i)
    threads.emplace_back([&, i] {
      std::vector<std::string> lines;
      for (int k = 0; k < 2; ++k)
        lines.push_back(LineClient::request(
            "r", "workspace.rename",
            {{"workspace_id", ids[static_cast<std::size_t>(i)]}, {"name", "n" + std::to_string(k)}}));
      LineClient c(b.socket);
      pipelined(c, kRenamesPerClient, kRenameDepth, lines, lats[static_cast<std::size_t>(i)]);
    });
  for (auto& t : threads) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  Json after = LineClient(b.socket).call("server.status", Json::object());
  double events = after.value("journal_events", 0.0) - before.value("journal_events", 0.0);
  double syncs = after.value("journal_syncs", 0.0) - before.value("journal_syncs", 0.0);
  Latencies all;
  for (auto& l : lats) all.us.insert(all.us.end(), l.us.begin(), l.us.end());
  return {{events / secs, all.pct(0.5), all.pct(0.99)}, events > 0 ? syncs / events : 0};
}

}  // namespace

int main() {
  ::signal(SIGPIPE, SIG_IGN);
  try {
    Broker b = start_broker({});
    Figure one = status_load(b, 1, kStatusRequestsPerConn);
    Figure sixteen = status_load(b, kClients, kStatusRequestsPer16Conn);
    RenameFigure on = rename_load(b);
    stop_broker(b);

    Broker off_b = start_broker({"--no-group-commit"});
    RenameFigure off = rename_load(off_b);
    stop_broker(off_b);

    std::printf("signaltty broker benchmark (one run; compare ratios, not absolutes)\n");
    std::printf("%-44s %12s %10s %10s\n", "case", "per second", "p50 us", "p99 us");
    std::printf("%-44s %12.0f %10.1f %10.1f\n", "server.status, 1 conn, pipelined", one.per_sec,
                one.p50_us, one.p99_us);
    std::printf("%-44s %12.0f %10.1f %10.1f\n", "server.status, 16 conns, pipelined",
                sixteen.per_sec, sixteen.p50_us, sixteen.p99_us);
    std::printf("%-44s %12.0f %10.1f %10.1f   syncs/event %.3f\n",
                "workspace.rename x16 clients, group commit", on.f.per_sec, on.f.p50_us,
                on.f.p99_us, on.syncs_per_event);
    std::printf("%-44s %12.0f %10.1f %10.1f   syncs/event %.3f\n",
                "workspace.rename x16 clients, one sync/event", off.f.per_sec, off.f.p50_us,
                off.f.p99_us, off.syncs_per_event);
    std::printf("group commit speedup: %.1fx events/s (goal >= 8x); read-only 1 conn: %.0f req/s "
                "(goal >= 50000)\n",
                off.f.per_sec > 0 ? on.f.per_sec / off.f.per_sec : 0.0, one.per_sec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_broker: %s\n", e.what());
    return 1;
  }
  return 0;
}
