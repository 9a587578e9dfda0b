// broker/detector.hpp: seeing agents without hooks (docs/rules.md
// "Detection without hooks"): the loaded agent manifests, their screen
// rules run at most every 500 ms against the live unhooked panes whose
// screen changed (no tick at all while no screen did), the live process refresh every 10 s (and soon after a pane's
// foreground process group moves), agents.list/reload and pane.explain.
// Runs in: broker (io thread). A refresh reads the process table once.
// Never: parses terminal bytes (the ptyhost renders its own screen to text;
// the broker only runs RE2 patterns, linear in the text, over it), lets a
// screen rule touch a pane whose current process has sent a hook, or
// demotes an agent kind.
//
// Usage (broker/server.cpp):
//   Detector detector(io, store, supervisor, pipeline, snapshots, config.agents_dir);
//   detector.start();                       // after adoption
//   detector.note_hook(txn, pane_id);       // hook-event, before its transition
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/agents/manifests.hpp"
#include "broker/agents/screen_rules.hpp"
#include "broker/event.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/errors.hpp"
#include "common/protocol/methods/agent.hpp"
#include "common/protocol/methods/pane.hpp"

namespace signaltty::broker {

class EventPipeline;
class SnapshotScheduler;
class Store;

// docs/rules.md "Detection without hooks".
inline constexpr std::chrono::milliseconds kScreenRuleTick{500};
inline constexpr std::chrono::milliseconds kProcessRefreshInterval{10000};
// A foreground change is followed by a refresh this much later, so the
// program that took the terminal has exec'd; changes within it coalesce.
inline constexpr std::chrono::milliseconds kForegroundRefreshDelay{200};
// A shell script running command after command moves the foreground all
// the time: refreshes it asks for are at least this far apart.
inline constexpr std::chrono::milliseconds kForegroundRefreshMinGap{1000};
// A ptyhost's screen is untrusted: at most this many rows of at most this
// many bytes are matched (a pane is at most limits' rows tall anyway).
inline constexpr std::size_t kScreenRowsMax = 1000;
inline constexpr std::size_t kScreenRowBytesMax = 8192;

class Detector {
 public:
  Detector(boost::asio::io_context& io, Store& store, Supervisor& supervisor,
           EventPipeline& pipeline, SnapshotScheduler& snapshots, std::string agents_dir);
  ~Detector();
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  // Loads the manifests (failures are listed, never fatal; an unlistable
  // directory leaves the bundled set and is logged) and starts both timers.
  void start();
  void stop();

  // agents.list: the active set.
  protocol::AgentsListResult list() const;
  // agents.reload: the whole set swapped at once; IO_ERROR for a directory
  // that cannot be listed, keeping the active set. Live panes are untouched.
  Result<protocol::AgentsListResult> reload();
  // pane.explain: the read-only trace against the pane's title and its
  // visible screen now (the watch is not rearmed).
  void explain(const std::string& pane_id,
               std::function<void(Result<protocol::PaneExplainResult>)> done);
  // A hook was accepted for the pane: its current process is hooked, and
  // an input_required a screen rule raised is withdrawn (in `txn`).
  void note_hook(Txn& txn, const std::string& pane_id);
  // The kind a user manifest's `binaries` give a program (detection
  // overlays), for spawn-time detection.
  std::optional<protocol::AgentKind> overlay_kind(std::string_view program) const;

  // Runs one screen tick / one process refresh now (tests, benchmarks).
  void tick_screens();
  void refresh_processes();

 private:
  // A process, told apart from a later one that reuses its pid.
  struct ProcessKey {
    pid_t pid = 0;
    std::uint64_t start_time = 0;
    bool operator==(const ProcessKey&) const = default;
  };
  // What the detector knows of one pane; runtime only.
  struct PaneWatch {
    std::string process_instance;  // a new instance (resume) starts over
    bool dirty = true;             // the screen changed, or was never read
    bool in_flight = false;
    // Seen once, applied when the next read agrees (a torn redraw or one
    // spinner frame never moves the state by itself).
    std::optional<protocol::ScreenRuleState> pending;
    bool raised_input_required = false;  // by a screen rule, withdrawn on leaving blocked
    bool hooked = false;
    std::optional<ProcessKey> hooked_process;  // resolved at the next refresh
    std::string program;  // "" until the first refresh: the spawn argv's
  };

  PaneWatch& watch(const protocol::Pane& pane);
  std::string program_of(const protocol::Pane& pane);
  bool classifies(const protocol::Pane& pane, const agents::RuleSelection& rules);
  void on_screen_notice(const std::string& pane_id, Supervisor::ScreenNotice notice);
  void on_screen(const std::string& pane_id, Result<wire::ScreenReply> reply);
  void read_screen(const protocol::Pane& pane, PaneWatch& w, const wire::ScreenReply& reply);
  bool would_change(protocol::ScreenRuleState state, const protocol::Pane& pane) const;
  void apply(const std::string& pane_id, protocol::ScreenRuleState state, LifecycleSource source);
  void withdraw_input_required(Txn& txn, const protocol::Pane& pane, PaneWatch& w);
  void want_tick();
  void arm_refresh(std::chrono::milliseconds after);
  void commit(Txn& txn);

  boost::asio::io_context& io_;
  Store& store_;
  Supervisor& supervisor_;
  EventPipeline& pipeline_;
  SnapshotScheduler& snapshots_;
  std::string agents_dir_;
  std::shared_ptr<const agents::ManifestSet> manifests_;
  std::map<std::string, PaneWatch, std::less<>> watches_;
  boost::asio::steady_timer tick_timer_;
  bool tick_armed_ = false;
  std::chrono::steady_clock::time_point ticked_at_{};
  boost::asio::steady_timer refresh_timer_;
  std::chrono::steady_clock::time_point refresh_due_{};
  std::chrono::steady_clock::time_point refreshed_at_{};
  bool stopped_ = true;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

// The screen a ptyhost reported, bounded: kScreenRowsMax rows of at most
// kScreenRowBytesMax bytes (cut at a UTF-8 boundary), the title cleaned
// like every ptyhost string (docs/rules.md "Ptyhost strings").
agents::ScreenText bounded_screen(const wire::ScreenReply& reply);

}  // namespace signaltty::broker
