// broker/viewers.cpp: viewer registrations and pty.data fan-out.
// Runs in: broker (io thread).
#include "broker/viewers.hpp"

#include <deque>

#include "common/base64.hpp"
#include "common/log.hpp"
#include "common/protocol/envelope.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

void Viewers::hold(const std::shared_ptr<Session>& session, const std::string& pane_id) {
  Viewer& viewer = by_pane_[pane_id][session->session_id()];
  viewer.session = session;
  viewer.held = true;
}

void Viewers::release(std::uint64_t session_id, const std::string& pane_id,
                      std::uint64_t offset) {
  auto pane = by_pane_.find(pane_id);
  if (pane == by_pane_.end()) return;
  auto it = pane->second.find(session_id);
  if (it == pane->second.end() || !it->second.held) return;
  Viewer& viewer = it->second;
  auto session = viewer.session.lock();
  viewer.held = false;
  std::deque<Held> held = viewer.pending.drain();
  if (!session) return;
  for (Held& chunk : held)
    if (chunk.end_offset > offset) session->send(std::move(chunk.line));
}

bool Viewers::remove(std::uint64_t session_id, const std::string& pane_id) {
  auto pane = by_pane_.find(pane_id);
  if (pane == by_pane_.end()) return false;
  const bool removed = pane->second.erase(session_id) > 0;
  if (pane->second.empty()) by_pane_.erase(pane);
  return removed;
}

std::vector<std::string> Viewers::drop_session(std::uint64_t session_id) {
  std::vector<std::string> viewed;
  for (auto it = by_pane_.begin(); it != by_pane_.end();) {
    if (it->second.erase(session_id) > 0) viewed.push_back(it->first);
    it = it->second.empty() ? by_pane_.erase(it) : std::next(it);
  }
  return viewed;
}

void Viewers::drop_pane(const std::string& pane_id) { by_pane_.erase(pane_id); }

bool Viewers::has_viewers(const std::string& pane_id) const {
  auto it = by_pane_.find(pane_id);
  return it != by_pane_.end() && !it->second.empty();
}

// Sends after the walk (see the header).
void Viewers::publish(const std::string& pane_id, std::uint64_t end_offset,
                      std::string_view bytes) {
  if (!has_viewers(pane_id)) return;
  const std::string line = protocol::encode_pty_data_line(pane_id, next_seq_(), end_offset, bytes);
  const Delivery delivery = deliver_or_hold(pane_id, end_offset, line);
  for (const auto& session : delivery.live) session->send(line);
  for (const auto& session : delivery.overflowed) {
    log::warn("viewer of " + pane_id + " held too much output during attach; disconnecting");
    session->close_after_flush();
  }
}

// A closed session is skipped, not forgotten: drop_session() does that.
Viewers::Delivery Viewers::deliver_or_hold(const std::string& pane_id, std::uint64_t end_offset,
                                           const std::string& line) {
  Delivery delivery;
  auto& viewers = by_pane_.find(pane_id)->second;
  for (auto it = viewers.begin(); it != viewers.end();) {
    Viewer& viewer = it->second;
    auto session = viewer.session.lock();
    if (!session) {
      it = viewers.erase(it);
      continue;
    }
    if (session->closed() || viewer.pending.overflowed()) {
      ++it;
      continue;
    }
    if (!viewer.held)
      delivery.live.push_back(std::move(session));
    else if (!viewer.pending.push({end_offset, line}))
      delivery.overflowed.push_back(std::move(session));
    ++it;
  }
  if (viewers.empty()) by_pane_.erase(pane_id);
  return delivery;
}

}  // namespace signaltty::broker
