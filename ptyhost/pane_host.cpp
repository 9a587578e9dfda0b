// ptyhost/pane_host.cpp: the pane's event loop: accept, spawn, the output
// pump, the ops, reaping and the way out.
// Runs in: ptyhost, on the event loop's thread (PtyReader's thread only
// reads the PTY ahead of it).
#include "ptyhost/pane_host.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "common/check.hpp"
#include "common/heap_trim.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"
#include "common/pane_size.hpp"
#include "common/protocol/ptyhost_handshake.hpp"
#include "common/protocol/signal_name.hpp"
#include "ptyhost/broker_service.hpp"
#include "ptyhost/sandbox.hpp"
#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {
namespace {

namespace wire = protocol::ptyhost;
using protocol::ptyhost::kPtyhostHandshakeTimeout;
namespace pane_limits = ::signaltty::limits;
using protocol::Json;
using std::chrono::milliseconds;

// Accept failed (EMFILE and kin): wait this long before the next accept.
constexpr milliseconds kAcceptBackoff{100};
// The program was reaped but the PTY has not reached EOF (a descendant
// still holds the slave): report the exit after this long anyway.
constexpr milliseconds kExitDrainGrace{200};
// ... and up to this many more while the reader holds bytes the loop has
// not taken yet.
constexpr int kExitDrainRounds = 10;
// Connections accepted but not yet past HelloAck; the oldest is dropped.
constexpr std::size_t kMaxPendingBrokers = 4;
// A ptyhost whose program was never spawned gives up after this long.
constexpr milliseconds kSpawnWait{60000};
// Leaving: the last replies get this long to reach the broker.
constexpr milliseconds kStopFlushDeadline{5000};
// close: the longest SIGKILL escalation a broker may ask for.
constexpr int kCloseKillAfterMaxMs = 60000;
// Bytes read per wakeup before yielding to the socket and the broker.
constexpr std::size_t kReadBytesPerWakeup = 256u << 10;
// pane.clear (docs/rules.md "Rendered ring"): home, erase screen, erase scrollback.
constexpr std::string_view kClearSequence = "\x1b[H\x1b[2J\x1b[3J";

// Ours: notifications passed on per output chunk; a program spamming OSC 9
// cannot flood the broker connection with events.
constexpr std::size_t kNotificationsPerChunkMax = 32;

std::string_view source_name(NotificationSource source) {
  switch (source) {
    case NotificationSource::Osc9: return "osc9";
    case NotificationSource::Osc99: return "osc99";
    case NotificationSource::Osc777: return "osc777";
  }
  return "osc9";
}

TerminalSize clamp_size(int cols, int rows) {
  const ClampedPaneSize size = clamp_pane_size(cols, rows);
  return {size.cols, size.rows};
}

// Only the signals a client may name (common/protocol/signal_name.hpp).
Status check_signal(int signo) {
  auto named = protocol::parse_signal_name(signal_abbrev(signo));
  if (!named.ok() || named->number != signo)
    return bad_params("signo " + std::to_string(signo) + " is not an allowed signal");
  return {};
}

Status check_spawn_request(const wire::SpawnRequest& request) {
  if (request.argv.empty() || request.argv.front().empty())
    return bad_params("argv: must not be empty");
  if (request.cwd.empty()) return bad_params("cwd: must not be empty");
  auto has_nul = [](const std::string& s) { return s.find('\0') != std::string::npos; };
  if (std::any_of(request.argv.begin(), request.argv.end(), has_nul) ||
      std::any_of(request.env.begin(), request.env.end(), has_nul) || has_nul(request.cwd))
    return bad_params("argv, env and cwd may not contain NUL bytes");
  if (const auto& probe = request.probe) {
    if (probe->probe.empty() || probe->probe.front().empty() || probe->argv_if_passed.empty() ||
        probe->argv_if_passed.front().empty())
      return bad_params("probe: probe and argv_if_passed must not be empty");
    if (std::any_of(probe->probe.begin(), probe->probe.end(), has_nul) ||
        std::any_of(probe->argv_if_passed.begin(), probe->argv_if_passed.end(), has_nul))
      return bad_params("probe: no NUL bytes");
    if (probe->timeout_ms < 1 || probe->timeout_ms > wire::kExecProbeTimeoutMaxMs)
      return bad_params("probe: timeout_ms must be 1.." +
                        std::to_string(wire::kExecProbeTimeoutMaxMs));
  }
  return {};
}

wire::ExitStatus wire_exit(const ChildExit& exit) {
  wire::ExitStatus out;
  if (exit.code) out.code = *exit.code;
  if (exit.signo) out.signal = signal_abbrev(*exit.signo);
  return out;
}

}  // namespace

