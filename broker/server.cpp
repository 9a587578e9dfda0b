// broker/server.cpp: builds the broker's parts in order and runs the loop.
// Runs in: broker (main thread).
#include "broker/server.hpp"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/audit_journal.hpp"
#include "broker/confinement.hpp"
#include "broker/connection.hpp"
#include "broker/detector.hpp"
#include "broker/event_hub.hpp"
#include "broker/event_pipeline.hpp"
#include "broker/instance_lock.hpp"
#include "broker/journal_replay.hpp"
#include "broker/launcher.hpp"
#include "broker/git/git_service.hpp"
#include "broker/plugins/hook_runner.hpp"
#include "broker/pane_socket_sweep.hpp"
#include "broker/logind_watch.hpp"
#include "broker/paths.hpp"
#include "broker/router.hpp"
#include "broker/sequence_reservation.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/state_image.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "broker/native_decisions.hpp"
#include "broker/pane_resume.hpp"
#include "broker/pane_tokens.hpp"
#include "broker/viewers.hpp"
#include "common/close_on_exec.hpp"
#include "common/fs.hpp"
#include "common/heap_trim.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/ptyhost_handshake.hpp"

#if defined(__SANITIZE_ADDRESS__)
// Sanitizer builds only: AddressSanitizer lowers the core limit to 0 before
// main, so harden_process() would record 0 as the user's limit and give the
// panes that (docs/rules.md "Hardening"). The broker still lowers its own.
extern "C" const char* __asan_default_options() { return "disable_coredump=0"; }
#endif

namespace signaltty::broker {
namespace asio = boost::asio;
using Local = asio::local::stream_protocol;

namespace {

// How long an orderly stop waits for queued replies to reach clients.
constexpr std::chrono::milliseconds kStopFlushBudget{2000};
// Accept backs off this long when the process is out of file descriptors.
constexpr std::chrono::milliseconds kAcceptBackoff{100};
// Startup waits at most this long for the ptyhosts to be probed; one that
// has not answered by then is left running, unadopted.
constexpr std::chrono::milliseconds kAdoptionBudget{10000};
// The soft descriptor limit the broker raises itself to (at most the hard one).
constexpr rlim_t kBrokerFdLimit = 65536;
// Where each ptyhost publishes its control socket, below the runtime dir.
constexpr std::string_view kPanesDirName = "panes";

// docs/rules.md (Hardening), broker: not dumpable, no core files, private file modes.
// Returns what the user's processes had, for the panes: only the soft core
// limit is lowered, so a ptyhost can be given the user's back.
UserProcessDefaults harden_process() {
  UserProcessDefaults user;
  user.umask = ::umask(077);
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (::getrlimit(RLIMIT_CORE, &user.core_limit) == 0) {
    rlimit no_core = user.core_limit;
    no_core.rlim_cur = 0;
    ::setrlimit(RLIMIT_CORE, &no_core);
  }
  // A write past RLIMIT_FSIZE must fail with EFBIG (and stop us through the
  // journal's failure path), not kill us before we can say why.
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  return user;
}

// A session's soft descriptor limit (often 1024) would cap the clients
// the broker can hold below what one busy user opens; the hard limit is
// the user's to give. Raised only once the launcher is forked, so the
// programs in panes get the limit the user had.
void raise_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  const rlim_t want = std::min<rlim_t>(lim.rlim_max, kBrokerFdLimit);
  if (lim.rlim_cur >= want) return;
  lim.rlim_cur = want;
  if (::setrlimit(RLIMIT_NOFILE, &lim) != 0)
    log::warn("cannot raise the descriptor limit to " + std::to_string(want));
}

// The store as the snapshot has it, and the journal seq its replay starts
// after (decision 25): the snapshot's journal_seq; 0 without a snapshot (or
// with a corrupt one, set aside), so every retained record is replayed;
// nullopt for a snapshot of an older broker, which says nothing about the
// journal, so nothing is replayed over it.
struct LoadedStore {
  Store store;
  std::optional<std::uint64_t> replay_after;
};

Result<LoadedStore> load_store(const std::string& state_dir) {
  SIGNALTTY_TRY(auto doc, load_snapshot(state_dir));
  if (!doc) return LoadedStore{Store{}, std::uint64_t{0}};
  const std::optional<std::uint64_t> journal_seq = doc->journal_seq;
  SIGNALTTY_TRY(Store store, Store::from_snapshot(std::move(*doc)));
  if (!journal_seq) log::info("snapshot has no journal_seq; no journal record is replayed over it");
  return LoadedStore{std::move(store), journal_seq};
}

}  // namespace

