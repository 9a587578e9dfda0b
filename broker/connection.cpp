// broker/connection.cpp: framing, peer check and the bounded write queue.
// Runs in: broker (io thread).
#include "broker/connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "common/heap_trim.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"
#include "common/protocol/envelope.hpp"

namespace signaltty::broker {
namespace asio = boost::asio;

namespace {
// One read(2) worth; lines longer than this simply span several reads.
constexpr std::size_t kReadChunkBytes = 64 * 1024;
// A line buffer whose line has gone keeps at most this much room: past it,
// the room a long line took is given back, so a client that sent one near
// the 16 MiB limit and went quiet holds no more than any other.
constexpr std::size_t kKeptLineBufferBytes = 2 * kReadChunkBytes;
// After a request line this long has been handled, or a connection holding
// this much output is dropped, the broker hands the heap's free pages back
// to the kernel (give_back_free_heap). glibc would keep that room, in holes below
// the heap's top: 24 quiet clients that each sent a 15 MiB line once left
// the broker about 100 MiB larger, and ten dropped viewers 590 MiB.
constexpr std::size_t kTrimAfterBytes = 1u << 20;
// Lines handed to one gathered write, to bound iovec arrays.
constexpr std::size_t kMaxLinesPerWrite = 256;
}  // namespace

Connection::Connection(Socket socket, std::uint64_t id, std::size_t queue_cap_bytes,
                       std::shared_ptr<OutputBudget> budget, LineHandler on_line,
                       CloseHandler on_close)
    : socket_(std::move(socket)),
      id_(id),
      on_line_(std::move(on_line)),
      on_close_(std::move(on_close)),
      read_chunk_(new char[kReadChunkBytes]),
      out_(queue_cap_bytes, OverflowPolicy::kDropReader),
      budget_(std::move(budget)) {
  if (budget_) budget_->enroll(*this);
}

Connection::~Connection() {
  if (!budget_) return;
  budget_->withdraw(*this);
  budget_->moved(accounted_, 0);
}

void Connection::start() {
  if (!peer_is_owner()) {
    send(protocol::encode_error(nullptr, Error{ErrorCode::Forbidden,
                                               "peer uid is not the socket owner's"}));
    close_after_flush();
    return;
  }
  read_more();
}

bool Connection::peer_is_owner() {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    log::warn("connection " + std::to_string(id_) + ": SO_PEERCRED failed; refusing");
    return false;
  }
  peer_pid_ = cred.pid;
  if (cred.uid == ::geteuid()) return true;
  log::warn("connection " + std::to_string(id_) + ": refused peer uid " +
            std::to_string(cred.uid) + " pid " + std::to_string(cred.pid));
  return false;
}

void Connection::read_more() {
  if (reading_stopped_ || closed_) return;
  socket_.async_read_some(asio::buffer(read_chunk_.get(), kReadChunkBytes),
                          [self = self()](const boost::system::error_code& ec, std::size_t n) {
                            if (ec) {
                              self->close_now();
                              return;
                            }
                            self->on_read(n);
                          });
}

void Connection::on_read(std::size_t n) {
  if (closed_ || reading_stopped_) return;
  inbuf_.append(read_chunk_.get(), n);
  drain_lines();
  if (!reading_stopped_ && !closed_) read_more();
}