PaneHost::PaneHost(boost::asio::io_context& io, std::string pane_id, PaneSocket socket)
    : io_(io),
      pane_id_(std::move(pane_id)),
      socket_(std::move(socket)),
      acceptor_(io, boost::asio::local::stream_protocol(), socket_.listener.release()),
      sigchld_(io, SIGCHLD),
      accept_backoff_(io),
      kill_timer_(io),
      exit_grace_(io),
      spawn_wait_(io),
      stop_deadline_(io),
      stall_timer_(io),
      foreground_poll_(io),
      quiet_check_(io),
      master_(io),
      reader_(io),
      input_(io, master_,
             [this](std::uint64_t rid, Result<Json> outcome) {
               if (broker_) broker_->send_reply(rid, std::move(outcome));
             }),
      terminal_(std::make_unique<Terminal>(
          TerminalSize{pane_limits::kPaneColsDefault, pane_limits::kPaneRowsDefault})) {
  // Answers to the program's terminal queries (DA, DSR): ours only while
  // no viewer streams, since a viewer's own terminal answers them too.
  terminal_->set_reply_sink([this](std::string_view bytes) {
    if (child_.alive() && !(broker_ && broker_->streaming()))
      input_.push(InputRequest{std::nullopt, milliseconds(1000), std::string(bytes)});
  });
}

PaneHost::~PaneHost() = default;

void PaneHost::start() {
  accept_next();
  watch_sigchld();
  spawn_wait_.expires_after(kSpawnWait);
  spawn_wait_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || spawn_attempted_) return;
    log::warn("no spawn request within the wait; exiting");
    request_exit(1);
  });
}

// ---- connections ------------------------------------------------------

void PaneHost::accept_next() {
  acceptor_.async_accept(
      [this](const boost::system::error_code& ec, boost::asio::local::stream_protocol::socket s) {
        on_accepted(ec, std::move(s));
      });
}

void PaneHost::on_accepted(const boost::system::error_code& ec,
                           boost::asio::local::stream_protocol::socket socket) {
  if (ec == boost::asio::error::operation_aborted) return;
  if (ec) {
    log::warn("accept: " + ec.message());
    accept_backoff_.expires_after(kAcceptBackoff);
    accept_backoff_.async_wait([this](const boost::system::error_code& e) {
      if (!e) accept_next();
    });
    return;
  }
  accept_next();
  if (Status peer = socket_.broker.check(socket.native_handle()); !peer.ok()) {
    log::warn("refused connection: " + peer.error().message);
    return;  // the socket closes here, unanswered
  }
  if (pending_.size() >= kMaxPendingBrokers) pending_.front()->close("too many handshakes");
  pending_.push_back(std::make_shared<BrokerService>(std::move(socket), *this));
  pending_.back()->start();
  arm_handshake_deadline(pending_.back());
}

// A connection still short of HelloAck at the deadline is dropped.
void PaneHost::arm_handshake_deadline(const std::shared_ptr<BrokerService>& service) {
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, kPtyhostHandshakeTimeout);
  timer->async_wait([this, timer, weak = std::weak_ptr<BrokerService>(service)](
                        const boost::system::error_code& ec) {
    auto pending = weak.lock();
    if (ec || !pending) return;
    if (std::find(pending_.begin(), pending_.end(), pending) != pending_.end())
      pending->close("no HelloAck within the handshake timeout");
  });
}

// A connection replaces the live broker once it has completed the
// handshake, so a probe that connects and leaves disturbs nothing.
void PaneHost::broker_ready(const BrokerService* which) {
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [which](const auto& p) { return p.get() == which; });
  if (it == pending_.end()) return;
  std::shared_ptr<BrokerService> previous = std::exchange(broker_, *it);
  pending_.erase(it);
  input_.drop_all();  // the previous broker's inputs die with it
  if (previous) previous->close("replaced by a new broker");
  // A new broker knows nothing yet: it reads the screen and the rendered
  // head once, which rearms.
  screen_notified_ = true;
  print_notified_ = true;
  foreground_pgid_ = 0;
  note_foreground();
  resume_reading();
}

