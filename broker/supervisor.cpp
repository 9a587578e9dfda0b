// broker/supervisor.cpp: launching, the per-pane requests, what ptyhosts
// report, closing. Adoption is in supervisor_adopt.cpp, tails in
// supervisor_tails.cpp.
// Runs in: broker (io thread).
#include "broker/supervisor.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>

#include "broker/event_pipeline.hpp"
#include "broker/launcher.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "broker/viewers.hpp"
#include "common/check.hpp"
#include "common/fs.hpp"
#include "common/log.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {

using protocol::Json;
using SteadyClock = std::chrono::steady_clock;

// Event kinds a ptyhost reports (ptyhost_wire.hpp, Event).
constexpr std::string_view kEventTitle = "title";
constexpr std::string_view kEventNotification = "notification";
constexpr std::string_view kEventBell = "bell";
constexpr std::string_view kEventExited = "exited";

// docs/rules.md (Panes and PTYs), "Environment of the child".
constexpr std::string_view kDefaultTerm = "TERM=xterm-256color";
constexpr std::array<std::string_view, 10> kAllowedEnvKeys{
    "TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "EDITOR", "VISUAL", "PAGER", "SHELL",
    "SIGNALTTY_PANE"};
constexpr std::array<std::string_view, 5> kAllowedEnvPrefixes{"SIGNALTTY_", "CLAUDE_", "CODEX_",
                                                              "OPENCODE_", "CURSOR_"};

std::string_view env_key(std::string_view entry) { return entry.substr(0, entry.find('=')); }

void set_env(std::vector<std::string>& env, std::string_view key, std::string_view value) {
  std::erase_if(env, [key](const std::string& e) { return env_key(e) == key; });
  env.push_back(std::string(key) + "=" + std::string(value));
}

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

// ---- child environment -----------------------------------------------------

bool env_key_allowed(std::string_view key) {
  for (std::string_view allowed : kAllowedEnvKeys)
    if (key == allowed) return true;
  for (std::string_view prefix : kAllowedEnvPrefixes)
    if (key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::vector<std::string> child_environment(const ChildEnvRequest& request) {
  std::vector<std::string> env;
  for (const std::string& entry : request.broker_env) {
    const std::string_view key = env_key(entry);
    if (entry.find('=') == std::string::npos || key.substr(0, 3) == "LD_" ||
        key == "SIGNALTTY_SOCKET")
      continue;
    env.push_back(entry);
  }
  for (const auto& [key, value] : request.requested) {
    if (!env_key_allowed(key) || key.find('\0') != std::string::npos) continue;
    if (key == "SIGNALTTY_SOCKET") continue;
    set_env(env, key, value);
  }
  const bool has_term =
      std::any_of(env.begin(), env.end(), [](const std::string& e) { return env_key(e) == "TERM"; });
  if (!has_term) env.emplace_back(kDefaultTerm);
  set_env(env, "SIGNALTTY_PANE", request.pane_id);
  set_env(env, "SIGNALTTY_SOCKET", request.socket_path);
  if (request.parent_pane_id) set_env(env, "SIGNALTTY_PARENT_PANE", *request.parent_pane_id);
  if (request.task_id) set_env(env, "SIGNALTTY_TASK", *request.task_id);
  return env;
}

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

void Supervisor::commit(Txn& txn, std::function<void()> then) {
  if (!then) then = [] {};
  snapshots_.mark_if_changed();  // a change with no event (a repeated bell) included
  if (txn.empty()) return pipeline_.after_durable(std::move(then));
  pipeline_.commit(std::move(txn.events()), std::move(then));
}

PtyhostLink::Handlers Supervisor::handlers_for(const std::string& pane_id,
                                               const PtyhostLink* link) {
  std::weak_ptr<int> alive = alive_;
  PtyhostLink::Handlers h;
  h.on_closed = [this, alive, pane_id, link](const std::string& why) {
    if (!alive.expired()) on_link_closed(pane_id, link, why);
  };
  h.on_output = [this, alive, pane_id](std::uint64_t end, std::string_view bytes) {
    if (alive.expired()) return;
    store_.note_output(pane_id, SteadyClock::now());
    viewers_.publish(pane_id, end, bytes);
  };
  h.on_event = [this, alive, pane_id](const wire::Event& event) {
    if (!alive.expired()) on_event(pane_id, event);
  };
  return h;
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
                Json fields{{"argv", spec.argv}, {"env", spec.env}, {"cwd", spec.cwd},
                            {"cols", spec.size.cols}, {"rows", spec.size.rows}};
                link->request(wire::kOpSpawn, std::move(fields),
                              [this, alive, id = spec.pane_id, ptyhost_pid,
                               done = std::move(done)](Result<Json> r, std::string) {
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
                                const auto child = r->value("child_pid", std::int64_t{0});
                                done(Launched{ptyhost_pid, child});
                              });
              });
}

