// ptyhost/terminal.hpp: Terminal, one pane's headless terminal (docs/rules.md
// "What the terminal keeps"): libvterm's parser and state drive our own
// main and alternate grids; rows leaving the main screen enter the rendered
// ring; reads, the attach snapshot and the live-upgrade blob come from here.
// Runs in: ptyhost, one Terminal per pane, fed each output chunk in order.
// Never: touches the PTY, output_offset or viewers (the ptyhost's output
// pump owns those), and never uses libvterm's VTermScreen.
//
// Usage:
//   Terminal term({.cols = 120, .rows = 40});
//   FeedEffects fx = term.feed(chunk);      // one batch per read chunk
//   std::string text = term.screen_text();
//   RenderedRead news = term.rendered(cursor, 200, TextStyle::Plain);
//   std::string attach = term.snapshot_vt(); // replayable screen state
//   std::string blob = term.serialize();     // live upgrade: hand to successor
//   SIGNALTTY_TRY(auto restored, Terminal::deserialize(blob));
//
// Sequencing (docs/rules.md "Rendered ring"): each feed() is one batch. While it
// runs, writes mark rows dirty and rows scrolled off the top of the main
// screen enter history, keeping their seq or taking a fresh one if changed.
// When it ends, every changed content row of the shown screen takes a fresh
// seq, top to bottom; a row whose content is what its seq already names
// keeps it. Trailing blank rows are padding, not lines.
//
// History takes rows scrolled off the top of the main screen by a scroll
// region that starts at the top row and spans the full width (as libvterm's
// VTermScreen does): agents such as Codex insert their transcript above a
// fixed viewport that way. Rows of a region starting lower, and any row of
// the alternate screen, never enter history.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "ptyhost/glyph_widths.hpp"
#include "ptyhost/grid.hpp"
#include "ptyhost/line_render.hpp"
#include "ptyhost/rendered_ring.hpp"
#include "ptyhost/text_modes.hpp"
#include "ptyhost/vt_guard.hpp"
#include "ptyhost/vt_modes.hpp"
#include "ptyhost/vt_snapshot.hpp"

struct VTerm;
struct VTermState;

namespace signaltty::ptyhost {

struct TerminalSize {
  int cols = 0;
  int rows = 0;
  bool operator==(const TerminalSize&) const = default;
};

// What one feed() did that the ptyhost may want to act on.
struct FeedEffects {
  std::size_t bells = 0;       // BEL outside any sequence, as libvterm saw it
  bool title_changed = false;  // OSC 0/2 set the title
};

struct CursorState {
  int row = 0;
  int col = 0;
  bool visible = true;
  bool operator==(const CursorState&) const = default;
};

class Terminal final : private VtSink {
 public:
  // Sizes are clamped to 1..kPaneColsMax / 1..kPaneRowsMax.
  explicit Terminal(TerminalSize size);
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  FeedEffects feed(std::string_view bytes);
  // Keeps content top-left; rows cut off the bottom of the main screen first
  // scroll the top rows into history when the cursor or text needs room.
  void resize(TerminalSize size);
  TerminalSize size() const;

  // pane.read modes.
  std::string screen_text(TextStyle style = TextStyle::Plain) const;
  // The visible screen as plain text, one string per row down to the last
  // non-blank one (what screen rules read: the broker's pane.explain).
  std::vector<std::string> screen_rows() const;
  TailRead tail(std::size_t lines, TextStyle style) const;
  RenderedRead rendered(std::uint64_t after_seq, std::size_t lines, TextStyle style) const;
  // pane.clear: drops history; rendered cursors up to now read as dropped.
  // ESC[3J in the output is left to libvterm, which ignores it.
  void clear_history();
  std::size_t scrollback_len() const { return ring_.size(); }
  std::uint64_t head_seq() const { return ring_.head(); }

  // pane.attach snapshot: bytes that make a blank terminal of this size
  // show this one (vt_snapshot.hpp).
  std::string snapshot_vt();

  // Live upgrade. The blob carries both grids, history with seqs, the head
  // and dropped floor, cursor, pen, the saved cursor, modes, margins, title,
  // charsets, insert mode and a sequence cut by the last chunk. Not carried:
  // tab stops, double-width line flags, and libvterm's memory of the last
  // glyph (a REP or lone combining mark right after restore applies to the
  // last glyph painted by the replay instead).
  std::string serialize();
  static Result<std::unique_ptr<Terminal>> deserialize(std::string_view blob);

  // Inspection.
  const Grid& screen() const { return alt_active_ ? *alt_ : main_; }
  const Grid& main_screen() const { return main_; }
  bool alt_screen_active() const { return alt_active_; }
  CursorState cursor() const;
  std::string_view title() const { return title_; }
  std::string_view icon_name() const { return icon_name_; }
  const RenderedRing& ring() const { return ring_; }
  TerminalModes modes();
  // Bytes held by this Terminal (grids, history, buffers), without libvterm.
  std::size_t memory_bytes() const;

  // Where libvterm's answers to the program's queries (DA, DSR, DECRQM) go;
  // dropped when unset.
  void set_reply_sink(std::function<void(std::string_view)> sink);

 private:
  // Resets DECSTBM/DECSLRM margins that would not fit `size`.
  void fit_margins(TerminalSize size);
  // After a restored cursor: puts it back on the screen if a resize since
  // took its row or column away.
  void keep_cursor_on_screen();
  friend class VtCallbacks;

