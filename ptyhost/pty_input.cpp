// ptyhost/pty_input.cpp: the input FIFO's write loop. Runs in: ptyhost.
#include "ptyhost/pty_input.hpp"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace signaltty::ptyhost {

using protocol::Json;
using Clock = std::chrono::steady_clock;

PtyInput::PtyInput(boost::asio::io_context& io, boost::asio::posix::stream_descriptor& master,
                   ReplyFn reply)
    : master_(master), deadline_(io), reply_(std::move(reply)) {}

void PtyInput::push(InputRequest request) {
  const auto deadline = Clock::now() + request.budget;
  queued_bytes_ += request.bytes.size();
  queue_.push_back(Pending{std::move(request), deadline, 0});
  if (queue_.size() == 1) pump();
}

void PtyInput::fail_all(ErrorCode code, const std::string& why) {
  while (!queue_.empty()) finish(failure(code, why));
  deadline_.cancel();
}

void PtyInput::drop_all() {
  queue_.clear();
  queued_bytes_ = 0;
  deadline_.cancel();
}

Error PtyInput::failure(ErrorCode code, std::string message) const {
  Error e{code, std::move(message)};
  e.details = {{"written_bytes", queue_.front().written}};
  return e;
}

void PtyInput::finish(Result<Json> outcome) {
  Pending done = std::move(queue_.front());
  queue_.pop_front();
  queued_bytes_ -= done.request.bytes.size();
  if (done.request.rid) reply_(*done.request.rid, std::move(outcome));
}

// Writes the head until it is done, the kernel pushes back, or it fails;
// then the next one. Returns with a wait armed when the PTY is full.
void PtyInput::pump() {
  while (!queue_.empty()) {
    Pending& head = queue_.front();
    if (Clock::now() >= head.deadline) {
      finish(failure(ErrorCode::Timeout, "input budget spent before the PTY took every byte"));
      continue;
    }
    const std::string& bytes = head.request.bytes;
    const ssize_t n = ::write(master_.native_handle(), bytes.data() + head.written,
                              bytes.size() - head.written);
    if (n > 0) {
      head.written += static_cast<std::size_t>(n);
      if (head.written == bytes.size()) finish(Json{{"written", head.written}});
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return arm(head.deadline);
    if (n == 0) {
      finish(failure(ErrorCode::IoError, "write: the PTY accepted zero bytes"));
    } else if (errno == EIO) {
      finish(failure(ErrorCode::PaneExited, "write: the PTY is closed (EIO)"));
    } else {
      const int err = errno;
      Error e = Error::from_errno(ErrorCode::IoError, "write", err, "pty");
      e.details = {{"written_bytes", head.written}, {"errno", err}};
      finish(std::move(e));
    }
  }
  deadline_.cancel();
}

// One writability wait at a time; the deadline timer follows the head.
void PtyInput::arm(Clock::time_point deadline) {
  deadline_.expires_at(deadline);
  deadline_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) pump();
  });
  if (write_wait_armed_) return;
  write_wait_armed_ = true;
  master_.async_wait(boost::asio::posix::stream_descriptor::wait_write,
                     [this](const boost::system::error_code& ec) {
                       write_wait_armed_ = false;
                       if (!ec) pump();
                     });
}

}  // namespace signaltty::ptyhost
