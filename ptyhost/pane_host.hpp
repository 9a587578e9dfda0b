// ptyhost/pane_host.hpp: PaneHost, everything one pane is inside its
// ptyhost: the PTY master and the program on it, the Terminal fed from it,
// the cumulative output_offset, the exit status until a broker collects
// it, the listening socket and the one live broker connection.
// Runs in: ptyhost; one event loop thread owns all of it, so every request
// sees the terminal and output_offset at one instant (the attach snapshot
// is exact without a lock). The PTY is read ahead by PtyReader's thread
// (pty_reader.hpp), which hands the loop bytes and nothing else.
// Never: stops draining the PTY (connected or not, streaming or not),
// serves a peer that is not the broker (ptyhost/peer_check.hpp), or
// signals any pid but its child's.
//
// Lifecycle: start() → a broker connects and sends spawn → the program runs
// and the ptyhost confines itself → output, requests, inputs → the program
// exits (reported once the PTY is drained, kept until collect_exit) → after
// close, the ptyhost exits once the exit is collected or the broker leaves.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/errors.hpp"
#include "common/protocol/ptyhost_wire.hpp"
#include "ptyhost/osc_scanner.hpp"
#include "ptyhost/pane_socket.hpp"
#include "ptyhost/pty_input.hpp"
#include "ptyhost/pty_reader.hpp"
#include "ptyhost/pty_spawn.hpp"
#include "ptyhost/terminal.hpp"

namespace signaltty::ptyhost {

class BrokerService;

// Bytes taken from the read-ahead ring per feed and per Output frame.
inline constexpr std::size_t kReadChunkBytes = 64u << 10;
// After input (a command typed into a shell) the foreground process group
// is checked at these delays as well, since the program may print nothing
// at first; an idle pane is never woken for it.
inline constexpr std::array<std::chrono::milliseconds, 3> kForegroundChecksAfterInput{
    std::chrono::milliseconds(100), std::chrono::milliseconds(500),
    std::chrono::milliseconds(2000)};
// A pane that read nothing from its PTY or its broker for this long gives
// back the pages its read buffers touched and its free heap: a burst of
// output leaves nothing resident behind it once the pane is idle, which is
// how most panes spend their time. (The reader thread gives back the ring
// when it hands the reads back to the loop, kHandBackMs; the loop does it
// here.)
inline constexpr std::chrono::milliseconds kQuietGiveBack{1000};
// Input bytes queued towards the PTY before more input is RATE_LIMITED.
inline constexpr std::size_t kInputQueueCapBytes = 8u << 20;

struct StreamStart {
  std::uint64_t output_offset = 0;
  TerminalSize size;
};

class PaneHost {
 public:
  PaneHost(boost::asio::io_context& io, std::string pane_id, PaneSocket socket);
  ~PaneHost();
  PaneHost(const PaneHost&) = delete;
  PaneHost& operator=(const PaneHost&) = delete;

  // Accepts brokers and watches for SIGCHLD; returns at once.
  void start();
  // The process exit status once the loop has stopped.
  int exit_status() const { return exit_status_; }

  // ---- what the broker service asks (ptyhost_wire.hpp, one per op) ----
  protocol::ptyhost::Hello hello() const;
  Result<protocol::ptyhost::SpawnReply> spawn(const protocol::ptyhost::SpawnRequest& request);
  Result<protocol::ptyhost::ResizeReply> resize(const protocol::ptyhost::ResizeRequest& request);
  Result<protocol::Empty> signal(const protocol::ptyhost::SignalRequest& request);
  Result<protocol::ptyhost::ReadReply> read(const protocol::ptyhost::ReadRequest& request);
  Result<protocol::ptyhost::ClearReply> clear(const protocol::ptyhost::ClearRequest& request);
  Result<protocol::Empty> close(const protocol::ptyhost::CloseRequest& request);
  Result<protocol::Empty> collect_exit(const protocol::ptyhost::CollectExitRequest& request);
  Result<protocol::Empty> set_meta(const protocol::ptyhost::SetMetaRequest& request);
  Result<protocol::ptyhost::ScreenReply> screen(const protocol::ptyhost::ScreenRequest& request);
  // The attach snapshot: replayable bytes at exactly stream_position().
  std::string snapshot_vt() { return terminal_->snapshot_vt(); }
  StreamStart stream_position() const;
  std::string serialize() { return terminal_->serialize(); }
  void input(std::uint64_t rid, std::chrono::milliseconds budget, std::string bytes);