void PaneHost::broker_closed(const BrokerService* which) {
  std::erase_if(pending_, [which](const auto& p) { return p.get() == which; });
  if (broker_.get() != which) return;
  broker_.reset();
  input_.drop_all();
  resume_reading();
  finish_if_done();
  maybe_stop();
}

void PaneHost::broker_drained() { maybe_stop(); }

void PaneHost::broker_took_output() {
  if (!read_paused_) return;
  if (broker_ && broker_->backlogged()) return arm_stall_timer();  // progress: a fresh limit
  resume_reading();
}

// Events go to connections still in their handshake too: whatever their
// Hello said, they see every change after it.
void PaneHost::publish(const wire::Event& event) {
  if (broker_ && broker_->connected()) broker_->send_event(event);
  const auto targets = pending_;  // a send may drop a connection
  for (const auto& pending : targets)
    if (pending->connected()) pending->send_event(event);
}

wire::Hello PaneHost::hello() const {
  wire::Hello h;
  h.pane_id = pane_id_;
  h.ptyhost_pid = ::getpid();
  if (child_.pid() > 0) h.child_pid = static_cast<std::int64_t>(child_.pid());
  h.output_offset = output_offset_;
  const TerminalSize size = terminal_->size();
  h.cols = size.cols;
  h.rows = size.rows;
  h.title = std::string(terminal_->title());
  h.exited = exit_;
  h.exit_collected = exit_collected_;
  h.meta = Json::parse(meta_);  // our own dump of a document the decoder accepted
  return h;
}

// ---- spawn ------------------------------------------------------------

Result<wire::SpawnReply> PaneHost::spawn(const wire::SpawnRequest& request) {
  if (spawn_attempted_) return bad_params("spawn: the pane's program was already spawned");
  if (closing_) return bad_params("spawn: the pane is closing");
  SIGNALTTY_RETURN_IF_ERROR(check_spawn_request(request));
  spawn_attempted_ = true;
  spawn_wait_.cancel();
  if (!request.meta.is_null()) meta_ = request.meta.dump();
  wire::SpawnReply reply;
  const std::vector<std::string>* argv = &request.argv;
  if (const auto& probe = request.probe) {
    reply.probe_passed = probe_passes(probe->probe, request.env, request.cwd,
                                      std::chrono::milliseconds(probe->timeout_ms));
    if (*reply.probe_passed) argv = &probe->argv_if_passed;
  }
  if (Status started = start_program(request, *argv); !started.ok()) {
    request_exit(1);  // after this reply has been written
    return std::move(started).error();
  }
  reply.child_pid = child_.pid();
  return reply;
}

Status PaneHost::start_program(const wire::SpawnRequest& request,
                               const std::vector<std::string>& argv) {
  const TerminalSize size = clamp_size(request.cols, request.rows);
  SIGNALTTY_TRY(SpawnedPty pty,
                spawn_on_pty(SpawnSpec{argv, request.env, request.cwd, size.cols, size.rows}));
  child_ = std::move(pty.child);
  terminal_->resize(size);
  master_.assign(pty.master.release());
  log::info("spawned the pane's program, pid " + std::to_string(child_.pid()));
  // The reader thread starts before the sandbox, whose filter then covers
  // it too and never has to allow a clone.
  Status confined = reader_.start(master_.native_handle());
  if (confined.ok()) confined = enter_sandbox({child_.pid()});
  if (!confined.ok()) {
    log::error("sandbox: " + confined.error().message);
    check_invariant(child_.signal(SIGKILL, SignalTarget::Group), "SIGKILL of an unconfined program");
    return Error{ErrorCode::Internal, "the ptyhost could not confine itself"};
  }
  // Setting up (the spawn, the seccomp filter's rule database, the first
  // resize, the reply and the broker's first requests) leaves freed pages
  // inside the heap: they go back once the pane is quiet.
  note_busy();
  arm_read();
  arm_foreground_check(0);
  return {};
}

// ---- output pump ------------------------------------------------------

void PaneHost::arm_read() {
  reader_.when_ready([this] { on_output_ready(); });
}

// Takes what the reader has read, a chunk at a time, until the ring is
// empty or kReadBytesPerWakeup went by; then yields to the sockets and
// waits for more (at once, by a post, when more is already there).
void PaneHost::on_output_ready() {
  const std::uint64_t start = output_offset_;
  for (;;) {
    const std::string_view bytes = reader_.peek(kReadChunkBytes);
    if (bytes.empty()) {
      if (reader_.at_eof()) return on_pty_eof();
      break;
    }
    note_busy();
    process_output(bytes);
    reader_.consume(bytes.size());
    if (broker_ && broker_->backlogged()) return pause_reading();
    if (output_offset_ - start >= kReadBytesPerWakeup) break;
  }
  arm_read();
}