  // The last glyph libvterm drew: REP repeats it, and a glyph that reached
  // the right margin leaves the cursor waiting to wrap until it moves.
  struct GlyphTrace {
    CursorPos pos;
    int width = 0;
    bool at_margin = false;
    bool cursor_moved = true;
  };
  struct VTermDeleter {
    void operator()(VTerm* vt) const;
  };

  // VtSink: pieces from the guard.
  void vt_text(std::string_view bytes) override;
  void vt_sequence(std::string_view bytes) override;
  bool sgr_moves_no_cursor();
  void catch_up_vterm_pen();
  bool reads_vterm_pen(std::string_view bytes) const;
  void vt_repeat(std::string_view bytes) override;
  struct SimpleChar {
    int width = 0;  // 0: not a glyph the fast path draws
    std::size_t bytes = 1;
  };
  void draw_text(std::string_view bytes);
  void queue_text(std::string_view bytes, std::size_t begin, std::size_t end);
  // The character at bytes[i] (ground text: no controls, well-formed
  // UTF-8) as a glyph the fast path may draw.
  SimpleChar simple_char(std::string_view bytes, std::size_t i) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) return SimpleChar{1, 1};
    return simple_utf8_char(bytes, i);
  }
  SimpleChar simple_utf8_char(std::string_view bytes, std::size_t i);
  std::size_t draw_fast_text(std::string_view bytes, std::size_t owed, std::size_t begin,
                             std::size_t end, bool ascii);
  void put_simple(Grid& grid, int row, int col, std::string_view text);
  void queue(std::string_view bytes);
  void flush();
  // Every write to libvterm's input: catches libvterm up first (the lag
  // below) as far as `bytes` need.
  void write_vterm(std::string_view bytes);

  // libvterm runs behind the fast path (docs/architecture.md): its cursor
  // is `cols` columns left of ours on the same row, and `glyph`, the last
  // glyph the fast path drew, is not the last glyph it remembers (what a
  // REP repeats and a combining mark joins). A write that draws a glyph of
  // its own makes `glyph` moot; one that could read it, or change what
  // replaying it later would do, replays it first. Nothing lags after a
  // feed.
  struct FastGlyph {
    char32_t ch = 0;
    int width = 0;
    CursorPos pos;
  };
  struct VTermLag {
    int cols = 0;
    std::optional<FastGlyph> glyph;
  };
  enum class GlyphNeed { Drawn, Unread, Read };
  // What a write of `bytes` does with libvterm's last glyph (empty: a
  // query or the end of a feed, which read it).
  GlyphNeed glyph_need(std::string_view bytes);
  void catch_up_vterm(std::string_view next);
  void replay_fast_glyph();
  // libvterm's cursor with the lag added: where ours is (unclamped).
  CursorPos lagged_cursor() const;

  // libvterm state callbacks.
  void on_glyph(const std::uint32_t* chars, int width, bool protect, bool double_width,
                int row, int col);
  void on_cursor(int row, int col, bool visible);
  void sync_cursor();
  CursorPos on_grid(int row, int col) const;
  void on_scroll(Rect rect, int down, int right);
  void on_alt_screen(bool on);
  void on_resize(int rows, int cols, int& delta_rows);

  Grid& active() { return alt_active_ ? *alt_ : main_; }
  void reconcile();
  void push_to_history(int count);
  std::uint64_t seq_for(const Grid& grid, int r);
  std::vector<const Row*> content_rows() const;
  bool pending_wrap() const;
  SnapshotInput snapshot_input(const TerminalModes& modes) const;
  TerminalModes tracked_modes() const;
  std::string probe(const std::function<void()>& ask);
  void restore_from(ByteReader& in);

  std::unique_ptr<VTerm, VTermDeleter> vt_;
  VTermState* state_ = nullptr;
  VtGuard guard_;
  TextModes text_modes_;
  Grid main_;
  // The alternate screen exists only while it is shown: entering it erases
  // it (libvterm erases on every switch to it, as xterm does for 1049), so
  // nothing of an earlier visit can be seen again, and an idle pane does not
  // carry a second screen of cells. Set iff alt_active_.
  std::optional<Grid> alt_;
  bool alt_active_ = false;
  Pen pen_;
  CursorPos cursor_;
  bool cursor_visible_ = true;
  bool cursor_blink_ = true;
  int cursor_shape_ = 1;  // VTERM_PROP_CURSORSHAPE_*; 0 after restoring a never-saved cursor
  bool reverse_video_ = false;
  MouseTracking mouse_ = MouseTracking::Off;
  std::optional<SavedCursor> saved_cursor_;
  GlyphTrace last_glyph_;
  GlyphWidths widths_;  // derived: not part of the live-upgrade state
  std::string title_;
  std::string icon_name_;
  RenderedRing ring_;
  FeedEffects effects_;
  std::string_view input_;   // the chunk being fed
  std::string_view queued_;  // part of input_ not yet written to libvterm
  // pen_ moved by SGRs libvterm did not see (vt_sequence); its pen catches
  // up before the next sequence it is given.
  bool vterm_pen_behind_ = false;
  VTermLag lag_;
  // libvterm writes the fast path's glyph again (replay_fast_glyph): its
  // callbacks change nothing of ours meanwhile.
  bool replaying_ = false;
  // A row has turned double width: a line feed could then bring one under
  // the fast glyph, whose replay would wrap there (derived, conservative).
  bool double_width_seen_ = false;
  std::string* probe_output_ = nullptr;
  std::function<void(std::string_view)> reply_sink_;
};

}  // namespace signaltty::ptyhost
