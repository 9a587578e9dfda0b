// ptyhost/vt_snapshot.hpp: build_snapshot, the bytes that make a blank
// terminal of the same size show what a pane's terminal shows: both screens'
// cells with their colours, cursor, margins, modes, title, and any sequence
// still waiting for its end. pane.attach sends it as `snapshot_b64`; live
// upgrade replays it into a fresh libvterm.
// Runs in: ptyhost, under the same lock as the covered output_offset.
// Never: includes history; scrollback reaches clients through reads.
//
// The replay starts with RIS, paints each row cell by cell (erased coloured
// cells by ECH so they stay erased), fills the saved-cursor slot (DECSC),
// enters the alternate screen (DECSET 1047, which saves nothing) after the
// main one is painted, then sets margins, modes, cursor, pen, insert mode
// and charsets (these two only after the last glyph), titles, and ends with
// the held-back tail so the client's parser waits where ours does.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ptyhost/grid.hpp"
#include "ptyhost/vt_modes.hpp"

namespace signaltty::ptyhost {

struct CursorPos {
  int row = 0;
  int col = 0;
  bool operator==(const CursorPos&) const = default;
};

// libvterm's one saved-cursor slot, filled by DECSC, SCOSC and DECSET 1049
// and read back by DECRC, SCORC and DECRST 1049.
struct SavedCursor {
  CursorPos pos;
  Pen pen;
  bool visible = true;
  int style = 1;  // DECSCUSR Ps
  bool operator==(const SavedCursor&) const = default;
};

struct SnapshotInput {
  const Grid* main = nullptr;
  const Grid* alt = nullptr;       // set while the alternate screen is shown
  std::optional<SavedCursor> saved;  // unset: nothing was ever saved
  CursorPos cursor;
  bool pending_wrap = false;       // the next glyph wraps: rewrite the one under the cursor last
  Pen pen;
  bool protect = false;            // DECSCA: new glyphs are protected
  TerminalModes modes;
  std::string_view text_modes;     // TextModes::restore_sequence()
  std::string_view title;
  std::string_view icon_name;
  std::string_view pending;        // VtGuard::pending()
};

std::string build_snapshot(const SnapshotInput& in);

}  // namespace signaltty::ptyhost