// The reader stops once its ring is full, and the program blocks on a full
// PTY meanwhile, as behind a slow terminal.
void PaneHost::pause_reading() {
  read_paused_ = true;
  arm_stall_timer();
}

void PaneHost::resume_reading() {
  if (!read_paused_) return;
  read_paused_ = false;
  stall_timer_.cancel();
  if (reader_.running() && !pty_eof_) arm_read();
}

void PaneHost::arm_stall_timer() {
  stall_timer_.expires_after(kStreamStallLimit);
  stall_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !read_paused_ || !broker_) return;
    broker_->close("took in no output for " + std::to_string(kStreamStallLimit.count()) + " ms");
  });
}

void PaneHost::note_busy() {
  if (quiet_check_armed_) {
    busy_since_check_ = true;
    return;
  }
  arm_quiet_check();
}

void PaneHost::arm_quiet_check() {
  quiet_check_armed_ = true;
  busy_since_check_ = false;
  quiet_check_.expires_after(kQuietGiveBack);
  quiet_check_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_quiet();
  });
}

// Runs kQuietGiveBack to twice that after the last read; a pane that stays
// busy costs re-arming one timer a second, nothing per read.
void PaneHost::on_quiet() {
  if (busy_since_check_) return arm_quiet_check();
  quiet_check_armed_ = false;
  if (broker_) broker_->give_back_read_buffer();
  reader_.give_back_if_idle();
  for (const auto& pending : pending_) pending->give_back_read_buffer();
  give_back_free_heap();
}

// The bytes go to the broker first: an echo reaches the viewers without
// waiting for the terminal model, and the events the bytes give rise to
// still follow them.
void PaneHost::process_output(std::string_view bytes) {
  output_offset_ += bytes.size();
  if (broker_) broker_->send_output(output_offset_, bytes);
  terminal_->feed(bytes);
  std::vector<OscEvent> found = osc_.scan(bytes);
  if (!found.empty()) publish_osc(found);
  note_foreground();
  note_screen_change();
  note_printed();
}

bool PaneHost::broker_has(wire::Feature feature) const {
  return broker_ && broker_->connected() && (broker_->features() & feature);
}

// The broker sees the output of a pane only while someone views it; for
// the pane's saved tail it learns of the rest from this, once until it
// reads the rendered head again, and stays asleep while the pane is quiet.
void PaneHost::note_printed() {
  if (print_notified_ || !broker_has(wire::kFeatureOutputNotice)) return;
  print_notified_ = true;
  broker_->send_event(wire::Event{.kind = wire::EventKind::Printed, .output_offset = output_offset_});
}

void PaneHost::note_screen_change() {
  if (screen_notified_ || !broker_has(wire::kFeatureScreenWatch)) return;
  screen_notified_ = true;
  broker_->send_event(
      wire::Event{.kind = wire::EventKind::ScreenChanged, .output_offset = output_offset_});
}

// One ioctl per batch of output: a program started in a shell takes the
// terminal's foreground and draws, so the change shows with its output.
void PaneHost::note_foreground() {
  if (!master_.is_open() || !broker_has(wire::kFeatureScreenWatch)) return;
  const pid_t pgid = ::tcgetpgrp(master_.native_handle());
  if (pgid <= 0 || pgid == foreground_pgid_) return;
  foreground_pgid_ = pgid;
  broker_->send_event(wire::Event{.kind = wire::EventKind::Foreground,
                                  .pgid = static_cast<std::int64_t>(pgid),
                                  .output_offset = output_offset_});
}

void PaneHost::arm_foreground_check(std::size_t step) {
  if (step >= kForegroundChecksAfterInput.size() || !broker_has(wire::kFeatureScreenWatch) ||
      !master_.is_open())
    return;
  const auto since_last =
      kForegroundChecksAfterInput[step] - (step == 0 ? std::chrono::milliseconds(0)
                                                     : kForegroundChecksAfterInput[step - 1]);
  foreground_poll_.expires_after(since_last);
  foreground_poll_.async_wait([this, step](const boost::system::error_code& ec) {
    if (ec) return;
    note_foreground();
    arm_foreground_check(step + 1);
  });
}

