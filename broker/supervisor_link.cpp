// broker/supervisor_link.cpp: what a pane's ptyhost link reports (output
// to viewers; title, bell, notification and exit events) and what happens
// when the link ends (linked again to a live ptyhost that hung up, else the
// ptyhost is lost). OSC titles are coalesced per pane (docs/rules.md, decision 26).
// Runs in: broker (io thread).
// Never: links again to a ptyhost dropped for breaking the protocol, or
// stores a title more often than limits::kPaneTitleCoalesce.
#include <csignal>

#include "broker/ptyhost_text.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "broker/viewers.hpp"
#include "common/check.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

using SteadyClock = std::chrono::steady_clock;

}  // namespace

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

// ---- what ptyhosts report ---------------------------------------------------------

void Supervisor::on_event(const std::string& pane_id, const wire::Event& event) {
  Host* h = host(pane_id);
  if (!h || !h->published) return;
  if (event.kind == wire::EventKind::Exited)
    return on_exited(pane_id, event.exit.value_or(wire::ExitStatus{}));
  if (event.kind == wire::EventKind::Title) {
    if (event.title) on_title(pane_id, *event.title);
    return;
  }
  if (event.kind == wire::EventKind::ScreenChanged)
    return notify_screen(pane_id, ScreenNotice::Changed);
  if (event.kind == wire::EventKind::Foreground)
    return notify_screen(pane_id, ScreenNotice::Foreground);
  if (event.kind == wire::EventKind::Printed) return note_printed(pane_id);
  Txn txn;
  if (event.kind == wire::EventKind::Bell) {
    check_invariant(store_.raise_pane_attention(txn, pane_id, protocol::Attention::Unread, {}),
                    "bell of a hosted pane");
  } else if (event.kind == wire::EventKind::Notification) {
    // docs/rules.md "Notifications": OSC ones are severity info; the store
    // cleans and cuts their text as it does every notification's.
    NotificationDraft draft{pane_id, event.title, event.body.value_or(""),
                            protocol::Severity::Info, notification_source(event.source)};
    if (auto r = store_.add_notification(txn, std::move(draft)); !r.ok())
      log::warn("notification of " + pane_id + ": " + r.error().message);
  }
  commit(txn);
}

// Stored at once when the last one is older than the interval, else once
// the interval is over, whichever title is latest by then.
void Supervisor::on_title(const std::string& pane_id, std::string title) {
  Host* h = host(pane_id);
  h->pending_title = std::move(title);
  if (h->title_timer) return;  // already waiting to store
  const auto due = h->title_stored_at + limits::kPaneTitleCoalesce;
  if (SteadyClock::now() >= due) return store_pending_title(pane_id);
  h->title_timer = std::make_shared<boost::asio::steady_timer>(io_, due);
  std::weak_ptr<int> alive = alive_;
  h->title_timer->async_wait([this, alive, pane_id](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    if (Host* h = host(pane_id)) {
      h->title_timer.reset();
      store_pending_title(pane_id);
    }
  });
}

void Supervisor::store_pending_title(const std::string& pane_id) {
  Host* h = host(pane_id);
  if (!h || !h->pending_title) return;
  const std::string title = std::move(*h->pending_title);
  h->pending_title.reset();
  h->title_stored_at = SteadyClock::now();
  Txn txn;
  if (auto r = store_.set_pane_title(txn, pane_id, title); !r.ok())
    log::warn("title of " + pane_id + ": " + r.error().message);
  commit(txn);
}

// ---- the link's end --------------------------------------------------------------

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
  relinking_[pane_id];  // requests from now on wait for the outcome
  auto link = std::make_shared<PtyhostLink>(io_, socket_path_of(pane_id));
  PtyhostLink::Handlers handlers = handlers_for(pane_id, link.get());
  std::weak_ptr<int> alive = alive_;
  PtyhostLink::Options options{pane_id, std::nullopt, kAdoptHelloTimeout};
  link->start(options, std::move(handlers),
              [this, alive, link, pane_id, old = h->link.get()](Result<wire::Hello> hello,
                                                                 LinkFailure) {
                if (alive.expired()) return;
                std::vector<std::function<void()>> waiting;
                if (auto it = relinking_.find(pane_id); it != relinking_.end()) {
                  waiting = std::move(it->second);
                  relinking_.erase(it);
                }
                finish_relink(pane_id, link, old, std::move(hello));
                // Each asks again: on the new link, or answered as the pane now is.
                for (auto& retry : waiting) retry();
              });
}

void Supervisor::finish_relink(const std::string& pane_id, const std::shared_ptr<PtyhostLink>& link,
                               const PtyhostLink* old, Result<wire::Hello> hello) {
  Host* h = host(pane_id);
  if (!h || h->link.get() != old) {  // closed or removed meanwhile
    if (hello.ok()) link->close("no longer wanted");
    return;
  }
  if (!hello.ok() || link->peer_pid() != h->ptyhost_pid || hello->ptyhost_pid != h->ptyhost_pid) {
    log::warn("ptyhost of " + pane_id + " could not be linked again" +
              (hello.ok() ? ": pid mismatch" : ": " + hello.error().message));
    if (hello.ok()) link->close("not linked again");
    return lost_ptyhost(pane_id);
  }
  h->link = link;
  log::info("ptyhost of " + pane_id + " linked again");
  notify_screen(pane_id, ScreenNotice::Linked);
  note_printed(pane_id);
  // Viewers see a forward gap in output_offset and reattach.
  if (h->streaming) link->stream({.on = true}, [](Result<wire::StreamReply>, std::string) {});
  if (hello->exited) return on_exited(pane_id, *hello->exited);
  if (h->closing) send_close(pane_id);
}

bool Supervisor::retry_after_relink(const std::string& pane_id, const Error& error,
                                    std::function<void()> retry) {
  return error.code == ErrorCode::PaneExited && wait_for_relink(pane_id, std::move(retry));
}

bool Supervisor::wait_for_relink(const std::string& pane_id, std::function<void()> retry) {
  auto it = relinking_.find(pane_id);
  if (it == relinking_.end()) return false;
  it->second.push_back(std::move(retry));
  return true;
}

}  // namespace signaltty::broker
