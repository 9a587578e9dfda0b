// cli/client.cpp: the CLI's blocking signaltty/1 connection.
// Runs in: CLI. Never: sends to a socket cli/socket_trust.hpp has not
// vouched for, raises SIGPIPE (sends use MSG_NOSIGNAL) or buffers
// more than one line past the 16 MiB cap.
#include "cli/client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstdlib>

#include "cli/socket_trust.hpp"
#include "common/limits.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;

// Bytes asked of read() at a time.
constexpr std::size_t kReadChunkBytes = 64u << 10;

bool means_not_running(int err) {
  return err == ENOENT || err == ECONNREFUSED || err == ENOTDIR;
}

// Milliseconds left before `deadline` for poll(); -1 waits forever.
int poll_timeout_ms(Deadline deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      *deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<std::int64_t>(left.count(), 1 << 30));
}

// How long to wait before retrying a connect() refused with EAGAIN (the
// broker's listen queue is full).
constexpr int kConnectRetryMs = 5;

// connect() to `addr`; with a deadline on a non-blocking socket, retried
// while the listen queue is full, and the socket made blocking again after.
int connect_until(int fd, const sockaddr_un& addr, Deadline deadline) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&addr);
  if (deadline) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  int rc;
  for (;;) {
    rc = ::connect(fd, sa, sizeof(addr));
    if (rc == 0) break;
    if (errno == EINTR) continue;
    if (!deadline || errno != EAGAIN || poll_timeout_ms(deadline) == 0) break;
    ::poll(nullptr, 0, std::min(kConnectRetryMs, poll_timeout_ms(deadline)));
  }
  const int saved = errno;
  if (deadline) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  errno = saved;
  return rc;
}

Status send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE)
      return Error{ErrorCode::IoError, "the broker closed the connection"};
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "send", errno);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace

std::string broker_not_running_message(const std::string& socket_path) {
  return "broker not running (nothing listens on " + socket_path +
         "); start it with `signaltty-broker` or `./packaging/dev.sh run`";
}

Result<UniqueFd> connect_broker_socket(const std::string& socket_path, uid_t uid,
                                       Deadline deadline) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof(addr.sun_path))
    return bad_params("socket path must be 1 to " + std::to_string(sizeof(addr.sun_path) - 1) +
                      " bytes: " + socket_path);
  socket_path.copy(addr.sun_path, socket_path.size());
  SIGNALTTY_RETURN_IF_ERROR(check_socket_directory(socket_path, uid));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return Error::from_errno(ErrorCode::IoError, "socket", errno);
  const int rc = connect_until(fd.get(), addr, deadline);
  if (rc < 0 && errno == EAGAIN)
    return Error{ErrorCode::Timeout, "the broker accepted no connection in time"};
  if (rc < 0 && means_not_running(errno))
    return Error{ErrorCode::NoSuchServer, broker_not_running_message(socket_path)};
  if (rc < 0) return Error::from_errno(ErrorCode::IoError, "connect", errno, socket_path);
  SIGNALTTY_RETURN_IF_ERROR(check_broker_peer(fd.get(), socket_path, uid));
  return fd;
}

std::string pane_token_from_env() {
  const char* token = std::getenv("SIGNALTTY_TOKEN");
  return token ? std::string(token) : std::string();
}

Result<Client> Client::connect(const std::string& socket_path, uid_t uid, Deadline deadline) {
  SIGNALTTY_TRY(UniqueFd fd, connect_broker_socket(socket_path, uid, deadline));
  return Client(std::move(fd));
}

Result<Json> Client::call(std::string_view method, const Json& params, Deadline deadline) {
  SIGNALTTY_TRY(std::string id, send_request(method, params));
  for (;;) {
    SIGNALTTY_TRY(auto line, next_line(deadline));
    if (!line)
      return Error{ErrorCode::IoError,
                   "the broker closed the connection before answering " + std::string(method)};
    auto* response = std::get_if<protocol::Response>(&line->message);
    if (response == nullptr) continue;  // an event: not what we wait for
    const bool ours = response->id == id;
    // A line the broker could not attribute (BAD_PROTOCOL) carries id null.
    const bool unattributed = response->id.is_null() && !response->ok;
    if (!ours && !unattributed) continue;
    if (!response->ok) return std::move(response->error);
    return std::move(response->result);
  }
}

Result<std::optional<ServerLine>> Client::next_line(Deadline deadline) {
  SIGNALTTY_TRY(auto text, read_line(deadline));
  if (!text) return std::optional<ServerLine>{};
  SIGNALTTY_TRY(auto message, protocol::decode_server_line(*text));
  return std::optional<ServerLine>(ServerLine{std::move(*text), std::move(message)});
}

Result<std::string> Client::send_request(std::string_view method, const Json& params) {
  std::string id = "c" + std::to_string(next_request_++);
  std::string line = protocol::encode_request(id, method, params, token_);
  if (line.size() > limits::kMaxLineBytes + 1)
    return bad_params("request exceeds the 16 MiB line cap");
  SIGNALTTY_RETURN_IF_ERROR(send_all(fd_.get(), line));
  return id;
}

Result<std::optional<std::string>> Client::read_line(Deadline deadline) {
  std::size_t scanned = 0;
  for (;;) {
    auto newline = buffer_.find('\n', scanned);
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return std::optional<std::string>(std::move(line));
    }
    scanned = buffer_.size();
    if (buffer_.size() > limits::kMaxLineBytes)
      return Error{ErrorCode::BadProtocol, "the broker sent a line over the 16 MiB cap"};
    if (eof_ && buffer_.empty()) return std::optional<std::string>{};
    if (eof_) return Error{ErrorCode::IoError, "the broker closed the connection mid-line"};
    SIGNALTTY_RETURN_IF_ERROR(fill_buffer(deadline));
  }
}

Status Client::fill_buffer(Deadline deadline) {
  pollfd pfd{fd_.get(), POLLIN, 0};
  int ready;
  do {
    ready = ::poll(&pfd, 1, poll_timeout_ms(deadline));
  } while (ready < 0 && errno == EINTR);
  if (ready < 0) return Error::from_errno(ErrorCode::IoError, "poll", errno);
  if (ready == 0) return Error{ErrorCode::Timeout, "no answer from the broker in time"};
  char chunk[kReadChunkBytes];
  ssize_t n;
  do {
    n = ::read(fd_.get(), chunk, sizeof(chunk));
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == ECONNRESET) n = 0;  // the broker dropped us: same as EOF
  if (n < 0) return Error::from_errno(ErrorCode::IoError, "read", errno);
  if (n == 0) eof_ = true;
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return {};
}

}  // namespace signaltty::cli