Result<wire::ScreenReply> PaneHost::screen(const wire::ScreenRequest& request) {
  if (request.rearm) screen_notified_ = false;
  wire::ScreenReply out;
  out.title = std::string(terminal_->title());
  out.rows = terminal_->screen_rows();
  out.alt_screen = terminal_->alt_screen_active();
  return out;
}

// Per chunk: every notification up to a cap, the last title, one bell.
void PaneHost::publish_osc(const std::vector<OscEvent>& found) {
  std::optional<wire::Event> title;
  bool bell = false;
  std::size_t notifications = 0;
  for (const OscEvent& event : found) {
    if (const auto* t = std::get_if<TitleEvent>(&event)) {
      title = wire::Event{.kind = wire::EventKind::Title, .title = t->text};
    } else if (const auto* n = std::get_if<NotificationEvent>(&event)) {
      if (++notifications > kNotificationsPerChunkMax) continue;
      publish(wire::Event{.kind = wire::EventKind::Notification, .title = n->title,
                          .body = n->body, .source = std::string(source_name(n->source)),
                          .output_offset = output_offset_});
    } else {
      bell = true;
    }
  }
  if (title) {
    title->output_offset = output_offset_;
    publish(*title);
  }
  if (bell) publish(wire::Event{.kind = wire::EventKind::Bell, .output_offset = output_offset_});
}

// ---- exit ---------------------------------------------------------------

void PaneHost::watch_sigchld() {
  sigchld_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    on_sigchld();
    watch_sigchld();
  });
}

// The last output may still be in the PTY; while a backlogged broker holds
// reading back the exit waits behind it, and while the loop has yet to take
// what the reader read it waits up to kExitDrainRounds more graces. A
// descendant that keeps the slave open leaves the exit reported after that.
void PaneHost::arm_exit_grace(int round) {
  exit_grace_.expires_after(kExitDrainGrace);
  exit_grace_.async_wait([this, round](const boost::system::error_code& e) {
    if (e) return;
    if (read_paused_) return arm_exit_grace(round);
    if (!reader_.peek(1).empty() && round < kExitDrainRounds) return arm_exit_grace(round + 1);
    report_exit();
  });
}

void PaneHost::on_sigchld() {
  if (reaped_ || exit_) return;
  auto ended = child_.try_reap();
  if (!ended) return;
  reaped_ = ended;
  kill_timer_.cancel();
  if (!pty_eof_ && reader_.running()) {
    // Output may still be on its way through the PTY and the reader; EOF
    // reports the exit once the loop has taken all of it, or the grace
    // timer does if a descendant keeps the slave open.
    arm_exit_grace();
    return;
  }
  if (!pty_eof_) on_pty_eof();
  report_exit();
}

void PaneHost::on_pty_eof() {
  if (pty_eof_) return;
  pty_eof_ = true;
  reader_.stop();  // already past its last read: this only joins it
  if (exit_) {
    boost::system::error_code ignored;
    master_.close(ignored);
  } else if (reaped_) {
    report_exit();
  }
}

void PaneHost::report_exit() {
  if (exit_ || !reaped_) return;
  exit_grace_.cancel();
  exit_ = wire_exit(*reaped_);
  input_.fail_all(ErrorCode::PaneExited, "the pane's program has exited");
  if (pty_eof_) {
    boost::system::error_code ignored;
    master_.close(ignored);
  }
  log::info("the pane's program exited");
  wire::Event event;
  event.kind = wire::EventKind::Exited;
  event.exit = exit_;
  event.output_offset = output_offset_;
  publish(event);
  finish_if_done();
}

// ---- ops ----------------------------------------------------------------

Result<wire::ResizeReply> PaneHost::resize(const wire::ResizeRequest& request) {
  const TerminalSize size = clamp_size(request.cols, request.rows);
  if (master_.is_open()) {
    winsize ws{};
    ws.ws_col = static_cast<unsigned short>(size.cols);
    ws.ws_row = static_cast<unsigned short>(size.rows);
    if (::ioctl(master_.native_handle(), TIOCSWINSZ, &ws) != 0)
      return Error::from_errno(ErrorCode::IoError, "ioctl", errno, "TIOCSWINSZ");
  }
  terminal_->resize(size);
  return wire::ResizeReply{size.cols, size.rows};
}

Result<protocol::Empty> PaneHost::signal(const wire::SignalRequest& request) {
  SIGNALTTY_RETURN_IF_ERROR(check_signal(request.signo));
  SIGNALTTY_RETURN_IF_ERROR(
      child_.signal(request.signo, request.group ? SignalTarget::Group : SignalTarget::Process));
  return protocol::Empty{};
}

