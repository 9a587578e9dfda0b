// broker/supervisor.cpp: each pane's process lifecycle: launching, the
// per-pane requests, exit, a lost ptyhost, closing. What a link reports and
// its end are in supervisor_link.cpp, adoption in supervisor_adopt.cpp,
// tails in supervisor_tails.cpp, the child's environment in child_env.cpp.
// Runs in: broker (io thread).
#include "broker/supervisor.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>

#include "broker/event_pipeline.hpp"
#include "broker/launcher.hpp"
#include "broker/ptyhost_text.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "broker/viewers.hpp"
#include "common/check.hpp"
#include "common/fs.hpp"
#include "common/log.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {

using SteadyClock = std::chrono::steady_clock;

Error pane_exited_error(const std::string& pane_id) {
  Error e{ErrorCode::PaneExited, "pane '" + pane_id + "' has no running program"};
  e.details = {{"pane_id", pane_id}};
  return e;
}

// A ptyhost we launched but could not use: it is not our child (the
// launcher double-forked), so it is signalled through a pidfd, which
// cannot hit a recycled pid once opened.
void kill_unusable_ptyhost(pid_t pid) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (pidfd) ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
}

}  // namespace

// ---- construction --------------------------------------------------------------

Supervisor::Supervisor(boost::asio::io_context& io, SupervisorConfig config, Launcher& launcher,
                       Store& store, EventPipeline& pipeline, SnapshotScheduler& snapshots,
                       Viewers& viewers)
    : io_(io),
      config_(std::move(config)),
      launcher_(launcher),
      store_(store),
      pipeline_(pipeline),
      snapshots_(snapshots),
      viewers_(viewers),
      tail_timer_(io) {}

Supervisor::~Supervisor() {
  stop();
  tail_writer_.join();
}

void Supervisor::stop() {
  alive_.reset();  // nothing below reaches back into this object
  tail_timer_.cancel();
  relinking_.clear();
  auto hosts = std::move(hosts_);
  hosts_.clear();
  for (auto& [id, host] : hosts) host.link->close("broker stopping");
}

std::string Supervisor::socket_path_of(const std::string& pane_id) const {
  return fs::join(config_.panes_dir, pane_id + ".sock");
}

Supervisor::Host* Supervisor::host(const std::string& pane_id) {
  auto it = hosts_.find(pane_id);
  return it == hosts_.end() ? nullptr : &it->second;
}

const Supervisor::Host* Supervisor::host(const std::string& pane_id) const {
  auto it = hosts_.find(pane_id);
  return it == hosts_.end() ? nullptr : &it->second;
}

void Supervisor::notify_screen(const std::string& pane_id, ScreenNotice notice) {
  if (screen_observer_) screen_observer_(pane_id, notice);
}

void Supervisor::commit(Txn& txn, std::function<void()> then) {
  if (!then) then = [] {};
  snapshots_.mark_if_changed();  // a change with no event (a repeated bell) included
  if (txn.empty()) return pipeline_.after_durable(std::move(then));
  pipeline_.commit(std::move(txn), std::move(then));
}

// ---- launch ----------------------------------------------------------------------

void Supervisor::launch(LaunchSpec spec, std::function<void(Result<Launched>)> done) {
  std::weak_ptr<int> alive = alive_;
  const std::string pane_id = spec.pane_id;
  launcher_.launch(pane_id, [this, alive, spec = std::move(spec),
                             done = std::move(done)](Result<pid_t> launched) mutable {
    if (!alive.expired()) link_launched(std::move(spec), std::move(launched), std::move(done));
  });
}

