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

// docs/rules.md "OSC / BEL scanner": bytes of a split OSC carried to the next
// read; a longer unterminated run is dropped.
inline constexpr std::size_t kOscCarryMaxBytes = 8192;
// Notification sanitizer (docs/rules.md "OSC / BEL scanner"): titles and
// bodies, counted in code points.
inline constexpr std::size_t kOscTitleMaxChars = signaltty::limits::kTitleMaxChars;
inline constexpr std::size_t kNotificationBodyMaxChars = 2000;

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
inline constexpr std::size_t kFastTextMinRun = 8;

}  // namespace signaltty::ptyhost::limits