struct Server::Impl {
  Config config;
  asio::io_context io{1};
  std::unique_ptr<Launcher> launcher;  // first: forked before any thread exists
  std::unique_ptr<InstanceLock> state_lock;
  std::unique_ptr<InstanceLock> panes_lock;  // also what ptyhosts check a peer against
  std::unique_ptr<AuditJournal> journal;
  std::unique_ptr<SequenceReservation> reservation;
  std::unique_ptr<PaneTokens> tokens;
  std::unique_ptr<Store> store;
  std::unique_ptr<EventHub> hub;
  std::unique_ptr<EventPipeline> pipeline;
  std::unique_ptr<SnapshotScheduler> snapshots;
  std::unique_ptr<Viewers> viewers;
  std::unique_ptr<DecisionRoutes> routes;
  std::unique_ptr<Supervisor> supervisor;
  std::unique_ptr<Detector> detector;
  std::unique_ptr<plugins::HookRunner> hooks;
  std::unique_ptr<git::GitService> git;
  std::unique_ptr<Services> services;
  std::unique_ptr<Router> router;
  std::unique_ptr<Local::acceptor> acceptor;
  // The socket file this broker bound (device and inode): at exit it
  // unlinks that file only, never a successor's bound at the same path
  // after this broker closed its acceptor.
  dev_t socket_dev = 0;
  ino_t socket_ino = 0;
  asio::signal_set signals{io, SIGTERM, SIGINT};
  asio::steady_timer accept_backoff{io};
  asio::steady_timer socket_sweep{io};
  bool sweep_armed = false;
  std::unordered_map<std::uint64_t, std::shared_ptr<Connection>> connections;
  // What every client connection queues, together: kClientQueueBudgetFactor
  // times one client's cap.
  std::shared_ptr<OutputBudget> output_budget;
  std::unique_ptr<LogindWatch> logind;
  std::uint64_t next_session_id = 1;
  bool stopping = false;

  std::string panes_dir() const { return fs::join(config.runtime_dir, kPanesDirName); }
  Status start_launcher(const UserProcessDefaults& user_defaults);
  Status lock_dirs();
  Status open_state();
  void adopt_ptyhosts();
  Status listen();
  void sweep_stale_sockets();
  void sweep_after(std::chrono::milliseconds after);
  void accept_next();
  void on_accept(Local::socket socket);
  void on_close(std::uint64_t id);
  void stop(std::string_view why);
  void watch_logind();
};

// docs/architecture.md "Who starts whom": before any thread, before any confinement.
Status Server::Impl::start_launcher(const UserProcessDefaults& user_defaults) {
  SIGNALTTY_TRY(launcher, Launcher::start(io, {default_ptyhost_path(), panes_dir(),
                                                config.socket_path, config.plugin_dir,
                                                user_defaults, default_gitworker_path()}));
  return {};
}

// One broker per state dir, and one per runtime dir's panes/: the second
// lock is also the broker's identity towards every ptyhost there
// (common/protocol/ptyhost_handshake.hpp). Both are taken before anything
// in either directory is read or written.
Status Server::Impl::lock_dirs() {
  SIGNALTTY_RETURN_IF_ERROR(ensure_private_dir_recursive(config.state_dir));
  SIGNALTTY_TRY(state_lock, InstanceLock::acquire(config.state_dir, kStateLockName));
  SIGNALTTY_RETURN_IF_ERROR(ensure_private_dir(config.runtime_dir));
  SIGNALTTY_RETURN_IF_ERROR(ensure_private_dir(panes_dir()));
  SIGNALTTY_TRY(panes_lock,
                InstanceLock::acquire(panes_dir(), protocol::ptyhost::kBrokerLockName));
  return {};
}

