// ptyhost/pty_input.hpp: PtyInput, the FIFO of bytes on their way into the
// PTY master (docs/rules.md "Input"): non-blocking writes, a wait for writability
// on EAGAIN, each request bounded by its budget.
// Runs in: ptyhost, on the event loop's thread.
// Never: blocks the loop, retries or rolls back a partial write, or writes
// a request's bytes after that request has been answered.
//
// Usage:
//   PtyInput input(io, master, [&](std::uint64_t rid, Result<Json> r) { reply(rid, r); });
//   input.push(InputRequest{rid, budget_ms, bytes});  // → {written: n} or an error
//   input.fail_all(ErrorCode::PaneExited, "...");  // the program exited
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/errors.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::ptyhost {

struct InputRequest {
  std::optional<std::uint64_t> rid;  // empty: the ptyhost's own bytes, no reply
  std::chrono::milliseconds budget{0};
  std::string bytes;
};

class PtyInput {
 public:
  // Replies {written} on success; TIMEOUT / PANE_EXITED / IO_ERROR carry
  // details.written_bytes (the prefix the kernel accepted).
  using ReplyFn = std::function<void(std::uint64_t rid, Result<protocol::Json>)>;

  PtyInput(boost::asio::io_context& io, boost::asio::posix::stream_descriptor& master,
           ReplyFn reply);

  void push(InputRequest request);
  // Answers every queued request with `code` (e.g. PANE_EXITED at exit).
  void fail_all(ErrorCode code, const std::string& why);
  // Forgets every queued request without a reply (their broker is gone).
  void drop_all();
  std::size_t queued_bytes() const { return queued_bytes_; }

 private:
  struct Pending {
    InputRequest request;
    std::chrono::steady_clock::time_point deadline;
    std::size_t written = 0;
  };

  void pump();
  void arm(std::chrono::steady_clock::time_point deadline);
  void finish(Result<protocol::Json> outcome);
  Error failure(ErrorCode code, std::string message) const;

  boost::asio::posix::stream_descriptor& master_;
  boost::asio::steady_timer deadline_;
  ReplyFn reply_;
  std::deque<Pending> queue_;
  std::size_t queued_bytes_ = 0;
  bool write_wait_armed_ = false;
};

}  // namespace signaltty::ptyhost
