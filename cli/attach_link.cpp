// cli/attach_link.cpp: the attach client's non-blocking broker connection.
// Runs in: CLI. Never: resubmits a request; a lost connection ends the
// session and the user decides what to do again.
#include "cli/attach_link.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "cli/client.hpp"
#include "common/limits.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;
using Clock = std::chrono::steady_clock;

// Bytes asked of read() at a time.
constexpr std::size_t kReadChunkBytes = 64u << 10;

int poll_timeout_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 1 << 30));
}

Error broker_gone() {
  return Error{ErrorCode::NoSuchServer, "the broker closed the connection"};
}

}  // namespace

Result<AttachLink> AttachLink::connect(const std::string& socket_path, uid_t uid) {
  SIGNALTTY_TRY(UniqueFd fd, connect_broker_socket(socket_path, uid));
  return adopt(std::move(fd));
}

AttachLink AttachLink::adopt(UniqueFd fd) {
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
  return AttachLink(std::move(fd));
}

std::string AttachLink::send(std::string_view method, const Json& params) {
  std::string id = "a" + std::to_string(next_request_++);
  outbox_ += protocol::encode_request(id, method, params, token_);
  return id;
}

Result<Json> AttachLink::call(std::string_view method, const Json& params,
                              Clock::time_point deadline) {
  const std::string id = send(method, params);
  std::deque<ServerMessage> held;
  for (;;) {
    while (auto message = next()) {
      auto* response = std::get_if<protocol::Response>(&*message);
      if (response == nullptr || response->id != id) {
        held.push_back(std::move(*message));
        continue;
      }
      messages_.insert(messages_.begin(), held.begin(), held.end());
      if (!response->ok) return std::move(response->error);
      return std::move(response->result);
    }
    messages_ = std::move(held);
    held.clear();
    if (eof_) return broker_gone();
    pollfd pfd{fd_.get(), poll_events(), 0};
    const int ready = ::poll(&pfd, 1, poll_timeout_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Error::from_errno(ErrorCode::IoError, "poll", errno);
    if (ready == 0)
      return Error{ErrorCode::Timeout, "no answer from the broker to " + std::string(method)};
    SIGNALTTY_RETURN_IF_ERROR(on_ready(pfd.revents));
  }
}

Status AttachLink::flush_all(Clock::time_point deadline) {
  while (!outbox_.empty()) {
    pollfd pfd{fd_.get(), POLLOUT, 0};
    const int ready = ::poll(&pfd, 1, poll_timeout_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Error::from_errno(ErrorCode::IoError, "poll", errno);
    if (ready == 0) return Error{ErrorCode::Timeout, "the broker is not reading"};
    SIGNALTTY_RETURN_IF_ERROR(write_some());
  }
  return {};
}

short AttachLink::poll_events() const {
  short events = eof_ ? 0 : POLLIN;
  if (!outbox_.empty()) events |= POLLOUT;
  return events;
}

Status AttachLink::on_ready(short revents) {
  if (revents & POLLOUT) SIGNALTTY_RETURN_IF_ERROR(write_some());
  if (revents & (POLLIN | POLLHUP | POLLERR)) SIGNALTTY_RETURN_IF_ERROR(read_some());
  return {};
}

std::optional<ServerMessage> AttachLink::next() {
  if (messages_.empty()) return std::nullopt;
  ServerMessage message = std::move(messages_.front());
  messages_.pop_front();
  return message;
}

Status AttachLink::write_some() {
  while (!outbox_.empty()) {
    const ssize_t n = ::send(fd_.get(), outbox_.data(), outbox_.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {};
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
      eof_ = true;
      outbox_.clear();
      return {};
    }
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "send", errno);
    outbox_.erase(0, static_cast<std::size_t>(n));
  }
  return {};
}

Status AttachLink::read_some() {
  char chunk[kReadChunkBytes];
  for (;;) {
    const ssize_t n = ::read(fd_.get(), chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno != ECONNRESET) return Error::from_errno(ErrorCode::IoError, "read", errno);
    if (n <= 0) {
      eof_ = true;
      break;
    }
    inbox_.append(chunk, static_cast<std::size_t>(n));
    if (static_cast<std::size_t>(n) < sizeof(chunk)) break;
  }
  return decode_lines();
}

Status AttachLink::decode_lines() {
  std::size_t start = 0;
  for (;;) {
    const auto newline = inbox_.find('\n', std::max(start, scanned_));
    if (newline == std::string::npos) break;
    SIGNALTTY_TRY(auto message, protocol::decode_server_line(
                                    std::string_view(inbox_).substr(start, newline - start)));
    messages_.push_back(std::move(message));
    start = newline + 1;
  }
  inbox_.erase(0, start);
  scanned_ = inbox_.size();
  if (inbox_.size() > limits::kMaxLineBytes)
    return Error{ErrorCode::BadProtocol, "the broker sent a line over the 16 MiB cap"};
  return {};
}

}  // namespace signaltty::cli