Status Server::Impl::open_state() {
  SIGNALTTY_TRY(journal, AuditJournal::open(config.state_dir));
  SIGNALTTY_TRY(auto reserved, SequenceReservation::open(config.state_dir, journal->max_seq()));
  reservation = std::make_unique<SequenceReservation>(std::move(reserved));
  SIGNALTTY_TRY(auto keyed, PaneTokens::load_or_create(config.state_dir));
  tokens = std::make_unique<PaneTokens>(keyed);
  SIGNALTTY_TRY(auto loaded, load_store(config.state_dir));
  store = std::make_unique<Store>(std::move(loaded.store));
  JournalReplayReport replayed;
  if (loaded.replay_after)
    replayed = replay_journal(journal->capture(), *loaded.replay_after, *store);
  hub = std::make_unique<EventHub>(io, *journal, reservation->head());
  pipeline = std::make_unique<EventPipeline>(
      io, *journal, *reservation, [this](const StateEvent& ev) { hub->publish(ev); },
      config.group_commit);
  pipeline->set_state_source(
      [this](const std::vector<PendingEvent>& events, const std::vector<EntityRef>& touched) {
        return journal_state_of(*store, events, touched);
      });
  // The store reflects every number issued so far: a transaction is
  // numbered on this thread right after it changed the store.
  snapshots = std::make_unique<SnapshotScheduler>(
      io, config.state_dir,
      [this] {
        SnapshotDoc doc = store->to_snapshot();
        doc.journal_seq = pipeline->head_seq();
        return doc;
      },
      [this] { return store->revision(); });
  // The journal keeps every record no saved snapshot reflects
  // (docs/persistence.md); a snapshot of an older broker reflects all.
  journal->set_snapshot_covers(loaded.replay_after.value_or(journal->max_seq()));
  snapshots->set_on_saved([this](const SnapshotDoc& doc) {
    if (doc.journal_seq) journal->set_snapshot_covers(*doc.journal_seq);
    // The model has settled for a debounce interval: what building it and
    // its events freed goes back to the kernel instead of staying resident.
    give_back_free_heap();
  });
  // What the replay restored goes into the next snapshot, before the
  // journal could rotate it away.
  if (replayed.applied > 0) snapshots->mark_dirty();
  routes = std::make_unique<DecisionRoutes>();
  viewers = std::make_unique<Viewers>([this] { return pipeline->take_ephemeral_seq(); });
  supervisor = std::make_unique<Supervisor>(io, SupervisorConfig{panes_dir(), config.state_dir},
                                            *launcher, *store, *pipeline, *snapshots, *viewers);
  detector = std::make_unique<Detector>(io, *store, *supervisor, *pipeline, *snapshots,
                                        config.agents_dir);
  hooks = std::make_unique<plugins::HookRunner>(io, *launcher,
                                                plugins::PluginRegistry::scan(config.plugin_dir));
  hub->watch([this](const StateEvent& ev) { hooks->offer(ev); });
  git = std::make_unique<git::GitService>(io, *launcher, *store, *pipeline);
  hub->watch([this](const StateEvent& ev) { git->on_event(ev); });
  // A pane that closed or exited leaves a socket once its ptyhost is gone.
  hub->watch([this](const StateEvent& ev) {
    if (ev.name == protocol::ev::PaneClosed::name || ev.name == protocol::ev::PaneExited::name)
      sweep_after(kStaleSocketSweepInterval);
  });
  services = std::make_unique<Services>(Services{io, config, *store, *pipeline, *hub, *snapshots,
                                                 *supervisor, *viewers, *routes, *detector, *hooks,
                                                 *git, *tokens, std::chrono::steady_clock::now(),
                                                 [this] { stop("server.shutdown"); }});
  router = std::make_unique<Router>(*services);
  return {};
}