void Supervisor::link_launched(LaunchSpec spec, Result<pid_t> launched,
                               std::function<void(Result<Launched>)> done) {
  if (!launched.ok()) {
    Error e = std::move(launched).error();
    e.code = ErrorCode::SpawnFailed;
    return done(std::move(e));
  }
  const pid_t ptyhost_pid = *launched;
  auto link = std::make_shared<PtyhostLink>(io_, socket_path_of(spec.pane_id));
  PtyhostLink::Handlers handlers = handlers_for(spec.pane_id, link.get());
  std::weak_ptr<int> alive = alive_;
  PtyhostLink::Options options{spec.pane_id, SteadyClock::now() + kLaunchConnectBudget,
                               kLaunchConnectBudget};
  link->start(options, std::move(handlers),
              [this, alive, link, ptyhost_pid, spec = std::move(spec),
               done = std::move(done)](Result<wire::Hello> hello, LinkFailure) mutable {
                if (alive.expired()) return;
                if (!hello.ok() || link->peer_pid() != ptyhost_pid) {
                  kill_unusable_ptyhost(ptyhost_pid);
                  Error e{ErrorCode::SpawnFailed,
                          hello.ok() ? "the ptyhost's peer pid does not match the launch"
                                     : "ptyhost: " + hello.error().message};
                  return done(std::move(e));
                }
                hosts_[spec.pane_id] = Host{link, ptyhost_pid};
                notify_screen(spec.pane_id, ScreenNotice::Linked);
                wire::SpawnRequest request{spec.argv,      spec.env,  spec.cwd,
                                           spec.size.cols, spec.size.rows, spec.meta,
                                           std::nullopt};
                if (link->features() & wire::kFeatureExecProbe) request.probe = spec.probe;
                link->spawn(request,
                              [this, alive, id = spec.pane_id, ptyhost_pid,
                               done = std::move(done)](Result<wire::SpawnReply> r, std::string) {
                                if (alive.expired()) return;
                                if (!r.ok()) {
                                  if (Host* h = host(id)) {
                                    auto dead = h->link;
                                    hosts_.erase(id);
                                    dead->close("spawn failed");
                                  }
                                  Error e = std::move(r).error();
                                  if (e.code != ErrorCode::BadParams) e.code = ErrorCode::SpawnFailed;
                                  return done(std::move(e));
                                }
                                done(Launched{ptyhost_pid, r->child_pid, r->probe_passed});
                              });
              });
}

void Supervisor::push_meta(const std::string& pane_id) {
  Host* h = host(pane_id);
  auto pane = store_.find_pane(pane_id);
  if (!h || !pane.ok()) return;
  if (!h->published) note_printed(pane_id);  // its first tail
  h->published = true;
  if (wait_for_relink(pane_id, [this, pane_id] { push_meta(pane_id); })) return;
  h->link->set_meta({protocol::encode(**pane)}, [](Result<protocol::Empty>, std::string) {});
}

void Supervisor::discard(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h) return;
  auto link = h->link;
  hosts_.erase(pane_id);
  link->close_pane({SIGKILL, 0},
                   [link](Result<protocol::Empty>, std::string) { link->close("discarded"); },
                   kPtyhostRequestTimeout);
}

// ---- requests ------------------------------------------------------------------------

void Supervisor::read(const std::string& pane_id, const ReadSpec& spec,
                      std::function<void(Result<protocol::PaneReadResult>)> done) {
  Host* h = host(pane_id);
  if (!h) return done(read_saved(pane_id, spec));
  if (wait_for_relink(pane_id, [this, pane_id, spec, done] { read(pane_id, spec, done); })) return;
  const wire::ReadRequest request{spec.mode,
                                  static_cast<int>(std::min(spec.lines, protocol::kReadLinesMax)),
                                  spec.strip_ansi, spec.after_seq};
  std::weak_ptr<int> alive = alive_;
  h->link->read(request, [this, alive, pane_id, spec, done = std::move(done)](
                             Result<wire::ReadReply> r, std::string) {
    if (!r.ok()) {
      if (!alive.expired() &&
          retry_after_relink(pane_id, r.error(), [this, pane_id, spec, done] { read(pane_id, spec, done); }))
        return;
      return done(std::move(r).error());
    }
    if (!alive.expired()) store_.note_scrollback_len(pane_id, r->scrollback_len);
    done(protocol::PaneReadResult{std::move(r->text), r->truncated, r->seq, r->next_seq,
                                  r->dropped});
  });
}

bool Supervisor::watches_screen(const std::string& pane_id) const {
  const Host* h = host(pane_id);
  return h && !h->exited && h->link->ready() && (h->link->features() & wire::kFeatureScreenWatch);
}

void Supervisor::screen(const std::string& pane_id, bool rearm,
                        std::function<void(Result<wire::ScreenReply>)> done) {
  if (!watches_screen(pane_id)) return done(pane_exited_error(pane_id));
  host(pane_id)->link->screen(
      {.rearm = rearm},
      [done = std::move(done)](Result<wire::ScreenReply> r, std::string) { done(std::move(r)); });
}

