// broker/supervisor.hpp: the broker's side of every pane's process. It
// launches ptyhosts through the Launcher, links to them (ptyhost_link),
// re-adopts the ones a previous broker left running, turns their reports
// (exit, title, bell, notification) into store transitions, streams their
// output to viewers, closes panes (signal, SIGKILL after 5 s, removal once
// reaped) and keeps each pane's scrollback tail on disk for the day its
// ptyhost is gone (docs/rules.md, Tails). One job per file: supervisor.cpp
// the lifecycle, supervisor_link.cpp what a link reports and its end,
// supervisor_adopt.cpp adoption at start, supervisor_tails.cpp the tail
// archive; child_env.hpp the child's environment policy.
// Runs in: broker (io thread; tail files are written on a worker thread).
// Never: kills or unlinks a live ptyhost because a probe failed, adopts a
// ptyhost whose uid or pid does not match, or writes a tail for a
// `redact` workspace (docs/rules.md: decisions 2 and 22, "Why the split").
//
// Usage (broker/server.cpp):
//   Supervisor supervisor(io, config, launcher, store, pipeline, snapshots, viewers);
//   supervisor.adopt_all([](const AdoptionReport& r) { ... listen ... });
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "broker/child_env.hpp"
#include "broker/event.hpp"
#include "broker/ptyhost_link.hpp"
#include "common/errors.hpp"
#include "common/protocol/methods/pane.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::broker {

class EventPipeline;
class Launcher;
class SnapshotScheduler;
class Store;
class Viewers;

// docs/rules.md, decision 17: SIGKILL follows the requested signal after
// this long.
inline constexpr std::chrono::milliseconds kCloseKillAfter{5000};
// docs/rules.md, Tails: a tail file holds at most this many bytes of lines.
inline constexpr std::size_t kTailMaxBytes = 64u << 10;
// How often live panes' tails are checked for new lines and rewritten.
inline constexpr std::chrono::milliseconds kTailRefreshInterval{2000};
// A just-launched ptyhost has this long to publish its socket and say hello.
inline constexpr std::chrono::milliseconds kLaunchConnectBudget{5000};
// Adoption: a ptyhost that has not said hello by then is left alone.
inline constexpr std::chrono::milliseconds kAdoptHelloTimeout{3000};
// A live ptyhost that hung up is linked again at most this often.
inline constexpr std::chrono::milliseconds kRelinkInterval{1000};

struct SupervisorConfig {
  std::string panes_dir;  // <runtime>/panes: one <pane_id>.sock per ptyhost
  std::string state_dir;  // history/<pane_id>.tail lives below it
};

// What pane.spawn/pane.split hand to a new ptyhost.
struct LaunchSpec {
  std::string pane_id;
  std::vector<std::string> argv;
  std::vector<std::string> env;  // complete, KEY=VALUE (child_environment)
  std::string cwd;
  protocol::PtySize size;
  // Run first by the ptyhost, when it has the feature (Codex's --no-daemon).
  std::optional<protocol::ptyhost::ExecProbe> probe;
  // The pane's record as it is about to be published, given to the ptyhost
  // with the spawn: a broker that dies before publishing it leaves the next
  // one a pane it can put back where it was asked for (decision 2).
  protocol::Json meta;
};
struct Launched {
  std::int64_t ptyhost_pid = 0;
  std::int64_t child_pid = 0;
  std::optional<bool> probe_passed;  // set when a probe ran
};

struct ReadSpec {
  protocol::ReadMode mode = protocol::ReadMode::Tail;
  std::uint32_t lines = protocol::kReadLinesDefault;
  bool strip_ansi = true;
  std::uint64_t after_seq = 0;
};

struct AttachSnapshot {
  std::string bytes;  // replayable VT state
  std::uint64_t output_offset = 0;
  protocol::PtySize size;
};

struct AdoptionReport {
  std::size_t adopted = 0;      // live ptyhosts linked again
  std::size_t recovered = 0;    // of those, panes without a record
  std::size_t restored = 0;     // records whose ptyhost is gone
  std::size_t stale_sockets = 0;  // refused connections, removed
  std::size_t refused = 0;      // answered but not adoptable; left alone
  std::size_t closed = 0;       // without a record and never spawned; closed
  std::chrono::milliseconds took{0};
};

class Supervisor {
 public:
  using Done = std::function<void(Status)>;