// Every ptyhost a previous broker left is probed at once; the loop runs
// here until each is adopted, restored or left alone.
void Server::Impl::adopt_ptyhosts() {
  bool done = false;
  supervisor->adopt_all([&done](const AdoptionReport& r) {
    done = true;
    log::info("ptyhosts: " + std::to_string(r.adopted) + " adopted (" +
              std::to_string(r.recovered) + " without a record), " + std::to_string(r.restored) +
              " panes restored, " + std::to_string(r.stale_sockets) + " stale sockets removed, " +
              std::to_string(r.refused) + " left alone, " + std::to_string(r.closed) +
              " never spawned closed; " + std::to_string(r.took.count()) + " ms");
  });
  const auto deadline = std::chrono::steady_clock::now() + kAdoptionBudget;
  while (!done && io.run_one_until(deadline) > 0) {
  }
  if (!done) log::warn("ptyhost adoption did not finish in time; serving anyway");
  io.restart();
  supervisor->start_tail_refresh();
  detector->start();
  expect_native_reporters(*services);
  auto_resume_panes(*services);  // decision 5
}

Status Server::Impl::listen() {
  boost::system::error_code ec;
  acceptor = std::make_unique<Local::acceptor>(io);
  acceptor->open(Local(), ec);
  if (!ec) acceptor->bind(Local::endpoint(config.socket_path), ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Error{ErrorCode::IoError, "listen on " + config.socket_path + ": " + ec.message()};
  if (::chmod(config.socket_path.c_str(), 0600) != 0)
    return Error::from_errno(ErrorCode::IoError, "chmod", errno, config.socket_path);
  struct stat st {};
  if (::lstat(config.socket_path.c_str(), &st) != 0)
    return Error::from_errno(ErrorCode::IoError, "lstat", errno, config.socket_path);
  socket_dev = st.st_dev;
  socket_ino = st.st_ino;
  set_close_on_exec(acceptor->native_handle());
  return {};
}

// Ptyhosts leave their socket behind when they exit (their sandbox cannot
// unlink); names of panes the store no longer holds are cleared here.
void Server::Impl::sweep_stale_sockets() {
  const SocketSweep sweep = remove_stale_pane_sockets(
      panes_dir(), [this](const std::string& pane_id) { return store->find_pane(pane_id).ok(); });
  if (sweep.removed > 0) log::debug(std::to_string(sweep.removed) + " stale pane sockets removed");
  sweep_after(sweep.waiting > 0 ? kStaleSocketSweepInterval : kStaleSocketSweepBackstop);
}

// Brings the next sweep forward to `after` from now, never back.
void Server::Impl::sweep_after(std::chrono::milliseconds after) {
  if (stopping) return;
  const auto due = std::chrono::steady_clock::now() + after;
  if (sweep_armed && socket_sweep.expiry() <= due) return;
  sweep_armed = true;
  socket_sweep.expires_at(due);
  socket_sweep.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping) return;
    sweep_armed = false;
    sweep_stale_sockets();
  });
}

void Server::Impl::accept_next() {
  acceptor->async_accept([this](const boost::system::error_code& ec, Local::socket socket) {
    if (stopping) return;
    if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space) {
      log::warn("accept: " + ec.message() + "; backing off");
      accept_backoff.expires_after(kAcceptBackoff);
      accept_backoff.async_wait([this](const boost::system::error_code&) {
        if (!stopping) accept_next();
      });
      return;
    }
    if (!ec) on_accept(std::move(socket));
    else if (ec == asio::error::operation_aborted) return;
    else log::warn("accept: " + ec.message());
    accept_next();
  });
}

void Server::Impl::on_accept(Local::socket socket) {
  set_close_on_exec(socket.native_handle());
  const std::uint64_t id = next_session_id++;
  auto conn = std::make_shared<Connection>(
      std::move(socket), id, config.client_queue_cap_bytes, output_budget,
      [this](const std::shared_ptr<Connection>& c, std::string_view line) {
        router->handle_line(c, line);
      },
      [this](std::uint64_t closed_id) { on_close(closed_id); });
  connections.emplace(id, conn);
  conn->start();
}

