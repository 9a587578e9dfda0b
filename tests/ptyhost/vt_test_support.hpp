// tests/ptyhost/vt_test_support.hpp: what the terminal-model tests share: a
// plain libvterm VTermScreen as an independent oracle, cell-by-cell grid
// comparisons, seeded random VT streams and the agent fixtures.
// Runs in: the ptyhost unit tests and the VT benchmark.
// Never: feeds the oracle through our own code; it sees raw bytes only.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ptyhost/grid.hpp"
#include "ptyhost/terminal.hpp"

struct VTerm;
struct VTermScreen;

namespace signaltty::ptyhost::testing {

class ScreenOracle {
 public:
  ScreenOracle(int cols, int rows);
  ~ScreenOracle();
  ScreenOracle(const ScreenOracle&) = delete;
  ScreenOracle& operator=(const ScreenOracle&) = delete;

  void feed(std::string_view bytes);
  CursorState cursor() const;
  // Every difference between `grid` and this screen, one per line (capped);
  // empty when they match cell for cell: characters, marks, wide halves,
  // attributes and colours.
  std::string diff(const Grid& grid) const;
  // From now on, rows libvterm's screen scrolls off the top are kept as
  // Rows of our grid's type (the newest `keep` of them).
  void keep_scrollback(std::size_t keep);
  const std::deque<Row>& scrollback() const;
  // Screen row `r` as a Row of our grid's type.
  Row screen_row(int r) const;
  int rows() const;

  struct Impl;  // public so libvterm's C callback can reach it

 private:
  std::unique_ptr<Impl> impl_;
};

// Differences between two grids' cells (pens and marks included).
std::string grid_diff(const Grid& a, const Grid& b);

// Which kinds of sequence random_vt_stream may use.
struct StreamMix {
  bool alt_screen = true;
  bool margins = true;           // DECSTBM, DECOM
  // DECLRMM/DECSLRM: with DECOM, a cursor that text left past the right
  // margin comes back clamped from a snapshot that must set IRM or DECSCA.
  bool lr_margins = true;
  bool charsets = true;          // designations, SO/SI, single shifts
  bool insert_and_protect = true;  // IRM, DECSCA, selective erase
  bool saved_cursor = true;      // DECSC/DECRC (not carried by a snapshot)
  bool reset = true;             // RIS
  bool double_width = false;     // DECDWL (not carried by a snapshot)
  bool tab_stops = true;         // HTS/TBC (not carried by a snapshot)
  // Combining marks: libvterm 0.1.4 drops a mark that arrives in a later
  // write than its base when the base sits in the last column, so streams
  // cut at random points leave them out.
  bool combining = true;
};

// `ops` random operations: text (ASCII runs long and short, accents,
// combining marks, wide CJK), controls, SGR, cursor motion, erases,
// insert/delete, scrolls, modes, titles.
std::string random_vt_stream(std::mt19937& rng, std::size_t ops, const StreamMix& mix);

// Realistic output for throughput: coloured log lines, UTF-8 with wide
// characters, CR-driven progress bars.
std::string realistic_log_stream(std::mt19937& rng, std::size_t bytes);

std::string read_file(const std::filesystem::path& path);
// The agent captures kept in the repository (tests/fixtures/agents), one
// folder per agent release.
inline constexpr const char* kAgentFixtureFolders[] = {"claude-code-2.1.332", "codex-0.171.0"};
// Every capture (*.ansi) under those folders, sorted. A folder that is
// missing or holds no capture leaves its name in `missing`, which tests turn
// into a failure: the fixtures ship with the repository, so absence is a bug.
struct AgentFixtures {
  std::vector<std::filesystem::path> captures;
  std::vector<std::string> missing;
};
AgentFixtures agent_fixtures();
// A capture with LF line ends turned into CR LF and the final LF dropped,
// so feeding it paints the captured screen.
std::string capture_as_screen(std::string_view ansi);

}  // namespace signaltty::ptyhost::testing