void Supervisor::push_meta(const std::string& pane_id) {
  Host* h = host(pane_id);
  auto pane = store_.find_pane(pane_id);
  if (!h || !pane.ok()) return;
  h->published = true;
  h->link->request(wire::kOpSetMeta, Json{{"meta", protocol::encode(**pane)}},
                   [](Result<Json>, std::string) {});
}

void Supervisor::discard(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h) return;
  auto link = h->link;
  hosts_.erase(pane_id);
  link->request(wire::kOpClose, Json{{"signo", SIGKILL}, {"kill_after_ms", 0}},
                [link](Result<Json>, std::string) { link->close("discarded"); });
}

// ---- requests ------------------------------------------------------------------------

void Supervisor::read(const std::string& pane_id, const ReadSpec& spec,
                      std::function<void(Result<protocol::PaneReadResult>)> done) {
  Host* h = host(pane_id);
  if (!h) return done(read_saved(pane_id, spec));
  Json fields{{"mode", protocol::encode(spec.mode)},
              {"lines", std::min(spec.lines, protocol::kReadLinesMax)},
              {"strip_ansi", spec.strip_ansi},
              {"after_seq", spec.after_seq}};
  std::weak_ptr<int> alive = alive_;
  h->link->request(wire::kOpRead, std::move(fields),
                   [this, alive, pane_id, done = std::move(done)](Result<Json> r, std::string) {
                     if (!r.ok()) return done(std::move(r).error());
                     if (!alive.expired() && r->contains("scrollback_len") &&
                         (*r)["scrollback_len"].is_number_unsigned())
                       store_.note_scrollback_len(pane_id, (*r)["scrollback_len"].get<std::uint64_t>());
                     auto decoded = protocol::decode<protocol::PaneReadResult>(*r);
                     if (!decoded.ok())
                       return done(Error{ErrorCode::Internal, "ptyhost read: " + decoded.error().message});
                     done(std::move(decoded).value());
                   });
}

void Supervisor::input(const std::string& pane_id, std::string bytes, SteadyClock::time_point deadline,
                       std::function<void(Result<protocol::PaneInputResult>)> done) {
  Host* h = host(pane_id);
  if (!h || h->exited) {
    Error e = pane_exited_error(pane_id);
    e.details["written_bytes"] = 0;
    return done(std::move(e));
  }
  const auto budget = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  if (budget.count() <= 0) {
    Error e{ErrorCode::Timeout, "the input budget ran out before the write"};
    e.details = {{"written_bytes", 0}};
    return done(std::move(e));
  }
  h->link->input(bytes, budget, [done = std::move(done)](Result<Json> r, std::string) {
    if (!r.ok()) return done(std::move(r).error());
    done(protocol::PaneInputResult{r->value("written", std::uint64_t{0})});
  });
}

void Supervisor::resize(const std::string& pane_id, protocol::PtySize size, Done done) {
  Host* h = host(pane_id);
  if (!h) return done(Status{});
  h->link->request(wire::kOpResize, Json{{"cols", size.cols}, {"rows", size.rows}},
                   [done = std::move(done)](Result<Json> r, std::string) {
                     done(r.ok() ? Status{} : Status(std::move(r).error()));
                   });
}

void Supervisor::signal(const std::string& pane_id, int signo, bool group, Done done) {
  Host* h = host(pane_id);
  if (!h || h->exited) return done(pane_exited_error(pane_id));
  h->link->request(wire::kOpSignal, Json{{"signo", signo}, {"group", group}},
                   [done = std::move(done)](Result<Json> r, std::string) {
                     done(r.ok() ? Status{} : Status(std::move(r).error()));
                   });
}

