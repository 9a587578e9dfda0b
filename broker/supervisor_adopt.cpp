// broker/supervisor_adopt.cpp: re-adopting the ptyhosts a previous broker
// left running (docs/rules.md: "The broker can die and nothing is lost",
// decisions 1-3). Every candidate is probed at once; a live one keeps its
// pane id, pids, process_instance and offsets; a missing one restores its
// pane (docs/rules.md, Restore); a stale socket (ECONNREFUSED) is removed;
// an unknown one that never started a program is closed.
// Runs in: broker (io thread), before the listener opens.
// Never: kills or unlinks a ptyhost that runs or ran a program, whatever it
// said; a peer with another uid, a pid that differs from the record, or a
// Hello we cannot speak is logged and left alone.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <set>

#include "broker/event_pipeline.hpp"
#include "broker/ptyhost_text.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/check.hpp"
#include "common/fs.hpp"
#include "common/ids.hpp"
#include "common/log.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

using protocol::Json;
using protocol::Pane;
using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kSocketSuffix = ".sock";
constexpr std::string_view kLiveState = "live";

// Pane ids with a socket in `dir`.
std::set<std::string> socket_pane_ids(const std::string& dir) {
  std::set<std::string> out;
  std::unique_ptr<DIR, DirCloser> d(::opendir(dir.c_str()));
  if (!d) return out;
  while (const dirent* entry = ::readdir(d.get())) {
    std::string_view name = entry->d_name;
    if (name.size() <= kSocketSuffix.size() ||
        name.substr(name.size() - kSocketSuffix.size()) != kSocketSuffix)
      continue;
    std::string_view stem = name.substr(0, name.size() - kSocketSuffix.size());
    if (is_pane_id(stem)) out.emplace(stem);
  }
  return out;
}

// A pane record for a ptyhost the store does not know: its own copy
// (meta) when that decodes, else what its Hello says.
Pane pane_from_hello(const wire::Hello& hello) {
  Pane pane;
  if (auto meta = protocol::decode<Pane>(hello.meta); meta.ok()) pane = std::move(meta).value();
  pane = checked_recovered_pane(std::move(pane), hello.title);
  pane.id = hello.pane_id;
  if (pane.process_instance.empty()) pane.process_instance = new_id("proc");
  if (pane.created_at.empty()) pane.created_at = now_rfc3339();
  if (pane.last_activity_at.empty()) pane.last_activity_at = pane.created_at;
  if (hello.cols > 0 && hello.rows > 0) pane.pty_size = {hello.cols, hello.rows};
  pane.live = protocol::PaneLive{};
  pane.restore_state = protocol::RestoreState::Live;
  pane.ptyhost_pid = hello.ptyhost_pid;
  pane.pid = hello.child_pid;
  pane.exit_code.reset();
  pane.exit_signal.reset();
  pane.exit_reason.reset();
  return pane;
}

}  // namespace

struct Supervisor::Adoption {
  std::size_t outstanding = 0;
  AdoptionReport report;
  SteadyClock::time_point started = SteadyClock::now();
  std::function<void(const AdoptionReport&)> done;
};

void Supervisor::adopt_all(std::function<void(const AdoptionReport&)> done) {
  auto run = std::make_shared<Adoption>();
  run->done = std::move(done);
  std::set<std::string> candidates = socket_pane_ids(config_.panes_dir);
  for (const Pane& pane : store_.list_panes()) {
    if (pane.live.state == kLiveState || pane.ptyhost_pid.has_value()) candidates.insert(pane.id);
  }
  run->outstanding = candidates.size() + 1;  // +1: this loop
  for (const std::string& id : candidates) adopt_one(run, id);
  if (--run->outstanding == 0) pipeline_.after_durable([run] { run->done(run->report); });
}

void Supervisor::adopt_one(const std::shared_ptr<Adoption>& run, const std::string& pane_id) {
  auto link = std::make_shared<PtyhostLink>(io_, socket_path_of(pane_id));
  PtyhostLink::Handlers handlers = handlers_for(pane_id, link.get());
  std::weak_ptr<int> alive = alive_;
  PtyhostLink::Options options{pane_id, std::nullopt, kAdoptHelloTimeout};
  link->start(options, std::move(handlers),
              [this, alive, run, link, pane_id](Result<wire::Hello> hello, LinkFailure failure) {
                if (alive.expired()) return;
                if (hello.ok())
                  adopted(pane_id, link, *hello, run->report);
                else
                  not_adopted(pane_id, failure, hello.error(), run->report);
                if (--run->outstanding > 0) return;
                delete_orphan_tails();
                pipeline_.after_durable([run] {
                  run->report.took = std::chrono::duration_cast<std::chrono::milliseconds>(
                      SteadyClock::now() - run->started);
                  run->done(run->report);
                });
              });
}