  Supervisor(boost::asio::io_context& io, SupervisorConfig config, Launcher& launcher,
             Store& store, EventPipeline& pipeline, SnapshotScheduler& snapshots,
             Viewers& viewers);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Startup, before the listener: every pane record and every socket in
  // panes_dir, all probed at once. `done` runs once each one is adopted,
  // restored or left alone; their transitions are committed by then.
  void adopt_all(std::function<void(const AdoptionReport&)> done);
  // Starts the tail refresher (after adoption).
  void start_tail_refresh();

  // Launches a ptyhost for spec.pane_id and spawns the program in it.
  // SPAWN_FAILED (the ptyhost leaves by itself) with details from it.
  void launch(LaunchSpec spec, std::function<void(Result<Launched>)> done);
  // The pane record is in the store (or changed place/name): the ptyhost
  // keeps a copy as meta so a lost snapshot can still restore placement.
  void push_meta(const std::string& pane_id);
  // A launched pane that could not be published: its ptyhost is closed.
  void discard(const std::string& pane_id);

  void read(const std::string& pane_id, const ReadSpec& spec,
            std::function<void(Result<protocol::PaneReadResult>)> done);
  // Writes within the budget left until `deadline` (docs/rules.md, Input).
  void input(const std::string& pane_id, std::string bytes,
             std::chrono::steady_clock::time_point deadline,
             std::function<void(Result<protocol::PaneInputResult>)> done);
  void resize(const std::string& pane_id, protocol::PtySize size, Done done);
  void signal(const std::string& pane_id, int signo, bool group, Done done);
  void clear(const std::string& pane_id, Done done);
  // Turns the pane's stream on and takes the snapshot at its offset; a
  // pane without a ptyhost is drawn from its tail.
  void attach_snapshot(const std::string& pane_id,
                       std::function<void(Result<AttachSnapshot>)> done);
  // A viewer left: the stream is turned off once nobody views the pane.
  void viewers_changed(const std::string& pane_id);
  // Signals the pane's process group, SIGKILL after kCloseKillAfter, and
  // removes the pane (pane.closed) once the child is reaped; `done` runs
  // once that removal is durable.
  void close(const std::string& pane_id, int signo, Done done);
  // close() for each of `pane_ids` at once; `done` once all are removed.
  void close_all(const std::vector<std::string>& pane_ids, int signo, std::function<void()> done);
  // What a ptyhost with kFeatureScreenWatch says about its screen, for the
  // detector (broker/detector.hpp): a link to it was made (the detector
  // knows nothing of its screen yet), the screen changed since the last
  // rearming read, the terminal's foreground process group moved.
  enum class ScreenNotice { Linked, Changed, Foreground };
  using ScreenObserver = std::function<void(const std::string& pane_id, ScreenNotice notice)>;
  void set_screen_observer(ScreenObserver observer) { screen_observer_ = std::move(observer); }
  // The pane's ptyhost is linked and watches its screen for us.
  bool watches_screen(const std::string& pane_id) const;
  // The visible screen (rows and title, untrusted text); `rearm` lets the
  // next change be announced. PANE_EXITED without a watching ptyhost.
  void screen(const std::string& pane_id, bool rearm,
              std::function<void(Result<wire::ScreenReply>)> done);

  // Refreshes every live pane's tail now (orderly stop); `done` once
  // written or after a bounded wait.
  void save_tails_now(std::function<void()> done);

  // The broker is stopping: every link is dropped (the ptyhosts and their
  // programs carry on) and nothing more is reported.
  void stop();

  bool has_ptyhost(const std::string& pane_id) const { return hosts_.contains(pane_id); }
  std::size_t ptyhost_count() const { return hosts_.size(); }

 private:
  struct Host {
    std::shared_ptr<PtyhostLink> link;
    std::int64_t ptyhost_pid = 0;
    bool published = false;  // the store has the pane
    bool exited = false;     // its exit was recorded
    bool closing = false;
    int close_signo = 0;  // what close() asked for; sent again after a relink
    bool streaming = false;
    std::optional<std::uint64_t> tail_head;  // rendered head of the last tail written
    bool tail_stale = true;  // it may have printed since its last probe (kFeatureOutputNotice)
    std::chrono::steady_clock::time_point last_relink{};
    std::vector<Done> close_waiters;
    // docs/rules.md, decision 26: the latest OSC title not yet stored, when it was
    // last stored, and the timer that stores it once the interval is over.
    std::optional<std::string> pending_title;
    std::chrono::steady_clock::time_point title_stored_at{};
    std::shared_ptr<boost::asio::steady_timer> title_timer;
  };
  struct Adoption;

