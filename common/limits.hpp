// common/limits.hpp: every limit of the spec as a named constant, with the
// section that sets it. Runs in: every process.
// Never: holds tunables that are not in the spec without saying so.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace signaltty::limits {

// seeds/08-ipc.md, transport: one JSONL line, request or response.
inline constexpr std::size_t kMaxLineBytes = 16u << 20;
// Our bound on JSON nesting from any peer (not in the seed): deeper text is
// refused before it is parsed (BAD_PROTOCOL), so no tree a peer sends can
// make a copy or dump of it recurse deeper than this. The deepest legal
// document is a layout tree (kLayoutMaxDepth, one object per level) inside
// an envelope of a few levels; this leaves room for that and no more.
inline constexpr std::size_t kJsonMaxDepth = 128;
// Our cap on one control frame (a reply, an event, a Hello) from a ptyhost
// (not in the seed): whatever a ptyhost replies must fit in a client line,
// so a larger one is a broken or hostile ptyhost and is disconnected. Bulk
// state travels in State frames, capped by the frame size.
inline constexpr std::size_t kPtyhostControlMaxBytes = kMaxLineBytes;

// Our cap on bytes queued towards one client (not in the seed): a client
// that stops reading is dropped once its queue passes this, so it can never
// pin broker memory or delay other clients. Room for several max lines.
inline constexpr std::size_t kClientQueueCapBytes = 64u << 20;

// persistence.md, replay: in-memory ring of state events.
inline constexpr std::size_t kEventRingSize = 1024;
// persistence.md, replay: more matching events than this is `truncated`.
inline constexpr std::size_t kReplayMaxEvents = 4096;
// persistence.md, sequence reservation: numbers reserved per durable write.
inline constexpr std::uint64_t kSeqReservationBlock = 4096;
// persistence.md, event journal: rotation threshold of audit.jsonl.
inline constexpr std::uint64_t kJournalRotateBytes = 8u << 20;
// persistence.md, snapshot triggers: a structural change is flushed at most
// once per this interval.
inline constexpr std::chrono::milliseconds kSnapshotDebounce{2000};

// model.md: workspace handles are cut at this many characters.
inline constexpr std::size_t kHandleMaxChars = 32;
// model.md: pane names are at most this many bytes.
inline constexpr std::size_t kPaneNameMaxBytes = 32;
// model.md: tab.set_ratio / layout split ratios are clamped to this range.
inline constexpr double kRatioMin = 0.05;
inline constexpr double kRatioMax = 0.95;
// decisions.md §26: a pane's OSC title changes reach the journal at most
// once per this interval, carrying the latest title.
inline constexpr std::chrono::milliseconds kPaneTitleCoalesce{1000};
// model.md: titles (workspace/tab names included) are cut at this length.
inline constexpr std::size_t kTitleMaxChars = 200;
// security.md, output handling: notification bodies are cut at this length.
inline constexpr std::size_t kNotificationBodyMaxChars = 2000;
// security.md, report-session resume_argv: at most this many arguments and
// bytes in all; we hold a recovered pane's argv to the same rule.
inline constexpr std::size_t kArgvMaxArgs = 64;
inline constexpr std::size_t kArgvMaxBytes = 8u << 10;
// Our bound on a path a ptyhost reports (not in the seed): PATH_MAX.
inline constexpr std::size_t kPathMaxBytes = 4096;
// Our bound on a signal name a ptyhost reports (not in the seed).
inline constexpr std::size_t kSignalNameMaxChars = 16;
// Our bound on the short free strings of a recovered pane record (agent
// session id, model, label, …; not in the seed).
inline constexpr std::size_t kRecordStringMaxChars = 256;
// Our bound on a layout tree's depth from clients (not in the seed): deeper
// trees than panes a tab could hold are refused before recursion.
inline constexpr std::size_t kLayoutMaxDepth = 64;
// Our bound on workspace/tab names from clients (not in the seed).
inline constexpr std::size_t kNameMaxBytes = 256;

// pty.md: size clamps and default.
inline constexpr int kPaneColsMin = 20;
inline constexpr int kPaneColsMax = 500;
inline constexpr int kPaneRowsMin = 5;
inline constexpr int kPaneRowsMax = 200;
inline constexpr int kPaneColsDefault = 80;
inline constexpr int kPaneRowsDefault = 24;

}  // namespace signaltty::limits
