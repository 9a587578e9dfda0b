// tests/fuzz/fuzz_vt_feed.cpp: libFuzzer target for the ptyhost's terminal
// model: untrusted output bytes fed in arbitrary chunks, with resizes,
// reads, snapshot replay and live-upgrade round trips in between.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp.
// Never: checks screen contents; it looks for crashes, hangs, sanitizer
// reports and a live-upgrade blob that fails to restore.
//
// Input layout: byte 0 and 1 pick the size (cols 1..160, rows 1..60); then
// records of [length byte L][L bytes of output] when L > 0, or
// [0][action byte] for an action between chunks.
//
// Speed: an action that reads the whole state (reads, snapshot replay,
// live-upgrade round trip, screen text and modes) costs as much as the
// screen and history are big, and a 7 KB input can hold 3000 of them; past
// kWholeStateActions per input they are skipped (resize and clear still
// run). More of them over the same state find nothing new, while the cap
// keeps an execution near the cost of feeding its bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ptyhost/osc_scanner.hpp"
#include "ptyhost/terminal.hpp"

namespace {

using signaltty::ptyhost::Terminal;
using signaltty::ptyhost::TerminalSize;
using signaltty::ptyhost::TextStyle;

// Whole-state actions run per input; see "Speed" above.
constexpr int kWholeStateActions = 8;

void act(Terminal& terminal, std::uint8_t action, int& whole_state_left) {
  const int kind = action % 6;
  if (kind != 0 && kind != 4) {
    if (whole_state_left == 0) return;
    --whole_state_left;
  }
  switch (kind) {
    case 0:
      terminal.resize(TerminalSize{1 + action % 97, 1 + action % 41});
      break;
    case 1:
      (void)terminal.rendered(action, 50, TextStyle::Ansi);
      (void)terminal.tail(5000, TextStyle::Plain);
      break;
    case 2: {
      Terminal replay(terminal.size());
      replay.feed(terminal.snapshot_vt());
      break;
    }
    case 3: {
      auto restored = Terminal::deserialize(terminal.serialize());
      if (!restored.ok()) std::abort();
      break;
    }
    case 4:
      terminal.clear_history();
      break;
    default:
      (void)terminal.screen_text(TextStyle::Ansi);
      (void)terminal.modes();
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int cols = size > 0 ? 1 + data[0] % 160 : 80;
  const int rows = size > 1 ? 1 + data[1] % 60 : 24;
  Terminal terminal(TerminalSize{cols, rows});
  signaltty::ptyhost::OscScanner scanner;
  int whole_state_left = kWholeStateActions;
  std::size_t i = size > 2 ? 2 : size;
  while (i < size) {
    const std::size_t length = data[i++];
    if (length == 0) {
      if (i < size) act(terminal, data[i++], whole_state_left);
      continue;
    }
    const std::size_t take = length < size - i ? length : size - i;
    const std::string_view chunk(reinterpret_cast<const char*>(data + i), take);
    terminal.feed(chunk);
    (void)scanner.scan(chunk);
    i += take;
  }
  (void)terminal.snapshot_vt();
  return 0;
}
