// cli/attach.cpp: the attach session: setup calls, then one poll() loop
// over the keyboard, the broker connection and the signal pipe.
// Runs in: CLI. Never: prints a note while the terminal is raw, or writes
// pty.data bytes the cursor did not accept.
#include "cli/attach.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <map>
#include <memory>

#include "cli/exit_codes.hpp"
#include "cli/output_cursor.hpp"
#include "cli/raw_terminal.hpp"
#include "cli/signal_pipe.hpp"
#include "cli/terminal_text.hpp"
#include "common/base64.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;
using Clock = std::chrono::steady_clock;

// A setup call (pane.get, subscribe) that takes longer means a stuck broker.
constexpr std::chrono::seconds kSetupTimeout{10};
// How long a detach waits for the broker's reply before leaving anyway
// (closing the connection detaches too).
constexpr std::chrono::seconds kDetachReplyTimeout{2};
// Keyboard bytes read at once: one pane.input per read, far below its 1 MiB cap.
constexpr std::size_t kKeyboardChunkBytes = 64u << 10;
// Stop reading the keyboard while this much is still unwritten to the broker.
constexpr std::size_t kMaxUnsentBytes = 1u << 20;
// Written before a snapshot: home and erase, so nothing of the old screen
// shows through the replay.
constexpr std::string_view kClearScreen = "\x1b[H\x1b[2J";
// Exit status of a session ended by a terminating signal: 128 + signal.
constexpr int kSignalExitBase = 128;

// What the session ended with; printed once the terminal is restored.
struct Ending {
  int status = kExitOk;
  std::string note;   // stdout, on a line of its own
  std::string error;  // stderr
};

Ending failed(const Error& error) { return {exit_code_for(error), {}, error_line(error)}; }

constexpr std::string_view kBrokerClosed = "the broker closed the connection";
constexpr std::string_view kBrokerShutDown = "the broker shut down";

// `what` says how the broker went: kBrokerClosed or kBrokerShutDown.
Ending broker_gone(const std::string& pane_id, std::string_view what) {
  return {kExitBrokerNotRunning, {},
          error_line(Error{ErrorCode::NoSuchServer,
                           std::string(what) + "; the pane keeps running (reattach with "
                           "`signaltty attach " + pane_id + "` once the broker is back)"})};
}

Status write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, -1);
      continue;
    }
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "write", errno, "the terminal");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<std::int64_t>(left.count(), 0));
}

template <class T>
Result<T> decode_reply(const Json& json, std::string_view what) {
  auto decoded = protocol::decode<T>(json);
  if (!decoded.ok())
    return Error{ErrorCode::BadProtocol,
                 "unexpected " + std::string(what) + " from the broker: " + decoded.error().message};
  return decoded;
}

std::string exit_note_of(const protocol::Pane& pane) {
  std::optional<int> code;
  std::optional<std::string> signal;
  if (pane.exit_code && pane.exit_code->has_value()) code = **pane.exit_code;
  if (!code && pane.live.code && pane.live.code->has_value()) code = **pane.live.code;
  if (pane.exit_signal && pane.exit_signal->has_value()) signal = **pane.exit_signal;
  return exit_note(code, signal);
}

// What an outstanding request was for.
enum class Pending { Attach, Input, Resize, Detach, ExitInfo };

class AttachSession {
 public:
  AttachSession(AttachLink& link, const AttachOptions& options, const TerminalIo& io,
                std::string pane_id, SignalPipe& signals)
      : link_(link), options_(options), io_(io), pane_id_(std::move(pane_id)),
        signals_(signals), filter_(options.detach_key), terminal_(io.in_fd, io.out_fd) {}

  Ending run();

 private:
  void poll_once();
  void request_attach();
  void request_exit_info();
  void send_resize_if_changed();
  void on_signals();
  void on_keyboard();
  void on_message(ServerMessage& message);
  void on_response(protocol::Response& response);
  void on_attached(const Json& result);
  void on_input_error(const Error& error);
  void on_event(const protocol::EventMessage& event);
  void on_output(const Json& payload);
  void write_screen(std::string_view bytes);
  void end(Ending ending) {
    if (!ending_) ending_ = std::move(ending);
  }

  AttachLink& link_;
  const AttachOptions& options_;
  const TerminalIo& io_;
  const std::string pane_id_;
  SignalPipe& signals_;
  DetachKeyFilter filter_;
  RawTerminal terminal_;
  OutputCursor cursor_;
  std::map<std::string, Pending> pending_;  // request id → purpose
  std::optional<protocol::PtySize> size_;   // last size sent to the broker
  std::optional<Ending> ending_;
  std::optional<Clock::time_point> detach_deadline_;
  bool awaiting_snapshot_ = false;  // an attach is in flight: drop pty.data
  bool keyboard_open_ = true;
  bool broker_shutting_down_ = false;
};