void Supervisor::input(const std::string& pane_id, std::string bytes, SteadyClock::time_point deadline,
                       std::function<void(Result<protocol::PaneInputResult>)> done) {
  Host* h = host(pane_id);
  if (!h || h->exited) {
    Error e = pane_exited_error(pane_id);
    e.details["written_bytes"] = 0;
    return done(std::move(e));
  }
  if (wait_for_relink(pane_id, [this, pane_id, bytes, deadline, done] {
        input(pane_id, bytes, deadline, done);
      }))
    return;
  const auto budget = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  if (budget.count() <= 0) {
    Error e{ErrorCode::Timeout, "the input budget ran out before the write"};
    e.details = {{"written_bytes", 0}};
    return done(std::move(e));
  }
  h->link->input(bytes, budget, [done = std::move(done)](Result<wire::InputReply> r) {
    if (!r.ok()) return done(std::move(r).error());
    done(protocol::PaneInputResult{r->written});
  });
}

void Supervisor::resize(const std::string& pane_id, protocol::PtySize size, Done done) {
  Host* h = host(pane_id);
  if (!h) return done(Status{});
  if (wait_for_relink(pane_id, [this, pane_id, size, done] { resize(pane_id, size, done); })) return;
  std::weak_ptr<int> alive = alive_;
  h->link->resize({size.cols, size.rows},
                  [this, alive, pane_id, size, done = std::move(done)](Result<wire::ResizeReply> r, std::string) {
                    if (!r.ok() && !alive.expired() &&
                        retry_after_relink(pane_id, r.error(),
                                           [this, pane_id, size, done] { resize(pane_id, size, done); }))
                      return;
                    done(r.ok() ? Status{} : Status(std::move(r).error()));
                  });
}

void Supervisor::signal(const std::string& pane_id, int signo, bool group, Done done) {
  Host* h = host(pane_id);
  if (!h || h->exited) return done(pane_exited_error(pane_id));
  if (wait_for_relink(pane_id, [this, pane_id, signo, group, done] { signal(pane_id, signo, group, done); }))
    return;
  h->link->signal({signo, group}, [done = std::move(done)](Result<protocol::Empty> r, std::string) {
    done(r.ok() ? Status{} : Status(std::move(r).error()));
  });
}

void Supervisor::clear(const std::string& pane_id, Done done) {
  Host* h = host(pane_id);
  if (!h) {
    saved_tails_[pane_id] = "";
    return done(Status{});
  }
  if (wait_for_relink(pane_id, [this, pane_id, done] { clear(pane_id, done); })) return;
  std::weak_ptr<int> alive = alive_;
  h->link->clear([this, alive, pane_id, done = std::move(done)](Result<wire::ClearReply> r, std::string) {
    if (!r.ok() && !alive.expired() &&
        retry_after_relink(pane_id, r.error(), [this, pane_id, done] { clear(pane_id, done); }))
      return;
    done(r.ok() ? Status{} : Status(std::move(r).error()));
  });
}

void Supervisor::attach_snapshot(const std::string& pane_id,
                                 std::function<void(Result<AttachSnapshot>)> done) {
  Host* h = host(pane_id);
  if (!h) {
    auto pane = store_.find_pane(pane_id);
    if (!pane.ok()) return done(pane.error());
    const protocol::PtySize size = (*pane)->pty_size;
    ReadSpec screen{protocol::ReadMode::Screen, 0, true, 0};
    auto text = read_saved(pane_id, screen);
    std::string bytes = "\x1b[H\x1b[2J";
    std::string body = text.ok() ? text->text : std::string();
    for (char c : body) {
      if (c == '\n') bytes += '\r';
      bytes += c;
    }
    return done(AttachSnapshot{std::move(bytes), 0, size});
  }
  if (wait_for_relink(pane_id, [this, pane_id, done] { attach_snapshot(pane_id, done); })) return;
  h->streaming = true;
  std::weak_ptr<int> alive = alive_;
  h->link->stream({.on = true, .snapshot = true},
                  [this, alive, pane_id, done = std::move(done)](Result<wire::StreamReply> r, std::string state) {
                    if (!r.ok()) {
                      if (!alive.expired() &&
                          retry_after_relink(pane_id, r.error(),
                                             [this, pane_id, done] { attach_snapshot(pane_id, done); }))
                        return;
                      return done(std::move(r).error());
                    }
                    done(AttachSnapshot{std::move(state), r->output_offset, {r->cols, r->rows}});
                  });
}