void Supervisor::clear(const std::string& pane_id, Done done) {
  Host* h = host(pane_id);
  if (!h) {
    saved_tails_[pane_id] = "";
    return done(Status{});
  }
  h->link->request(wire::kOpClear, Json::object(),
                   [done = std::move(done)](Result<Json> r, std::string) {
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
  h->streaming = true;
  h->link->request(wire::kOpStream, Json{{"on", true}, {"snapshot", true}},
                   [done = std::move(done)](Result<Json> r, std::string state) {
                     if (!r.ok()) return done(std::move(r).error());
                     AttachSnapshot snap;
                     snap.bytes = std::move(state);
                     snap.output_offset = r->value("output_offset", std::uint64_t{0});
                     snap.size = {r->value("cols", 80), r->value("rows", 24)};
                     done(std::move(snap));
                   });
}

void Supervisor::viewers_changed(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h || !h->streaming || viewers_.has_viewers(pane_id)) return;
  h->streaming = false;
  h->link->request(wire::kOpStream, Json{{"on", false}}, [](Result<Json>, std::string) {});
}

// ---- what ptyhosts report ------------------------------------------------------------

void Supervisor::on_event(const std::string& pane_id, const wire::Event& event) {
  Host* h = host(pane_id);
  if (!h || !h->published) return;
  Txn txn;
  if (event.kind == kEventExited) return on_exited(pane_id, event.exit.value_or(wire::ExitStatus{}));
  if (event.kind == kEventTitle && event.title) {
    if (auto r = store_.set_pane_title(txn, pane_id, *event.title); !r.ok())
      log::warn("title of " + pane_id + ": " + r.error().message);
  } else if (event.kind == kEventBell) {
    check_invariant(store_.raise_pane_attention(txn, pane_id, protocol::Attention::Unread, {}),
                    "bell of a hosted pane");
  } else if (event.kind == kEventNotification) {
    // docs/rules.md (Model), Notification: OSC ones are severity info.
    NotificationDraft draft{pane_id, event.title, event.body.value_or(""),
                            protocol::Severity::Info, event.source.value_or("osc9")};
    if (auto r = store_.add_notification(txn, std::move(draft)); !r.ok())
      log::warn("notification of " + pane_id + ": " + r.error().message);
  }
  commit(txn);
}

// docs/rules.md, decision 14: record the exit, then let the ptyhost forget it.
void Supervisor::on_exited(const std::string& pane_id, const wire::ExitStatus& exit) {
  Host* h = host(pane_id);
  if (!h || h->exited) return;
  h->exited = true;
  Txn txn;
  const std::optional<int> code = exit.code.value;
  const std::optional<std::string> signal = exit.signal.value;
  if (auto r = store_.pane_exited(txn, pane_id, code, signal); !r.ok())
    log::warn("exit of " + pane_id + ": " + r.error().message);
  std::weak_ptr<int> alive = alive_;
  commit(txn, [this, alive, pane_id] {
    if (alive.expired()) return;
    Host* h = host(pane_id);
    if (!h) return;
    h->link->request(wire::kOpCollectExit, Json::object(), [](Result<Json>, std::string) {});
    if (h->closing) return finish_close(pane_id);
    refresh_tail(pane_id, true);
  });
}

void Supervisor::on_link_closed(const std::string& pane_id, const PtyhostLink* link,
                                const std::string& why) {
  Host* h = host(pane_id);
  if (!h || h->link.get() != link) return;
  const bool ptyhost_runs = ::kill(static_cast<pid_t>(h->ptyhost_pid), 0) == 0;
  // docs/rules.md, decision 17: a closing pane goes once its child is reaped; a
  // ptyhost that hung up but runs on is linked again and asked again.
  if (h->closing && !(link->peer_hung_up() && ptyhost_runs)) return finish_close(pane_id);
  log::warn("ptyhost of " + pane_id + " went away (" + why + ")");
  // A ptyhost drops a broker that stalls its output and carries on; one
  // that still runs is linked again. One we dropped for breaking the
  // protocol is not trusted again.
  const auto now = SteadyClock::now();
  if ((h->closing || (h->published && now - h->last_relink >= kRelinkInterval)) &&
      link->peer_hung_up() && ptyhost_runs) {
    h->last_relink = now;
    return relink(pane_id);
  }
  lost_ptyhost(pane_id);
}

void Supervisor::relink(const std::string& pane_id) {
  Host* h = host(pane_id);
  auto link = std::make_shared<PtyhostLink>(io_, socket_path_of(pane_id));
  PtyhostLink::Handlers handlers = handlers_for(pane_id, link.get());
  std::weak_ptr<int> alive = alive_;
  PtyhostLink::Options options{pane_id, std::nullopt, kAdoptHelloTimeout};
  link->start(options, std::move(handlers),
              [this, alive, link, pane_id, old = h->link.get()](Result<wire::Hello> hello,
                                                                 LinkFailure) {
                if (alive.expired()) return;
                Host* h = host(pane_id);
                if (!h || h->link.get() != old) {  // closed or removed meanwhile
                  if (hello.ok()) link->close("no longer wanted");
                  return;
                }
                if (!hello.ok() || link->peer_pid() != h->ptyhost_pid ||
                    hello->ptyhost_pid != h->ptyhost_pid) {
                  log::warn("ptyhost of " + pane_id + " could not be linked again" +
                            (hello.ok() ? ": pid mismatch" : ": " + hello.error().message));
                  if (hello.ok()) link->close("not linked again");
                  return lost_ptyhost(pane_id);
                }
                h->link = link;
                log::info("ptyhost of " + pane_id + " linked again");
                // Viewers see a forward gap in output_offset and reattach.
                if (h->streaming)
                  link->request(wire::kOpStream, Json{{"on", true}}, [](Result<Json>, std::string) {});
                if (hello->exited) return on_exited(pane_id, *hello->exited);
                if (h->closing) send_close(pane_id);
              });
}

void Supervisor::lost_ptyhost(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h) return;
  if (h->closing) return finish_close(pane_id);  // nothing is left to reap
  const bool published = h->published;
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
  h->link->request(wire::kOpClose, Json{{"signo", h->close_signo}, {"kill_after_ms", kill_after_ms}},
                   [this, alive, pane_id, link = h->link.get()](Result<Json> r, std::string) {
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
