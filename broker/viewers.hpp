// broker/viewers.hpp: the attach registry (docs/rules.md "Attach / detach";
// docs/rules.md pty.data): which sessions view which panes, and the
// fan-out of a pane's output to them as `pty.data {pane_id, data_b64,
// output_offset}` events, each taking an ephemeral seq (never journaled).
// Base64 happens here, at the client edge.
// Runs in: broker (io thread).
// Never: sends a pane's output to a session that did not attach it, or a
// chunk ahead of the attach reply: an attaching viewer is held (its chunks
// kept) until the reply is queued, then released from the snapshot offset.
// Never sends while walking its registrations: a send can close a session,
// and a closed session's registrations go only through drop_session(), so
// the panes it viewed are reported (docs/architecture.md, "Closing a
// connection").
//
// Usage (pane.attach):
//   viewers.hold(session, pane_id);            // before the snapshot
//   ... reply(result); pipeline.after_durable([&] { viewers.release(sid, pane_id, offset); });
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker/session.hpp"
#include "common/bounded_queue.hpp"

namespace signaltty::broker {

// Output a held viewer may accumulate before its connection is closed, as a
// client that lags is (docs/rules.md (Panes and PTYs), Output path); it reconnects and reattaches.
inline constexpr std::size_t kHeldOutputCapBytes = 16u << 20;

class Viewers {
 public:
  // Issues the seq of one pty.data event.
  using SeqSource = std::function<std::uint64_t()>;
  explicit Viewers(SeqSource next_seq) : next_seq_(std::move(next_seq)) {}

  // Registers (or re-registers) `session` as a viewer of `pane_id`, held.
  void hold(const std::shared_ptr<Session>& session, const std::string& pane_id);
  // The attach reply is queued: sends the held chunks that end past
  // `offset`, then streams live. A viewer that detached meanwhile is skipped.
  void release(std::uint64_t session_id, const std::string& pane_id, std::uint64_t offset);
  // pane.detach: true if it was a viewer.
  bool remove(std::uint64_t session_id, const std::string& pane_id);
  // The connection closed; its registrations go. Returns the panes it viewed.
  std::vector<std::string> drop_session(std::uint64_t session_id);
  // The pane was closed.
  void drop_pane(const std::string& pane_id);

  bool has_viewers(const std::string& pane_id) const;
  // One output chunk of `pane_id` ending at `end_offset`. A viewer whose
  // held output passes kHeldOutputCapBytes has its connection closed.
  void publish(const std::string& pane_id, std::uint64_t end_offset, std::string_view bytes);

 private:
  struct Held {
    std::uint64_t end_offset = 0;
    std::string line;
    std::size_t size() const { return line.size(); }
  };
  struct Viewer {
    std::weak_ptr<Session> session;
    bool held = false;
    BoundedQueue<Held> pending{kHeldOutputCapBytes, OverflowPolicy::kDropReader};
  };
  // Who gets one chunk, gathered before anything is sent.
  struct Delivery {
    std::vector<std::shared_ptr<Session>> live;
    std::vector<std::shared_ptr<Session>> overflowed;
  };
  Delivery deliver_or_hold(const std::string& pane_id, std::uint64_t end_offset,
                           const std::string& line);

  SeqSource next_seq_;
  std::map<std::string, std::map<std::uint64_t, Viewer>, std::less<>> by_pane_;
};

}  // namespace signaltty::broker
