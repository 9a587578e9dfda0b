// broker/audit_anchor.hpp: anchors the audit journal's chain head outside
// the state dir: the head (seq and hash, nothing else) goes to the system
// log at start, at every rotation, at most 10 minutes after it last moved
// while records are written, and at shutdown (docs/security.md, Audit
// journal). A reviewer keeps such a line and later runs
// `signaltty audit verify --anchor SEQ:HASH`.
// Runs in: broker: committed()/anchor_now() on the journal thread, the
// periodic anchor on its own timer thread. Never: logs a record's content.
//
// Usage:
//   HeadAnchor anchor(syslog_anchor_sink(), kAnchorInterval);
//   anchor.anchor_now(head, "rotation");   // journal thread
//   anchor.committed(head);                // after each sync
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "common/audit_chain.hpp"

namespace signaltty::broker {

// docs/security.md, Audit journal: the longest a moved head waits for its anchor.
inline constexpr std::chrono::milliseconds kAnchorInterval = std::chrono::minutes(10);

// Receives each anchored head and why it was anchored ("start", "rotation",
// "periodic", "stop"). Called from the journal thread or the timer thread,
// never both at once.
using AnchorSink = std::function<void(const audit::ChainHead& head, std::string_view why)>;

// "signaltty audit head SEQ:HASH (why)": the syslog line.
std::string anchor_message(const audit::ChainHead& head, std::string_view why);
// The production sink: syslog(3), facility user, priority notice.
AnchorSink syslog_anchor_sink();

class HeadAnchor {
 public:
  HeadAnchor(AnchorSink sink, std::chrono::milliseconds interval);
  // Anchors the last committed head if it moved since the last anchor.
  ~HeadAnchor();
  HeadAnchor(const HeadAnchor&) = delete;
  HeadAnchor& operator=(const HeadAnchor&) = delete;

  // The head of the last sync; the timer anchors it once the interval has
  // passed since the previous anchor.
  void committed(const audit::ChainHead& head);
  // Anchors `head` now (an empty head is not anchored).
  void anchor_now(const audit::ChainHead& head, std::string_view why);

 private:
  void run();
  void anchor_locked(std::unique_lock<std::mutex>& lock, const audit::ChainHead& head,
                     std::string_view why);

  const AnchorSink sink_;
  const std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  audit::ChainHead committed_;
  audit::ChainHead anchored_;
  std::chrono::steady_clock::time_point anchored_at_;
  bool stopping_ = false;
  bool sinking_ = false;  // one sink call at a time
  std::thread timer_;
};

}  // namespace signaltty::broker
