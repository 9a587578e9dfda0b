// ptyhost/terminal_limits.hpp: the limits of the ptyhost's terminal model as
// named constants, each beside the docs/rules.md section (or our reason)
// that sets it.
// Runs in: ptyhost. Never: holds limits another process must agree on; those
// live in common/limits.hpp.
#pragma once

#include <cstddef>

#include "common/limits.hpp"

namespace signaltty::ptyhost::limits {

// docs/rules.md "Rendered ring": content lines kept per pane once scrolled off.
inline constexpr std::size_t kHistoryMaxLines = 5000;
// docs/rules.md "Reads": the largest `lines` a read may ask for, shared with the
// broker.
using signaltty::limits::kReadMaxLines;
// Ours: a row rendered with its colours (TextStyle::Ansi) longer than this
// is kept as plain text instead; a 500-column row with a colour change per
// cell would otherwise be ~40 KB, and 5000 of them far past any frame.
inline constexpr std::size_t kLineAnsiMaxBytes = 16u << 10;
// Ours: the text of one read keeps its newest lines up to this many bytes
// (`truncated` then says more were asked for). JSON escaping grows rendered
// text by at most ~2.5x (ESC becomes \u001b), so a reply stays a fraction
// of a frame and of a client line (signaltty::limits::kMaxLineBytes).
inline constexpr std::size_t kReadMaxTextBytes = 4u << 20;

// docs/rules.md "OSC / BEL scanner": bytes of a split OSC carried to the next
// read; a longer unterminated run is dropped.
inline constexpr std::size_t kOscCarryMaxBytes = 8192;
// Notification sanitizer (docs/rules.md "OSC / BEL scanner"): titles and
// bodies, counted in code points.
inline constexpr std::size_t kOscTitleMaxChars = signaltty::limits::kTitleMaxChars;
using signaltty::limits::kNotificationBodyMaxChars;

// Ours: libvterm 0.1.4 copies a finished OSC/DCS string onto its stack, so a
// string longer than this is dropped before libvterm sees it. Same bound as
// the OSC scanner's carry.
inline constexpr std::size_t kVtStringMaxBytes = kOscCarryMaxBytes;
// Ours: libvterm 0.1.4 keeps 16 CSI arguments and writes past its array when
// a sequence has more; separators beyond this are dropped.
inline constexpr std::size_t kVtCsiMaxSeparators = 15;
// Ours: parameter bytes of one CSI kept beyond this are dropped (no real
// sequence comes near; bounds what an unterminated CSI can hold back).
inline constexpr std::size_t kVtCsiMaxBytes = 256;

// Ours: combining marks kept per cell after its base character.
inline constexpr std::size_t kMaxCombiningMarks = 2;

// Ours: printable ASCII runs shorter than this go through libvterm's own
// text path; longer ones are written straight into the grid.
inline constexpr std::size_t kFastTextMinRun = 3;

// Ours: the narrowest screen the model keeps (a pane is never narrower than
// signaltty::limits::kPaneColsMin). On one column a double-width line is
// zero columns wide and libvterm 0.1.4 indexes its tab stops and line info
// at column -1.
inline constexpr int kMinCols = 2;

}  // namespace signaltty::ptyhost::limits
