// ptyhost/compact_row.hpp: the compact byte form a row takes when it
// scrolls into history, and its decoding back into cells for a read.
// Runs in: ptyhost; encode_row as each row leaves the main screen (cheap:
// no text rendering), decode_row when a read or the live-upgrade restore
// needs the row's cells.
// Never: loses a cell a read can show; decode_row(encode_row(row)) renders
// (line_render.hpp) exactly as `row` does, in both styles.
//
// Form: the row's cells up to the last one an Ansi read shows, as a byte
// stream with a current pen (default at the start):
//   0x20..0x7e         one ASCII cell (width 1, no marks) in the current pen
//   0x00 n             n (1..255) never-written cells in the current pen
//   0x01 <Pen>         the current pen becomes <Pen> (sizeof(Pen) raw bytes)
//   0x02 <ch:4> <width:1> <flags:1> [<Marks> if flags has kCellHasMarks]
//                      any other cell in the current pen
#pragma once

#include <string>
#include <string_view>

#include "ptyhost/grid.hpp"

namespace signaltty::ptyhost {

// The compact form of `row`, in a buffer of the calling thread's that the
// next call overwrites.
std::string_view encode_row(const Row& row);
// Rebuilds the cells (and marks) `bytes` encode into `row`, whose seq,
// hash and dirty flag it leaves alone. False, with `row` unspecified, when
// the bytes are malformed or hold more than limits::kPaneColsMax cells.
bool decode_row(std::string_view bytes, Row& row);

}  // namespace signaltty::ptyhost