Result<wire::ReadReply> PaneHost::read(const wire::ReadRequest& request) {
  if (request.lines < 1) return bad_params("lines: must be at least 1");
  const std::size_t lines = std::min<std::size_t>(static_cast<std::size_t>(request.lines),
                                                  limits::kReadMaxLines);
  const TextStyle style = request.strip_ansi ? TextStyle::Plain : TextStyle::Ansi;
  wire::ReadReply out;
  out.scrollback_len = terminal_->scrollback_len();
  switch (request.mode) {
    case protocol::ReadMode::Screen:
      out.text = terminal_->screen_text(style);
      break;
    case protocol::ReadMode::Tail: {
      TailRead tail = terminal_->tail(lines, style);
      out.text = std::move(tail.text);
      out.truncated = tail.truncated;
      break;
    }
    case protocol::ReadMode::Rendered: {
      print_notified_ = false;
      RenderedRead r = terminal_->rendered(request.after_seq, lines, style);
      out.text = std::move(r.text);
      out.seq = r.seq;
      out.next_seq = r.next_seq;
      out.dropped = r.dropped;
      out.truncated = r.truncated;
      break;
    }
  }
  return out;
}

StreamStart PaneHost::stream_position() const { return {output_offset_, terminal_->size()}; }

// As if the program had printed it: same offset counting, same stream.
Result<wire::ClearReply> PaneHost::clear(const wire::ClearRequest&) {
  process_output(kClearSequence);
  terminal_->clear_history();
  return wire::ClearReply{output_offset_};
}

Result<protocol::Empty> PaneHost::close(const wire::CloseRequest& request) {
  SIGNALTTY_RETURN_IF_ERROR(check_signal(request.signo));
  closing_ = true;
  if (child_.alive()) {
    check_invariant(child_.signal(request.signo, SignalTarget::Group), "close signal to a live program");
    kill_timer_.expires_after(milliseconds(std::clamp(request.kill_after_ms, 0, kCloseKillAfterMaxMs)));
    kill_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec || !child_.alive()) return;
      log::info("close: the program outlived its grace; SIGKILL");
      check_invariant(child_.signal(SIGKILL, SignalTarget::Group), "SIGKILL after the grace");
    });
  }
  finish_if_done();
  return protocol::Empty{};
}

Result<protocol::Empty> PaneHost::collect_exit(const wire::CollectExitRequest&) {
  if (!exit_) return bad_params("collect_exit: the pane's program has not exited");
  exit_collected_ = true;
  finish_if_done();
  return protocol::Empty{};
}

Result<protocol::Empty> PaneHost::set_meta(const wire::SetMetaRequest& request) {
  meta_ = request.meta.dump();
  return protocol::Empty{};
}

void PaneHost::input(std::uint64_t rid, milliseconds budget, std::string bytes) {
  if (!child_.alive() || exit_ || !master_.is_open())
    return broker_->send_reply(rid, Error{ErrorCode::PaneExited, "the pane's program is not running"});
  if (input_.queued_bytes() + bytes.size() > kInputQueueCapBytes)
    return broker_->send_reply(rid, Error{ErrorCode::RateLimited, "input queue full"});
  input_.push(InputRequest{rid, budget, std::move(bytes)});
  arm_foreground_check(0);  // restarts the checks: the latest input counts
}

// ---- the way out ----------------------------------------------------------

// After close: gone once the exit is collected, or once no broker is left
// to collect it; a pane closed before its spawn is gone at once.
void PaneHost::finish_if_done() {
  if (!closing_) return;
  if (!spawn_attempted_ || (exit_ && (exit_collected_ || !broker_))) request_exit(0);
}

void PaneHost::request_exit(int status) {
  if (exit_requested_) return;
  exit_requested_ = true;
  exit_status_ = status;
  // The socket's name stays: the broker removes it once nothing answers.
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  stop_deadline_.expires_after(kStopFlushDeadline);
  stop_deadline_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) io_.stop();
  });
  // Stop from a fresh turn so the reply being built now is queued first.
  boost::asio::post(io_, [this] { maybe_stop(); });
}

void PaneHost::maybe_stop() {
  if (exit_requested_ && (!broker_ || broker_->idle())) io_.stop();
}

}  // namespace signaltty::ptyhost