Ending AttachSession::run() {
  if (auto entered = terminal_.enter(); !entered.ok()) return failed(entered.error());
  size_ = terminal_size(io_.out_fd);
  request_attach();
  while (!ending_) poll_once();
  terminal_.restore();
  return std::move(*ending_);
}

void AttachSession::poll_once() {
  const bool read_keyboard =
      keyboard_open_ && !detach_deadline_ && link_.unsent_bytes() < kMaxUnsentBytes;
  pollfd fds[3] = {{signals_.read_fd(), POLLIN, 0},
                   {link_.fd(), link_.poll_events(), 0},
                   {read_keyboard ? io_.in_fd : -1, POLLIN, 0}};
  const int timeout_ms = detach_deadline_ ? ms_until(*detach_deadline_) : -1;
  const int ready = ::poll(fds, 3, timeout_ms);
  if (ready < 0 && errno == EINTR) return;
  if (ready < 0) return end(failed(Error::from_errno(ErrorCode::IoError, "poll", errno)));
  if (ready == 0 && detach_deadline_) return end({kExitOk, "[detached from " + printable(pane_id_) + "]", {}});
  if (fds[0].revents) on_signals();
  if (fds[1].revents)
    if (auto status = link_.on_ready(fds[1].revents); !status.ok()) return end(failed(status.error()));
  while (auto message = link_.next()) on_message(*message);
  if (link_.closed())
    end(broker_gone(pane_id_, broker_shutting_down_ ? kBrokerShutDown : kBrokerClosed));
  if (fds[2].revents && !ending_) on_keyboard();
}

void AttachSession::request_attach() {
  Json params = {{"pane_id", pane_id_}, {"mark_seen", options_.mark_seen}};
  if (size_) {
    params["cols"] = size_->cols;
    params["rows"] = size_->rows;
  }
  pending_[link_.send(protocol::PaneAttach::name, params)] = Pending::Attach;
  awaiting_snapshot_ = true;
}

void AttachSession::request_exit_info() {
  pending_[link_.send(protocol::PaneGet::name, {{"pane_id", pane_id_}})] = Pending::ExitInfo;
}

void AttachSession::send_resize_if_changed() {
  auto size = terminal_size(io_.out_fd);
  if (!size || size == size_) return;
  size_ = size;
  const Json params = {{"pane_id", pane_id_}, {"cols", size->cols}, {"rows", size->rows}};
  pending_[link_.send(protocol::PaneResize::name, params)] = Pending::Resize;
}

void AttachSession::on_signals() {
  for (int sig : signals_.drain()) {
    if (sig == SIGWINCH) {
      send_resize_if_changed();
    } else if (sig == SIGCONT) {
      terminal_.reapply();
      send_resize_if_changed();
    } else if (sig != SIGPIPE) {
      return end({kSignalExitBase + sig, {}, {}});
    }
  }
}

void AttachSession::on_keyboard() {
  char bytes[kKeyboardChunkBytes];
  const ssize_t n = ::read(io_.in_fd, bytes, sizeof(bytes));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    keyboard_open_ = false;  // no more input; the output keeps streaming
    return;
  }
  DetachKeyFilter::Step step = filter_.feed({bytes, static_cast<std::size_t>(n)});
  if (!step.forward.empty()) {
    const Json params = {{"pane_id", pane_id_}, {"data_b64", base64_encode(step.forward)}};
    pending_[link_.send(protocol::PaneInput::name, params)] = Pending::Input;
  }
  if (step.detach) {
    pending_[link_.send(protocol::PaneDetach::name, {{"pane_id", pane_id_}})] = Pending::Detach;
    detach_deadline_ = Clock::now() + kDetachReplyTimeout;
  }
}

void AttachSession::on_message(ServerMessage& message) {
  if (ending_) return;
  if (auto* response = std::get_if<protocol::Response>(&message)) return on_response(*response);
  on_event(std::get<protocol::EventMessage>(message));
}

void AttachSession::on_response(protocol::Response& response) {
  auto it = response.id.is_string() ? pending_.find(response.id.get<std::string>()) : pending_.end();
  if (it == pending_.end()) {
    if (!response.ok) end(failed(response.error));  // a line the broker could not attribute
    return;
  }
  const Pending purpose = it->second;
  pending_.erase(it);
  switch (purpose) {
    case Pending::Attach:
      if (!response.ok) return end(failed(response.error));
      return on_attached(response.result);
    case Pending::Input:
      if (!response.ok) on_input_error(response.error);
      return;
    case Pending::Resize:
      return;  // a refused resize leaves the pane at its size; nothing to undo
    case Pending::Detach:
      return end({kExitOk, "[detached from " + printable(pane_id_) + "]", {}});
    case Pending::ExitInfo: {
      auto got = decode_reply<protocol::PaneGetResult>(response.result, "pane.get reply");
      return end({kExitOk, response.ok && got.ok() ? exit_note_of(got->pane) : exit_note({}, {}), {}});
    }
  }
}