void Supervisor::viewers_changed(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h || !h->streaming || viewers_.has_viewers(pane_id)) return;
  h->streaming = false;
  h->link->stream({.on = false}, [](Result<wire::StreamReply>, std::string) {});
}

// ---- exit and loss ----------------------------------------------------------------------

// docs/rules.md, decision 14: record the exit, then let the ptyhost forget it.
void Supervisor::on_exited(const std::string& pane_id, const wire::ExitStatus& exit) {
  Host* h = host(pane_id);
  if (!h || h->exited) return;
  h->exited = true;
  store_pending_title(pane_id);  // the last title it set stays
  Txn txn;
  const wire::ExitStatus checked = checked_exit(exit);
  const std::optional<int> code = checked.code.value;
  const std::optional<std::string> signal = checked.signal.value;
  if (auto r = store_.pane_exited(txn, pane_id, code, signal); !r.ok())
    log::warn("exit of " + pane_id + ": " + r.error().message);
  std::weak_ptr<int> alive = alive_;
  commit(txn, [this, alive, pane_id] {
    if (alive.expired()) return;
    Host* h = host(pane_id);
    if (!h) return;
    h->link->collect_exit([](Result<protocol::Empty>, std::string) {});
    if (h->closing) return finish_close(pane_id);
    refresh_tail(pane_id, true);
  });
}

void Supervisor::lost_ptyhost(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h) return;
  if (h->closing) return finish_close(pane_id);  // nothing is left to reap
  const bool published = h->published;
  if (published) store_pending_title(pane_id);
  hosts_.erase(pane_id);
  viewers_.drop_pane(pane_id);
  if (!published) return;
  Txn txn;
  auto pane = store_.find_pane(pane_id);
  if (pane.ok() && (*pane)->live.state == "live") {
    check_invariant(store_.pane_exited(txn, pane_id, std::nullopt, std::nullopt), "exit of a live pane");
  }
  if (pane.ok()) check_invariant(store_.pane_without_process(txn, pane_id), "pane of a lost ptyhost");
  commit(txn);
}

// ---- close -------------------------------------------------------------------------------

void Supervisor::close(const std::string& pane_id, int signo, Done done) {
  Host* h = host(pane_id);
  if (!h) return remove_pane_record(pane_id, {std::move(done)});
  h->close_waiters.push_back(std::move(done));
  if (h->closing) return;
  h->closing = true;
  h->close_signo = signo;
  // While the link is being re-established the request waits for it
  // (relink sends it); it never fails into a removal without the reap.
  if (h->link->ready()) send_close(pane_id);
}

void Supervisor::send_close(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h) return;
  std::weak_ptr<int> alive = alive_;
  const int kill_after_ms = static_cast<int>(kCloseKillAfter.count());
  h->link->close_pane({h->close_signo, kill_after_ms},
                      [this, alive, pane_id, link = h->link.get()](Result<protocol::Empty> r, std::string) {
                     if (alive.expired()) return;
                     Host* h = host(pane_id);
                     if (!h) return;
                     // Already reaped (a tombstone). A link that dropped meanwhile
                     // is handled where it closed (relink or finish_close).
                     if (h->exited) return finish_close(pane_id);
                     if (!r.ok() && h->link.get() == link && h->link->ready()) finish_close(pane_id);
                   },
                   kCloseKillAfter + kPtyhostRequestTimeout);
}

void Supervisor::close_all(const std::vector<std::string>& pane_ids, int signo,
                           std::function<void()> done) {
  auto outstanding = std::make_shared<std::size_t>(pane_ids.size() + 1);
  auto one_done = [outstanding, done = std::move(done)](const Status&) {
    if (--*outstanding == 0) done();
  };
  for (const std::string& id : pane_ids) close(id, signo, one_done);
  one_done(Status{});
}

void Supervisor::finish_close(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h) return;
  auto link = h->link;
  std::vector<Done> waiters = std::move(h->close_waiters);
  hosts_.erase(pane_id);
  link->close("pane closed");
  remove_pane_record(pane_id, std::move(waiters));
}

void Supervisor::remove_pane_record(const std::string& pane_id, std::vector<Done> waiters) {
  viewers_.drop_pane(pane_id);
  saved_tails_.erase(pane_id);
  delete_tail(pane_id);
  Txn txn;
  Status removed = store_.remove_pane(txn, pane_id);
  commit(txn, [waiters = std::move(waiters), removed] {
    for (const Done& done : waiters) done(removed);
  });
}

}  // namespace signaltty::broker