  // Output, events and the link's end, for the link of `pane_id`.
  PtyhostLink::Handlers handlers_for(const std::string& pane_id, const PtyhostLink* link);
  // launch(), once the launcher has answered: link to the ptyhost and spawn.
  void link_launched(LaunchSpec spec, Result<pid_t> launched,
                     std::function<void(Result<Launched>)> done);
  Host* host(const std::string& pane_id);
  const Host* host(const std::string& pane_id) const;
  void notify_screen(const std::string& pane_id, ScreenNotice notice);
  void on_event(const std::string& pane_id, const wire::Event& event);
  void on_exited(const std::string& pane_id, const wire::ExitStatus& exit);
  // Coalesces OSC titles per pane (docs/rules.md, decision 26).
  void on_title(const std::string& pane_id, std::string title);
  void store_pending_title(const std::string& pane_id);
  void on_link_closed(const std::string& pane_id, const PtyhostLink* link, const std::string& why);
  // Connects again to a ptyhost that hung up but still runs.
  void relink(const std::string& pane_id);
  void finish_relink(const std::string& pane_id, const std::shared_ptr<PtyhostLink>& link,
                     const PtyhostLink* old, Result<wire::Hello> hello);
  // While the pane's link is being re-established, keeps `retry` to run once
  // it is (or is given up) and returns true: a request that meets a relink
  // waits for it instead of failing as if the pane had exited.
  bool wait_for_relink(const std::string& pane_id, std::function<void()> retry);
  // A request that fails because the link went away while under way, on a
  // pane now being linked again, asks again after (only those that can be
  // repeated safely: reads, resizes, clears, snapshots).
  bool retry_after_relink(const std::string& pane_id, const Error& error, std::function<void()> retry);
  // The ptyhost is gone: the pane is exited, or restored from its record.
  void lost_ptyhost(const std::string& pane_id);
  void finish_close(const std::string& pane_id);
  // Sends the close request on the current link (close, and again after
  // a relink); the pane goes once its child is reaped.
  void send_close(const std::string& pane_id);
  void remove_pane_record(const std::string& pane_id, std::vector<Done> waiters);
  void commit(Txn& txn, std::function<void()> then = {});

  void adopt_one(const std::shared_ptr<Adoption>& run, const std::string& pane_id);
  void adopted(const std::string& pane_id, const std::shared_ptr<PtyhostLink>& link,
               const wire::Hello& hello, AdoptionReport& report);
  void not_adopted(const std::string& pane_id, LinkFailure failure, const Error& error,
                   AdoptionReport& report);
  void close_unstarted(const std::string& pane_id, const std::shared_ptr<PtyhostLink>& link,
                       AdoptionReport& report);

  std::string socket_path_of(const std::string& pane_id) const;
  std::string tail_path_of(const std::string& pane_id) const;
  std::optional<std::string> saved_tail(const std::string& pane_id);
  void refresh_tail(const std::string& pane_id, bool force, std::function<void()> done = {});
  // Reads the newest `lines` of the ring and writes the tail (or asks again
  // for the whole ring when they fall short of kTailMaxBytes); `head` is the
  // rendered head the probe saw.
  void read_tail(const std::string& pane_id, std::uint64_t head, int lines,
                 std::function<void()> done);
  void write_tail(const std::string& pane_id, std::string text);
  void delete_tail(const std::string& pane_id);
  // The pane may have printed: its tail is probed at the next refresh.
  void note_printed(const std::string& pane_id);
  void want_tail_refresh();
  void refresh_tails();
  void delete_orphan_tails();
  Result<protocol::PaneReadResult> read_saved(const std::string& pane_id, const ReadSpec& spec);

  boost::asio::io_context& io_;
  SupervisorConfig config_;
  Launcher& launcher_;
  Store& store_;
  EventPipeline& pipeline_;
  SnapshotScheduler& snapshots_;
  Viewers& viewers_;
  std::map<std::string, Host, std::less<>> hosts_;
  // Panes whose link is being re-established, with the requests waiting for it.
  std::map<std::string, std::vector<std::function<void()>>, std::less<>> relinking_;
  std::map<std::string, std::string, std::less<>> saved_tails_;
  ScreenObserver screen_observer_;
  boost::asio::steady_timer tail_timer_;
  bool tail_refresh_started_ = false;
  bool tail_timer_armed_ = false;
  boost::asio::thread_pool tail_writer_{1};
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace signaltty::broker