void AttachSession::on_attached(const Json& result) {
  auto attached = decode_reply<protocol::PaneAttachResult>(result, "attach reply");
  if (!attached.ok()) return end(failed(attached.error()));
  auto snapshot = base64_decode(attached->snapshot_b64);
  if (!snapshot) return end(failed(Error{ErrorCode::BadProtocol, "attach snapshot is not base64"}));
  write_screen(std::string(kClearScreen) + *snapshot);
  cursor_.reset(attached->output_offset);
  awaiting_snapshot_ = false;
  if (!attached->live) request_exit_info();
}

void AttachSession::on_input_error(const Error& error) {
  if (error.code == ErrorCode::PaneExited) return request_exit_info();
  if (error.code == ErrorCode::NoSuchPane) return end({kExitOk, "[pane closed]", {}});
  end(failed(error));
}

void AttachSession::on_event(const protocol::EventMessage& event) {
  if (event.event == protocol::ev::ServerWillShutdown::name) {
    broker_shutting_down_ = true;
    return;
  }
  if (event.payload.value("pane_id", "") != pane_id_) return;
  if (event.event == protocol::ev::PtyData::name) return on_output(event.payload);
  if (event.event == protocol::ev::PaneClosed::name) return end({kExitOk, "[pane closed]", {}});
  if (event.event != protocol::ev::PaneExited::name) return;
  auto exited = decode_reply<protocol::PaneExitedPayload>(event.payload, "pane.exited event");
  if (!exited.ok()) return end(failed(exited.error()));
  end({kExitOk, exit_note(exited->code.value, exited->signal.value), {}});
}

void AttachSession::on_output(const Json& payload) {
  if (awaiting_snapshot_) return;  // the coming snapshot covers it
  auto data = decode_reply<protocol::PtyDataPayload>(payload, "pty.data event");
  if (!data.ok()) return end(failed(data.error()));
  auto bytes = base64_decode(data->data_b64);
  if (!bytes) return end(failed(Error{ErrorCode::BadProtocol, "pty.data is not base64"}));
  const ChunkVerdict verdict = cursor_.accept(data->output_offset, *bytes);
  if (verdict.action == ChunkAction::Write) return write_screen(verdict.bytes);
  if (verdict.action == ChunkAction::Gap) request_attach();
}

void AttachSession::write_screen(std::string_view bytes) {
  if (auto status = write_all(io_.out_fd, bytes); !status.ok()) end(failed(status.error()));
}

// pane.get for the pane's real id, and the subscription that reports its
// exit, before the terminal goes raw: errors here print like any command's.
Result<std::string> prepare(AttachLink& link, const std::string& pane) {
  SIGNALTTY_TRY(Json got, link.call(protocol::PaneGet::name, {{"pane_id", pane}},
                                    Clock::now() + kSetupTimeout));
  SIGNALTTY_TRY(auto pane_get, decode_reply<protocol::PaneGetResult>(got, "pane.get reply"));
  const std::vector<std::string> events = {std::string(protocol::ev::PaneExited::name),
                                           std::string(protocol::ev::PaneClosed::name),
                                           std::string(protocol::ev::ServerWillShutdown::name)};
  SIGNALTTY_TRY(Json subscribed, link.call(protocol::Subscribe::name, {{"events", events}},
                                           Clock::now() + kSetupTimeout));
  (void)subscribed;
  return pane_get.pane.id;
}

void print_ending(const Ending& ending, const TerminalIo& io) {
  if (!ending.note.empty()) (void)write_all(io.out_fd, "\r\n" + ending.note + "\r\n");
  if (!ending.error.empty()) io.err << ending.error << '\n' << std::flush;
}

}  // namespace

std::string exit_note(const std::optional<int>& code, const std::optional<std::string>& signal) {
  if (signal) return "[pane exited: signal " + printable(*signal) + "]";
  if (code) return "[pane exited: code " + std::to_string(*code) + "]";
  return "[pane exited]";
}

std::optional<protocol::PtySize> terminal_size(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0 || ws.ws_row == 0) return std::nullopt;
  return protocol::PtySize{ws.ws_col, ws.ws_row};
}

int run_attach(AttachLink& link, const AttachOptions& options, const TerminalIo& io) {
  auto signals = SignalPipe::install({SIGWINCH, SIGCONT, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE});
  if (!signals.ok()) {
    print_ending(failed(signals.error()), io);
    return kExitError;
  }
  auto pane_id = prepare(link, options.pane);
  if (!pane_id.ok()) {
    const bool gone = pane_id.error().code == ErrorCode::NoSuchServer;
    print_ending(gone ? broker_gone(options.pane, kBrokerClosed) : failed(pane_id.error()), io);
    return exit_code_for(pane_id.error());
  }
  Ending ending = AttachSession(link, options, io, *pane_id, **signals).run();
  print_ending(ending, io);
  return ending.status;
}

}  // namespace signaltty::cli