void Connection::drain_lines() {
  std::size_t start = 0;
  bool trim = false;
  while (!reading_stopped_ && !closed_) {
    std::size_t nl = inbuf_.find('\n', std::max(scanned_, start));
    if (nl == std::string::npos) break;
    std::string_view line(inbuf_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    scanned_ = nl + 1;
    if (line.size() > limits::kMaxLineBytes) {
      refuse_overlong_line();
      return;
    }
    if (!line.empty()) on_line_(self(), line);
    trim = trim || line.size() >= kTrimAfterBytes;
    start = nl + 1;
  }
  inbuf_.erase(0, start);
  shrink_when_small(inbuf_, kKeptLineBufferBytes);
  if (trim) give_back_free_heap();
  scanned_ = inbuf_.size();
  // The cap holds while reading: a partial line never grows past it.
  if (inbuf_.size() > limits::kMaxLineBytes) refuse_overlong_line();
}

void Connection::refuse_overlong_line() {
  Error e{ErrorCode::BadProtocol, "request line exceeds the 16 MiB limit; closing"};
  e.details = {{"limit_bytes", limits::kMaxLineBytes}};
  inbuf_.clear();
  inbuf_.shrink_to_fit();
  send(protocol::encode_error(nullptr, e));
  close_after_flush();
}

void Connection::send(std::string line) {
  if (closed_) return;
  const std::size_t queued_bytes = out_.bytes() + line.size();
  if (!out_.push(std::move(line))) {
    log::warn("connection " + std::to_string(id_) + ": client is not reading (" +
              std::to_string(queued_bytes) + " bytes queued); disconnecting");
    close_now();
    return;
  }
  account();
  if (closed_) return;  // shed: the clients together were over the budget
  flush();
}

void Connection::account() {
  const std::size_t before = accounted_;
  accounted_ = out_.bytes();
  if (budget_) budget_->moved(before, accounted_);
}

void Connection::shed(std::size_t total_bytes, std::size_t budget_bytes) {
  log::warn("connection " + std::to_string(id_) + ": clients hold " +
            std::to_string(total_bytes) + " bytes of output together, past the budget of " +
            std::to_string(budget_bytes) + "; this one, not reading, holds the most (" +
            std::to_string(out_.bytes()) + "); disconnecting");
  close_now();
}

void Connection::flush() {
  if (write_in_flight_ || closed_) return;
  if (out_.empty()) {
    if (closing_) close_now();
    return;
  }
  writing_ = out_.take_batch(kMaxLinesPerWrite);
  std::vector<asio::const_buffer> bufs;
  bufs.reserve(writing_.size());
  for (const auto& s : writing_) bufs.emplace_back(asio::buffer(s));
  write_in_flight_ = true;
  asio::async_write(socket_, bufs,
                    [self = self()](const boost::system::error_code& ec, std::size_t) {
                      self->write_in_flight_ = false;
                      if (self->closed_) {
                        self->after_closed_write();
                        return;
                      }
                      if (ec) {
                        self->close_now();
                        return;
                      }
                      self->on_written();
                    });
}

void Connection::on_written() {
  if (closed_) return;
  out_.finish_batch();
  writing_.clear();
  account();
  flush();
}

// The write that was in flight when the connection closed has ended: its
// lines can go, and with them the room a dropped queue took.
void Connection::after_closed_write() {
  writing_.clear();
  writing_.shrink_to_fit();
  if (std::exchange(trim_after_write_, false)) give_back_free_heap();
}

void Connection::close_after_flush() {
  if (closed_) return;
  reading_stopped_ = true;
  closing_ = true;
  if (!write_in_flight_ && out_.empty()) close_now();
}

void Connection::close_now() {
  if (closed_) return;
  closed_ = true;
  reading_stopped_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(Socket::shutdown_both, ignored);
  socket_.close(ignored);
  // A queue dropped at its cap was emptied by the failed push; it still
  // says what it held.
  const bool held_much = out_.bytes() + out_.dropped_bytes() >= kTrimAfterBytes;
  out_.clear();
  account();
  if (budget_) budget_->withdraw(*this);
  if (!write_in_flight_) writing_.clear();
  if (held_much) {
    if (write_in_flight_) trim_after_write_ = true;
    else give_back_free_heap();
  }
  cancel_single_flight();
  // Deferred: the caller may be walking a container the handler erases from.
  asio::post(socket_.get_executor(), [self = self()] {
    if (self->on_close_) self->on_close_(self->id_);
  });
}

}  // namespace signaltty::broker
