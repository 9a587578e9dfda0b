// broker/store_notifications.cpp: the store's notifications and pane
// activity (docs/rules.md (Model), Notification and Pane last_activity_at; docs/rules.md (Panes and PTYs),
// Output path; docs/rules.md, decision 19): the records the server keeps, what a
// notification does to its pane, and output touching last_activity_at
// without ever becoming an event.
// Runs in: broker (io thread). Never: parses terminal bytes (the ptyhost
// does); it only caps and cleans the text it is handed.
#include <algorithm>

#include "broker/handle.hpp"
#include "broker/store.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"
#include "common/pane_size.hpp"
#include "common/log.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

namespace ev = protocol::ev;
using protocol::Attention;
using protocol::Json;
using protocol::Pane;
using protocol::Severity;

namespace {

// docs/rules.md (Model), Notification: the title of one that has none.
constexpr std::string_view kDefaultNotificationTitle = "signaltty";
// docs/rules.md (Panes and PTYs), OSC scanner: OSC 9 carries progress as `9;4;…`; docs/rules.md, decision 19.
constexpr std::string_view kOsc9Source = "osc9";
constexpr std::string_view kProgressCode = "4";
// docs/rules.md (Model), Notification: the mark of a body cut for last_message.
constexpr std::string_view kEllipsis = "\u2026";

bool is_progress(const NotificationDraft& draft) {
  if (draft.source != kOsc9Source) return false;
  const std::string_view body = draft.body;
  return body == kProgressCode ||
         (body.starts_with(kProgressCode) && body.size() > kProgressCode.size() &&
          body[kProgressCode.size()] == ';');
}

Attention attention_of(Severity severity) {
  switch (severity) {
    case Severity::Warning: return Attention::Warning;
    case Severity::Error: return Attention::Error;
    case Severity::Info: break;
  }
  return Attention::Unread;
}

// `title: body` with the body cut when a title was given, else the body.
std::string last_message_of(const std::optional<std::string>& given_title, const std::string& body) {
  if (!given_title) return body;
  std::string cut = cut_code_points(body, limits::kLastMessageBodyMaxChars);
  if (cut.size() < body.size()) cut += kEllipsis;
  return *given_title + ": " + cut;
}

}  // namespace

protocol::PtySize clamp_pty_size(int cols, int rows) {
  const ClampedPaneSize size = clamp_pane_size(cols, rows);
  return {size.cols, size.rows};
}

Result<std::optional<Json>> Store::add_notification(Txn& txn, NotificationDraft draft) {
  if (is_progress(draft)) return std::optional<Json>{};
  Pane* pane = nullptr;
  if (draft.pane_id) {
    SIGNALTTY_TRY(const Pane* found, find_pane(*draft.pane_id));
    pane = &pane_at(found->id);
  }
  std::optional<std::string> title;
  if (draft.title) title = sanitize_notification_text(*draft.title, limits::kNotificationTitleMaxChars);
  if (title && title->empty()) title.reset();
  const std::string body = sanitize_notification_text(draft.body, limits::kNotificationBodyMaxChars);
  const std::string now = clock_();
  Json record{{"id", new_id("notif")},
              {"title", title.value_or(std::string(kDefaultNotificationTitle))},
              {"severity", protocol::encode(draft.severity)},
              {"source", draft.source},
              {"created_at", now}};
  if (!body.empty()) record["body"] = body;
  if (pane) {
    record["pane_id"] = pane->id;
    record["workspace_id"] = pane->workspace_id;
  }
  notifications_.push_back(record);
  while (notifications_.size() > limits::kNotificationsKept) notifications_.pop_front();
  txn.emit<ev::NotificationCreated>(Json{{"notification", record}});
  if (pane) {
    if (!body.empty()) pane->last_message = last_message_of(title, body);
    pane->last_activity_at = now;
    set_attention(txn, *pane, std::max(pane->attention, attention_of(draft.severity)));
  }
  changed();
  return std::optional<Json>(std::move(record));
}

void Store::restore_notifications(std::vector<Json> notifications) {
  for (Json& n : notifications) {
    if (!n.is_object() || !n.contains("id")) {
      log::warn("snapshot: a notification without an id dropped");
      continue;
    }
    notifications_.push_back(std::move(n));
  }
  while (notifications_.size() > limits::kNotificationsKept) notifications_.pop_front();
}

void Store::note_output(std::string_view pane_id, std::chrono::steady_clock::time_point now) {
  auto pane = panes_.find(pane_id);
  if (pane == panes_.end()) return;
  auto touched = activity_touched_.find(pane_id);
  if (touched != activity_touched_.end() && now - touched->second < limits::kActivityTouchInterval)
    return;
  activity_touched_.insert_or_assign(std::string(pane_id), now);
  pane->second.last_activity_at = clock_();
}

}  // namespace signaltty::broker