void Server::Impl::on_close(std::uint64_t id) {
  hub->drop_session(id);
  for (const std::string& pane_id : viewers->drop_session(id)) supervisor->viewers_changed(pane_id);
  // Erasing may destroy the connection from inside its own callback: defer.
  asio::post(io, [this, id] { connections.erase(id); });
}

void Server::Impl::stop(std::string_view why) {
  if (stopping) return;
  stopping = true;
  log::info("stopping (" + std::string(why) + ")");
  boost::system::error_code ignored;
  acceptor->close(ignored);
  signals.cancel(ignored);
  accept_backoff.cancel();
  socket_sweep.cancel();
  if (logind) logind->stop();
  // docs/rules.md (Persistence): tails first, then the snapshot.
  supervisor->save_tails_now([this] {
    if (auto saved = snapshots->save_now(); !saved.ok())
      log::error("snapshot save at stop failed: " + saved.error().message);
    pipeline->after_durable([this] {
      detector->stop();
      supervisor->stop();
      for (auto& [id, conn] : connections) conn->close_after_flush();
      io.stop();
    });
  });
}

// docs/rules.md (Persistence), logind: save while holding the inhibitor, release it,
// then stop normally; a failed save still releases and stops.
void Server::Impl::watch_logind() {
  if (!logind_enabled_from_env()) return;
  logind = std::make_unique<LogindWatch>(io, system_bus_address_from_env(),
                                         [this](LogindWatch::Release release) {
    supervisor->save_tails_now([this, release = std::move(release)] {
      if (auto saved = snapshots->save_now(); !saved.ok())
        log::error("logind: save before shutdown failed (" + saved.error().message +
                   "); stopping anyway");
      release();
      stop("logind PrepareForShutdown");
    });
  });
  logind->start();
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  if (impl_ && impl_->pipeline) impl_->pipeline->shutdown();
}

Result<std::unique_ptr<Server>> Server::create(const Config& config) {
  const UserProcessDefaults user_defaults = harden_process();
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->output_budget = std::make_shared<OutputBudget>(limits::kClientQueueBudgetFactor *
                                                       config.client_queue_cap_bytes);
  SIGNALTTY_RETURN_IF_ERROR(impl->start_launcher(user_defaults));
  raise_fd_limit();  // after the launcher: pane programs keep the user's limit
  // Everything the broker starts from here on, the launcher starts.
  if (Status confined = confine_broker(); !confined.ok())
    return Error{ErrorCode::Internal, "cannot confine the broker: " + confined.error().message};
  SIGNALTTY_RETURN_IF_ERROR(impl->lock_dirs());
  SIGNALTTY_RETURN_IF_ERROR(impl->open_state());
  // A live broker on the socket refuses this start before any ptyhost is touched.
  SIGNALTTY_RETURN_IF_ERROR(claim_socket_path(config.socket_path));
  impl->adopt_ptyhosts();
  SIGNALTTY_RETURN_IF_ERROR(impl->listen());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::run() {
  Impl& s = *impl_;
  s.signals.async_wait([&s](const boost::system::error_code& ec, int signo) {
    if (!ec) s.stop(signo == SIGTERM ? "SIGTERM" : "SIGINT");
  });
  s.accept_next();
  s.sweep_stale_sockets();
  s.watch_logind();
  log::info("listening on " + s.config.socket_path + " (state " + s.config.state_dir + ")");
  s.io.run();
  // Let queued replies reach their clients before the sockets close.
  // run_for returns as soon as no work is left (every socket closed).
  s.io.restart();
  s.io.run_for(kStopFlushBudget);
  s.pipeline->shutdown();
  struct stat st {};
  if (::lstat(s.config.socket_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
      st.st_dev == s.socket_dev && st.st_ino == s.socket_ino)
    ::unlink(s.config.socket_path.c_str());
  return kExitOk;
}

}  // namespace signaltty::broker
