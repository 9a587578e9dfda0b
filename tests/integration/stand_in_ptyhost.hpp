// tests/integration/stand_in_ptyhost.hpp: a stand-in for a ptyhost, served
// by a thread of the test on a pane socket, for what a real one cannot be
// made to do (refuse a snapshot, announce no features). It says hello as a
// live ptyhost of `pane_id` (this process, which it also reports as the
// pane's program, so the broker adopts it rather than closing a ptyhost
// that never started one) with wire version 1 and no features, then answers
// every control request ok in its reply shape, or as `answer` says, and
// keeps what it was asked. A test of a broken peer gives its own `hello`
// and bytes to send once the broker acknowledged it, and learns whether
// the broker hung up.
// Runs in: the integration test binary.
// Never: signals anything; its "program" is only reported.
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/protocol/frame.hpp"
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {

class StandInPtyhost {
 public:
  // A reply to send instead of the default one, or nullopt for the default.
  using Answer = std::function<std::optional<Json>(const Json& request)>;

  StandInPtyhost(const std::string& path, std::string pane_id, Answer answer = {},
                 std::optional<Json> hello = std::nullopt, std::string after_ack = {})
      : listener_(listen_unix_socket(path)),
        pane_id_(std::move(pane_id)),
        answer_(std::move(answer)),
        hello_(hello ? std::move(*hello) : default_hello(pane_id_)),
        after_ack_(std::move(after_ack)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~StandInPtyhost() {
    stop_ = true;
    thread_.join();
  }
  StandInPtyhost(const StandInPtyhost&) = delete;
  StandInPtyhost& operator=(const StandInPtyhost&) = delete;

  bool hung_up() const { return hung_up_; }

  // How many requests of `op` came (of `mode` too, when given).
  std::size_t asked(const std::string& op, const std::string& mode = "") const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const Json& r : requests_)
      if (r.value("op", "") == op && (mode.empty() || r.value("mode", "") == mode)) ++n;
    return n;
  }

  // The reply a real ptyhost would send to `request` when all is well, in
  // its op's reply shape (ptyhost_wire.hpp): the broker drops a ptyhost
  // whose reply does not decode.
  static Json ok_reply(const Json& request) {
    const std::string op = request.value("op", "");
    Json result = Json::object();
    if (op == "read") result = {{"text", ""}, {"next_seq", 0}};
    if (op == "resize") result = {{"cols", request.value("cols", 0)}, {"rows", request.value("rows", 0)}};
    return {{"op", "reply"}, {"rid", request["rid"]}, {"ok", true}, {"result", result}};
  }

 private:
  static Json default_hello(const std::string& pane_id) {
    return {{"op", "hello"}, {"version", 1}, {"min_version", 1}, {"features", 0},
            {"pane_id", pane_id}, {"ptyhost_pid", ::getpid()}, {"child_pid", ::getpid()},
            {"output_offset", 0}, {"cols", 80}, {"rows", 24}, {"meta", nullptr}};
  }

  static std::string control_frame(const Json& doc) {
    return protocol::encode_frame(protocol::FrameType::Control, doc.dump());
  }

  void serve() {
    pollfd p{listener_.get(), POLLIN, 0};
    while (!stop_ && ::poll(&p, 1, 50) == 0) {
    }
    if (stop_) return;
    UniqueFd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn || !send(conn.get(), control_frame(hello_))) return;
    protocol::FrameReader frames;
    char buf[4096];
    pollfd c{conn.get(), POLLIN, 0};
    bool acked = false;
    while (!stop_) {
      if (::poll(&c, 1, 50) <= 0) continue;
      const ssize_t n = ::read(conn.get(), buf, sizeof buf);
      if (n <= 0) {
        hung_up_ = true;
        return;
      }
      frames.append(std::string_view(buf, static_cast<std::size_t>(n)));
      for (;;) {
        auto frame = frames.next();
        if (!frame.ok()) return;  // the broker broke the framing: stop answering
        if (!frame->has_value()) break;
        if ((*frame)->type != protocol::FrameType::Control) continue;
        if (!acked) {
          acked = true;  // the HelloAck
          if (!after_ack_.empty() && !send(conn.get(), after_ack_)) return;
          continue;
        }
        if (!answer(conn.get(), Json::parse((*frame)->payload, nullptr, false))) return;
      }
    }
  }

  bool answer(int fd, const Json& request) {
    if (!request.is_object() || !request.contains("rid")) return true;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    std::optional<Json> reply = answer_ ? answer_(request) : std::nullopt;
    return send(fd, control_frame(reply ? *reply : ok_reply(request)));
  }

  static bool send(int fd, const std::string& bytes) {
    return ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  }

  UniqueFd listener_;
  std::string pane_id_;
  Answer answer_;
  Json hello_;
  std::string after_ack_;
  mutable std::mutex mutex_;
  std::vector<Json> requests_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> hung_up_{false};
  std::thread thread_;
};

}  // namespace signaltty::itest