void Supervisor::adopted(const std::string& pane_id, const std::shared_ptr<PtyhostLink>& link,
                         const wire::Hello& hello, AdoptionReport& report) {
  const pid_t peer = link->peer_pid();
  auto record = store_.find_pane(pane_id);
  const bool pid_mismatch =
      hello.ptyhost_pid != peer ||
      (record.ok() && (*record)->ptyhost_pid.has_value() && *(*record)->ptyhost_pid != peer);
  if (pid_mismatch) {
    log::warn("ptyhost of " + pane_id + " (pid " + std::to_string(peer) +
              ") does not match the record; left alone");
    link->close("not adopted");
    return not_adopted(pane_id, LinkFailure::Rejected, Error{ErrorCode::Forbidden, "pid mismatch"},
                       report);
  }
  if (!record.ok() && !hello.child_pid.has_value() && !hello.exited)
    return close_unstarted(pane_id, link, report);
  hosts_[pane_id] = Host{link, peer, true, hello.exited.has_value()};
  notify_screen(pane_id, ScreenNotice::Linked);
  note_printed(pane_id);
  Txn txn;
  std::optional<std::int64_t> child;
  if (!hello.exited && hello.child_pid.has_value()) child = *hello.child_pid;
  if (!record.ok()) {
    Pane pane = pane_from_hello(hello);
    pane.pid = child ? protocol::Nullable<std::int64_t>(*child) : std::nullopt;
    if (auto added = store_.add_recovered_pane(txn, std::move(pane)); !added.ok()) {
      log::error("recovering " + pane_id + ": " + added.error().message);
      hosts_.erase(pane_id);
      link->close("not recovered");
      ++report.refused;
      return;
    }
    ++report.recovered;
    log::warn("adopted ptyhost of unknown pane " + pane_id + " (no record in the snapshot)");
  } else {
    check_invariant(store_.set_pane_process(txn, pane_id, child, peer), "process of a known pane");
  }
  if (hello.exited) {
    const wire::ExitStatus exit = checked_exit(*hello.exited);
    check_invariant(store_.pane_exited(txn, pane_id, exit.code.value, exit.signal.value),
                    "exit of an adopted pane");
  }
  if (!hello.title.empty()) {
    check_invariant(store_.set_pane_title(txn, pane_id, hello.title), "title of an adopted pane");
  }
  ++report.adopted;
  const bool collect = hello.exited.has_value() && !hello.exit_collected;
  std::weak_ptr<int> alive = alive_;
  commit(txn, [this, alive, pane_id, collect] {
    if (alive.expired()) return;
    push_meta(pane_id);
    Host* h = host(pane_id);
    if (h && collect)
      h->link->collect_exit([](Result<protocol::Empty>, std::string) {});
  });
}

// docs/rules.md, decision 2: a ptyhost the previous broker launched but
// never sent its spawn runs nothing, and no client heard of its pane (the
// record would be there), so there is nothing to recover: it is told to
// close, as it would close itself once kSpawnWait ran out.
void Supervisor::close_unstarted(const std::string& pane_id,
                                 const std::shared_ptr<PtyhostLink>& link, AdoptionReport& report) {
  log::warn("ptyhost of unknown pane " + pane_id + " never started a program; closing it");
  link->close_pane({SIGKILL, 0},
                   [link](Result<protocol::Empty>, std::string) { link->close("never spawned"); },
                   kPtyhostRequestTimeout);
  ++report.closed;
}

void Supervisor::not_adopted(const std::string& pane_id, LinkFailure failure, const Error& error,
                             AdoptionReport& report) {
  if (failure == LinkFailure::Refused) {
    // Nobody listens: the ptyhost is gone and its socket is stale.
    const std::string path = socket_path_of(pane_id);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && ::unlink(path.c_str()) == 0)
      ++report.stale_sockets;
  } else if (failure != LinkFailure::Absent) {
    log::warn("ptyhost of " + pane_id + " not adopted: " + error.message + "; left running");
    ++report.refused;
  }
  if (!store_.find_pane(pane_id).ok()) return;
  Txn txn;
  check_invariant(store_.pane_without_process(txn, pane_id), "pane of an unadopted ptyhost");
  ++report.restored;
  commit(txn);
}

}  // namespace signaltty::broker
