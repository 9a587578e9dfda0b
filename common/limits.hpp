// common/limits.hpp: every limit of the protocol as a named constant, with
// the section of docs/rules.md that sets it. Runs in: every process.
// Never: holds tunables that are not in docs/rules.md without saying so.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace signaltty::limits {

// docs/rules.md, Transport: one JSONL line, request or response.
inline constexpr std::size_t kMaxLineBytes = 16u << 20;
// Our bound on JSON nesting from any peer (not in the seed): deeper text is
// refused before it is parsed (BAD_PROTOCOL), so no tree a peer sends can
// make a copy or dump of it recurse deeper than this. The deepest legal
// document is a layout tree (kLayoutMaxDepth, one object per level) inside
// an envelope of a few levels; this leaves room for that and no more.
inline constexpr std::size_t kJsonMaxDepth = 128;
// Our cap on one control frame (a reply, an event, a Hello) from a ptyhost
// (ours, not the protocol's): whatever a ptyhost replies must fit in a client
// line, so a larger one is a broken or hostile ptyhost and is disconnected.
// Bulk state travels in State frames, capped by the frame size.
inline constexpr std::size_t kPtyhostControlMaxBytes = kMaxLineBytes;

// Our cap on bytes queued towards one client (ours, not the protocol's): a client
// that stops reading is dropped once its queue passes this, so it can never
// pin broker memory or delay other clients. Room for several max lines.
inline constexpr std::size_t kClientQueueCapBytes = 64u << 20;
// All clients together may have this many times one client's cap queued
// (256 MiB by default); past it, the client holding the most is dropped,
// so many clients that stop reading cannot pin memory between them either.
inline constexpr std::size_t kClientQueueBudgetFactor = 4;

// docs/rules.md, Replay: in-memory ring of state events.
inline constexpr std::size_t kEventRingSize = 1024;
// docs/rules.md, Replay: more matching events than this is `truncated`.
inline constexpr std::size_t kReplayMaxEvents = 4096;
// docs/rules.md, Sequence reservation: numbers reserved per durable write.
inline constexpr std::uint64_t kSeqReservationBlock = 4096;
// docs/rules.md, Event journal: rotation threshold of audit.jsonl.
inline constexpr std::uint64_t kJournalRotateBytes = 8u << 20;
// docs/rules.md, Snapshot: a structural change is flushed at most
// once per this interval.
inline constexpr std::chrono::milliseconds kSnapshotDebounce{2000};
// docs/rules.md (Persistence), snapshots/: rotating copies kept, and at most one per
// this interval.
inline constexpr std::size_t kSnapshotCopiesKept = 48;
inline constexpr std::chrono::minutes kSnapshotCopyInterval{15};
// docs/rules.md (Persistence), logind: a failed system bus connection is retried after
// this, doubling up to the maximum.
inline constexpr std::chrono::milliseconds kLogindRetryFirst{1000};
inline constexpr std::chrono::milliseconds kLogindRetryMax{60000};

// docs/rules.md, Ids, handles, names: workspace handles are cut at this many characters.
inline constexpr std::size_t kHandleMaxChars = 32;
// docs/rules.md, Ids, handles, names: pane names are at most this many bytes.
inline constexpr std::size_t kPaneNameMaxBytes = 32;
// docs/rules.md, Tab and layout: tab.set_ratio / layout split ratios are clamped to this range.
inline constexpr double kRatioMin = 0.05;
inline constexpr double kRatioMax = 0.95;
// docs/rules.md, decision 26: a pane's OSC title changes reach the journal
// at most once per this interval, carrying the latest title.
inline constexpr std::chrono::milliseconds kPaneTitleCoalesce{1000};
// docs/rules.md, Ids, handles, names: titles (workspace/tab names included) are cut at this length.
inline constexpr std::size_t kTitleMaxChars = 200;
// docs/rules.md "Ptyhost strings": a recovered pane's argv (like a
// report-session resume_argv) has at most this many arguments and bytes.
inline constexpr std::size_t kArgvMaxArgs = 64;
inline constexpr std::size_t kArgvMaxBytes = 8u << 10;
// Our bound on a path a ptyhost reports (ours, not the protocol's): PATH_MAX.
inline constexpr std::size_t kPathMaxBytes = 4096;
// Our bound on a signal name a ptyhost reports (ours, not the protocol's).
inline constexpr std::size_t kSignalNameMaxChars = 16;
// Our bound on the short free strings of a recovered pane record (agent
// session id, model, label, …; ours, not the protocol's).
inline constexpr std::size_t kRecordStringMaxChars = 256;
// Our bound on a layout tree's depth from clients (ours, not the protocol's): deeper
// trees than panes a tab could hold are refused before recursion.
inline constexpr std::size_t kLayoutMaxDepth = 64;
// Our bound on workspace/tab names from clients (ours, not the protocol's).
inline constexpr std::size_t kNameMaxBytes = 256;

// docs/rules.md "Reads": the most lines one pane read returns (tail,
// rendered and the broker's own tail reads alike).
inline constexpr std::size_t kReadMaxLines = 5000;

// docs/rules.md, Spawn: size clamps and default.
inline constexpr int kPaneColsMin = 20;
inline constexpr int kPaneColsMax = 500;
inline constexpr int kPaneRowsMin = 5;
inline constexpr int kPaneRowsMax = 200;
inline constexpr int kPaneColsDefault = 80;
inline constexpr int kPaneRowsDefault = 24;

// docs/rules.md (Model), Notification: text caps in code points, the body's share of
// last_message when a title is given, and how many the server keeps.
inline constexpr std::size_t kNotificationTitleMaxChars = 200;
inline constexpr std::size_t kNotificationBodyMaxChars = 2000;
inline constexpr std::size_t kLastMessageBodyMaxChars = 300;
inline constexpr std::size_t kNotificationsKept = 200;

// Our bound (not in the spec): pane output moves last_activity_at at most
// this often per pane, so a chatty program costs no more than that.
inline constexpr std::chrono::milliseconds kActivityTouchInterval{1000};

// docs/rules.md "Decision": our caps on a pending decision (not in the
// spec). The prompt is cut at a code point boundary (a native prompt holds
// the pretty-printed tool input); ids, options and labels past their cap
// are BAD_PARAMS.
inline constexpr std::size_t kDecisionPromptMaxChars = 4000;
inline constexpr std::size_t kDecisionIdMaxBytes = 128;
inline constexpr std::size_t kDecisionOptionsMax = 16;
inline constexpr std::size_t kDecisionOptionIdMaxBytes = 64;
inline constexpr std::size_t kDecisionLabelMaxChars = 200;

// docs/rules.md "Agent integrations": an agent config file larger than this
// is refused; the advisory lock beside it is retried every tick for at most
// the budget; the hook timeouts the installer writes (seconds), and the
// OpenCode plugin's bound on one relay run.
inline constexpr std::size_t kIntegrationFileMaxBytes = 4u << 20;
inline constexpr std::chrono::milliseconds kIntegrationLockRetryTick{5};
inline constexpr std::chrono::milliseconds kIntegrationLockBudget{100};
inline constexpr int kHookTimeoutWaitingSecs = 125;
inline constexpr int kHookTimeoutCodexSecs = 3;
inline constexpr int kHookTimeoutDefaultSecs = 10;
inline constexpr int kOpencodeRelayTimeoutMs = 8000;

}  // namespace signaltty::limits