  // ---- from the broker service about its connection ----
  void broker_ready(const BrokerService* which);
  void broker_drained();
  // The broker took in queued output: reading the PTY may go on.
  void broker_took_output();
  void broker_closed(const BrokerService* which);
  // The broker service read something: the pane is not quiet.
  void note_busy();

 private:
  void accept_next();
  void on_accepted(const boost::system::error_code& ec,
                   boost::asio::local::stream_protocol::socket socket);
  void arm_handshake_deadline(const std::shared_ptr<BrokerService>& service);
  void watch_sigchld();
  void on_sigchld();
  void arm_exit_grace(int round = 0);

  // Starts `argv` (the request's, or its probe's argv_if_passed).
  Status start_program(const protocol::ptyhost::SpawnRequest& request,
                       const std::vector<std::string>& argv);
  // Waits for the reader's next bytes (or its EOF).
  void arm_read();
  void on_output_ready();
  // Backpressure from a backlogged broker (broker_service.hpp).
  void pause_reading();
  void resume_reading();
  void arm_stall_timer();
  // kQuietGiveBack: checks once per period while the pane is busy.
  void arm_quiet_check();
  void on_quiet();
  void process_output(std::string_view bytes);
  void publish_osc(const std::vector<OscEvent>& found);
  void on_pty_eof();
  void report_exit();
  void publish(const protocol::ptyhost::Event& event);
  // A broker is linked and announced `feature`.
  bool broker_has(protocol::ptyhost::Feature feature) const;
  // kFeatureScreenWatch: one screen_changed per rearm, and the foreground
  // process group whenever it moves.
  void note_screen_change();
  void note_foreground();
  // kFeatureOutputNotice: one printed per rendered read.
  void note_printed();
  // Runs the checks of kForegroundChecksAfterInput from `step` on.
  void arm_foreground_check(std::size_t step);

  void finish_if_done();
  void request_exit(int status);
  void maybe_stop();

  boost::asio::io_context& io_;
  std::string pane_id_;
  PaneSocket socket_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  boost::asio::signal_set sigchld_;
  boost::asio::steady_timer accept_backoff_;
  boost::asio::steady_timer kill_timer_;
  boost::asio::steady_timer exit_grace_;
  boost::asio::steady_timer spawn_wait_;
  boost::asio::steady_timer stop_deadline_;
  boost::asio::steady_timer stall_timer_;
  boost::asio::steady_timer foreground_poll_;
  boost::asio::steady_timer quiet_check_;
  boost::asio::posix::stream_descriptor master_;
  // After master_: destroyed first, so its thread has stopped reading
  // before the master closes.
  PtyReader reader_;
  PtyInput input_;
  std::unique_ptr<Terminal> terminal_;
  OscScanner osc_;
  std::shared_ptr<BrokerService> broker_;  // past the handshake: the live one
  std::vector<std::shared_ptr<BrokerService>> pending_;  // awaiting HelloAck

  ChildProcess child_;
  bool spawn_attempted_ = false;
  bool pty_eof_ = false;
  bool read_paused_ = false;  // the broker's backlog is past the high-water mark
  bool quiet_check_armed_ = false;
  bool busy_since_check_ = false;  // something was read since quiet_check_ was armed
  std::optional<ChildExit> reaped_;                        // reaped, not yet reported
  std::optional<protocol::ptyhost::ExitStatus> exit_;      // reported
  bool exit_collected_ = false;
  bool closing_ = false;
  bool exit_requested_ = false;
  int exit_status_ = 0;
  std::uint64_t output_offset_ = 0;
  // The broker's pane record, kept as its JSON text: one allocation, where
  // the parsed document would be dozens of small ones pinning heap pages
  // for the pane's whole life. Parsed only for a Hello.
  std::string meta_ = "{}";
  bool screen_notified_ = false;  // screen_changed sent, no rearming `screen` since
  bool print_notified_ = false;   // printed sent, no rendered read since
  pid_t foreground_pgid_ = 0;     // last reported; 0 before the first report
};

}  // namespace signaltty::ptyhost
