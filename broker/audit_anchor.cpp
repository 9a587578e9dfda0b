// broker/audit_anchor.cpp: the chain head to the system log, on events and
// on a timer.
// Runs in: broker (journal thread and the anchor's timer thread).
#include "broker/audit_anchor.hpp"

#include <syslog.h>

namespace signaltty::broker {

std::string anchor_message(const audit::ChainHead& head, std::string_view why) {
  return "signaltty audit head " + audit::format_head(head) + " (" + std::string(why) + ")";
}

AnchorSink syslog_anchor_sink() {
  return [](const audit::ChainHead& head, std::string_view why) {
    // journald keeps the line with our uid, pid and time.
    ::syslog(LOG_USER | LOG_NOTICE, "%s", anchor_message(head, why).c_str());
  };
}

HeadAnchor::HeadAnchor(AnchorSink sink, std::chrono::milliseconds interval)
    : sink_(std::move(sink)),
      interval_(interval),
      anchored_at_(std::chrono::steady_clock::now()),
      timer_([this] { run(); }) {}

HeadAnchor::~HeadAnchor() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  wake_.notify_all();
  lock.unlock();
  timer_.join();
  lock.lock();
  if (committed_ != anchored_) anchor_locked(lock, committed_, "stop");
}

void HeadAnchor::committed(const audit::ChainHead& head) {
  std::lock_guard lock(mutex_);
  committed_ = head;
  wake_.notify_all();
}

void HeadAnchor::anchor_now(const audit::ChainHead& head, std::string_view why) {
  std::unique_lock lock(mutex_);
  committed_ = head;
  anchor_locked(lock, head, why);
}

// The sink runs without the lock (syslog may block), one call at a time.
void HeadAnchor::anchor_locked(std::unique_lock<std::mutex>& lock, const audit::ChainHead& head,
                               std::string_view why) {
  if (head.empty()) return;
  wake_.wait(lock, [this] { return !sinking_; });
  anchored_ = head;
  anchored_at_ = std::chrono::steady_clock::now();
  sinking_ = true;
  const std::string reason(why);
  lock.unlock();
  sink_(head, reason);
  lock.lock();
  sinking_ = false;
  wake_.notify_all();
}

// Sleeps until the head has moved and the interval since the last anchor
// has passed, then anchors; a quiet journal costs no wake-ups.
void HeadAnchor::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (committed_ == anchored_ || sinking_) {
      wake_.wait(lock);
      continue;
    }
    const auto due = anchored_at_ + interval_;
    if (std::chrono::steady_clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    anchor_locked(lock, committed_, "periodic");
  }
}

}  // namespace signaltty::broker
