// tests/integration/attach_resize_test.cpp: pane.attach with a size whose
// snapshot then fails (docs/rules.md (Panes and PTYs), "Attach / detach"; "Resize and signals"):
// the PTY keeps the new size, so the store keeps it and pane.resized is
// published; the event and the state agree. A stand-in ptyhost served by
// this test answers every request but refuses the snapshot.
// Runs in: the integration test binary.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using AttachResize = PaneTest;

const std::string kPaneId = "pane_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

std::string control_frame(const Json& doc) {
  const std::string body = doc.dump();
  std::string frame(4, '\0');
  const auto len = static_cast<std::uint32_t>(body.size() + 1);
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((len >> (8 * i)) & 0xff);
  frame += '\x01';
  return frame + body;
}

// Says hello as a live ptyhost of kPaneId (this process, which it also
// reports as the pane's program, so the broker adopts it rather than
// closing a ptyhost that never started one), then answers every control
// request ok in its reply shape, except `stream`, which it refuses.
class SnapshotRefusingPtyhost {
 public:
  explicit SnapshotRefusingPtyhost(const std::string& path)
      : listener_(listen_unix_socket(path)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~SnapshotRefusingPtyhost() {
    stop_ = true;
    thread_.join();
  }

 private:
  void serve() {
    pollfd p{listener_.get(), POLLIN, 0};
    while (!stop_ && ::poll(&p, 1, 50) == 0) {
    }
    if (stop_) return;
    UniqueFd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    const Json hello{{"op", "hello"}, {"version", 1}, {"min_version", 1}, {"features", 0},
                     {"pane_id", kPaneId}, {"ptyhost_pid", ::getpid()}, {"child_pid", ::getpid()},
                     {"output_offset", 0}, {"cols", 80}, {"rows", 24}, {"meta", nullptr}};
    if (!conn || !send(conn.get(), control_frame(hello))) return;
    std::string in;
    char buf[4096];
    pollfd c{conn.get(), POLLIN, 0};
    bool acked = false;
    while (!stop_) {
      if (::poll(&c, 1, 50) <= 0) continue;
      const ssize_t n = ::read(conn.get(), buf, sizeof buf);
      if (n <= 0) return;
      in.append(buf, static_cast<std::size_t>(n));
      while (in.size() >= 5) {
        std::uint32_t len = 0;
        for (int i = 3; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(in[i]);
        if (in.size() < 4 + len) break;
        const std::string payload = in.substr(5, len - 1);
        const bool control = in[4] == '\x01';
        in.erase(0, 4 + len);
        if (!control) continue;
        if (!acked) {
          acked = true;  // the HelloAck
          continue;
        }
        if (!answer(conn.get(), Json::parse(payload, nullptr, false))) return;
      }
    }
  }

  // Each answer has its op's reply shape (ptyhost_wire.hpp): the broker
  // drops a ptyhost whose reply does not decode.
  static bool answer(int fd, const Json& request) {
    if (!request.is_object() || !request.contains("rid")) return true;
    const std::string op = request.value("op", "");
    Json result = Json::object();
    if (op == "read") result = {{"text", ""}, {"next_seq", 0}};
    if (op == "resize") result = {{"cols", request.value("cols", 0)}, {"rows", request.value("rows", 0)}};
    Json reply{{"op", "reply"}, {"rid", request["rid"]}, {"ok", true}, {"result", result}};
    if (op == "stream") {
      reply["ok"] = false;
      reply["error"] = {{"code", "IO_ERROR"}, {"message", "the test refuses snapshots"}};
    }
    return send(fd, control_frame(reply));
  }

  static bool send(int fd, const std::string& bytes) {
    return ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  }

  UniqueFd listener_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(AttachResize, AFailedSnapshotKeepsTheNewSizeAndItsEvent) {
  start();
  broker().sigterm();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  SnapshotRefusingPtyhost fake(dirs_.socket_dir() + "/panes/" + kPaneId + ".sock");
  start();
  Client client = connect();
  Client watcher = connect();
  watcher.call("subscribe", {{"events", {"pane.resized"}}});
  ASSERT_TRUE(wait_until([&] { return is_ok(client.request("pane.get", {{"pane_id", kPaneId}})); }));
  Json attach = client.request("pane.attach", {{"pane_id", kPaneId}, {"cols", 100}, {"rows", 30}});
  ASSERT_FALSE(is_ok(attach)) << attach.dump();
  Json pane = get_pane(client, kPaneId);
  EXPECT_EQ(pane["pty_size"], Json({{"cols", 100}, {"rows", 30}}));
  auto ev = watcher.next_event(deadline_after());
  ASSERT_TRUE(ev.has_value()) << "the size changed without pane.resized";
  EXPECT_EQ((*ev)["event"], "pane.resized");
  EXPECT_EQ((*ev)["payload"]["pane"]["pty_size"], pane["pty_size"]);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
