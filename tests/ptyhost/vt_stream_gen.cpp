// tests/ptyhost/vt_stream_gen.cpp: seeded VT streams for the differential,
// snapshot, serialization and throughput tests.
// Runs in: ptyhost tests and benchmark. Never: emits sequences that crash or
// hang libvterm 0.1.4 itself (over 16 CSI arguments, REP with no glyph
// before it, OSC strings beyond the guard's bound), since the oracle has no
// guard in front of it.
#include <array>
#include <string>

#include "ptyhost/line_render.hpp"
#include "tests/ptyhost/vt_test_support.hpp"

namespace signaltty::ptyhost::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Rng = std::mt19937;

int pick(Rng& rng, int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); }
bool chance(Rng& rng, int percent) { return pick(rng, 100) < percent; }

std::string csi(const std::string& body) { return "\x1b[" + body; }

constexpr std::array<std::string_view, 12> kWords = {
    "build", "error", "warning", "request", "cache", "pane", "agent", "tokens",
    "ok",    "retry", "→",       "done"};
constexpr std::array<std::string_view, 8> kWide = {"世界", "日本語", "데이터", "表示", "完了",
                                                   "検索", "中", "ｱｲｳ"};
constexpr std::array<std::string_view, 6> kAccented = {"héllo", "naïve", "café", "Ünïcödé",
                                                       "ñandú", "Ωμέγα"};

std::string ascii_run(Rng& rng, int length) {
  std::string run;
  while (static_cast<int>(run.size()) < length) {
    run += kWords[pick(rng, 8)];
    run += ' ';
  }
  run.resize(length);
  return run;
}

std::string text_op(Rng& rng, const StreamMix& mix) {
  switch (pick(rng, 7)) {
    case 0: return ascii_run(rng, 1 + pick(rng, 6));
    case 1: return ascii_run(rng, 8 + pick(rng, 60));
    case 2: return std::string(kWide[pick(rng, kWide.size())]);
    case 3: return std::string(kAccented[pick(rng, kAccented.size())]);
    case 4:
      if (!mix.combining) return "e";
      return chance(rng, 50) ? "e\xcc\x81" : "a\xcc\x88\xcc\xa3";
    case 5: return std::string(kWords[pick(rng, kWords.size())]);
    default: return ascii_run(rng, 100 + pick(rng, 200));
  }
}

std::string color_arg(Rng& rng, int base) {
  switch (pick(rng, 4)) {
    case 0: return std::to_string(base + pick(rng, 8));
    case 1: return std::to_string(base + 60 + pick(rng, 8));
    case 2: return std::to_string(base + 8) + ";5;" + std::to_string(pick(rng, 256));
    default:
      return std::to_string(base + 8) + ";2;" + std::to_string(pick(rng, 256)) + ";" +
             std::to_string(pick(rng, 256)) + ";" + std::to_string(pick(rng, 256));
  }
}

std::string sgr_op(Rng& rng) {
  static constexpr std::array<std::string_view, 20> kAttrs = {
      "0", "1", "3", "4", "4:2", "4:3", "5", "7", "9", "22",
      "23", "24", "25", "27", "29", "39", "49", "11", "10", "21"};
  std::string body;
  const int n = 1 + pick(rng, 3);
  for (int i = 0; i < n; ++i) {
    if (i) body += ';';
    const int kind = pick(rng, 4);
    body += kind == 0 ? color_arg(rng, 30) : kind == 1 ? color_arg(rng, 40)
                                                       : std::string(kAttrs[pick(rng, kAttrs.size())]);
  }
  return csi(body + "m");
}

std::string motion_op(Rng& rng) {
  const std::string n = std::to_string(pick(rng, 12));
  switch (pick(rng, 11)) {
    case 0: return csi(std::to_string(1 + pick(rng, 45)) + ";" + std::to_string(1 + pick(rng, 125)) + "H");
    case 1: return csi(n + "A");
    case 2: return csi(n + "B");
    case 3: return csi(n + "C");
    case 4: return csi(n + "D");
    case 5: return csi(std::to_string(1 + pick(rng, 125)) + "G");
    case 6: return csi(std::to_string(1 + pick(rng, 45)) + "d");
    case 7: return "\r";
    case 8: return "\n";
    case 9: return "\b";
    default: return "\t";
  }
}

std::string erase_op(Rng& rng, const StreamMix& mix) {
  const std::string n = std::to_string(pick(rng, 4));
  switch (pick(rng, 11)) {
    case 0: return csi(std::to_string(pick(rng, 4)) + "J");
    case 1: return csi(std::to_string(pick(rng, 3)) + "K");
    case 2: return csi(n + "X");
    case 3: return csi(n + "@");
    case 4: return csi(n + "P");
    case 5: return csi(n + "L");
    case 6: return csi(n + "M");
    case 7: return csi(n + "S");
    case 8: return csi(n + "T");
    case 9: return mix.insert_and_protect ? csi("?" + std::to_string(pick(rng, 3)) + "K") : "\x1bM";
    default: return chance(rng, 50) ? "\x1bM" : "\x1b" "D";
  }
}

std::string margin_op(Rng& rng, const StreamMix& mix) {
  switch (pick(rng, 5)) {
    case 0: {
      const int top = 1 + pick(rng, 20);
      return csi(std::to_string(top) + ";" + std::to_string(top + 1 + pick(rng, 25)) + "r");
    }
    case 1: return csi("r");
    case 2: return csi(chance(rng, 50) ? "?6h" : "?6l");
    case 3:
      if (!mix.lr_margins) return csi("?69l");
      return chance(rng, 30) ? csi("?69h") + csi("5;60s") : csi("?69l");
    default: return csi(chance(rng, 50) ? "?7l" : "?7h");
  }
}

std::string mode_op(Rng& rng) {
  static constexpr std::array<std::string_view, 18> kModes = {
      "?1h", "?1l", "?2004h", "?2004l", "?1000h", "?1002h", "?1003h", "?1000l",
      "?1006h", "?1006l", "?1005h", "?1004h", "?25l", "?25h", "?5h", "?5l", "?12l", "3 q"};
  switch (pick(rng, 4)) {
    case 0: return chance(rng, 50) ? "\x1b=" : "\x1b>";
    case 1: return "\x1b]2;title " + std::to_string(pick(rng, 1000)) + "\x07";
    case 2: return "\x1b]1;icon\x1b\\";
    default: return csi(std::string(kModes[pick(rng, kModes.size())]));
  }
}

std::string charset_op(Rng& rng) {
  static constexpr std::array<std::string_view, 8> kOps = {
      "\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f", "\x1bN", "\x1b(A", "\x1bn"};
  return std::string(kOps[pick(rng, kOps.size())]);
}

std::string special_op(Rng& rng, const StreamMix& mix) {
  switch (pick(rng, 8)) {
    case 0:
      if (!mix.alt_screen) return "";
      return csi(std::string(std::array<std::string_view, 6>{
          "?1049h", "?1049l", "?1047h", "?1047l", "?47h", "?47l"}[pick(rng, 6)]));
    case 1: return mix.saved_cursor ? (chance(rng, 50) ? "\x1b" "7" : "\x1b" "8") : "";
    case 2: return mix.insert_and_protect ? csi(chance(rng, 50) ? "4h" : "4l") : "";
    case 3: return mix.insert_and_protect ? csi(chance(rng, 50) ? "1\"q" : "0\"q") : "";
    case 4: return "x" + csi(std::to_string(1 + pick(rng, 20)) + "b");  // REP after a glyph
    case 5: return mix.tab_stops ? (chance(rng, 50) ? "\x1bH" : csi("3g")) : "";
    case 6: return mix.double_width && chance(rng, 30) ? "\x1b#6" : "\x07";
    default: return mix.reset && chance(rng, 10) ? "\x1b" "c" : "";
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

std::string random_vt_stream(std::mt19937& rng, std::size_t ops, const StreamMix& mix) {
  std::string out;
  for (std::size_t i = 0; i < ops; ++i) {
    const int kind = pick(rng, 100);
    if (kind < 35) {
      out += text_op(rng, mix);
    } else if (kind < 50) {
      out += sgr_op(rng);
    } else if (kind < 65) {
      out += motion_op(rng);
    } else if (kind < 76) {
      out += erase_op(rng, mix);
    } else if (kind < 81 && mix.margins) {
      out += margin_op(rng, mix);
    } else if (kind < 87) {
      out += mode_op(rng);
    } else if (kind < 91 && mix.charsets) {
      out += charset_op(rng);
    } else {
      out += special_op(rng, mix);
    }
  }
  return out;
}

namespace {
namespace SIGNALTTY_UNITY_ID {

std::string log_line(Rng& rng) {
  static constexpr std::array<std::string_view, 4> kLevels = {
      "\x1b[1;32mINFO \x1b[0m", "\x1b[1;33mWARN \x1b[0m", "\x1b[1;31mERROR\x1b[0m",
      "\x1b[2mDEBUG\x1b[0m"};
  std::string line = "\x1b[2m2025-06-0" + std::to_string(1 + pick(rng, 9)) + "T12:" +
                     std::to_string(10 + pick(rng, 50)) + ":" + std::to_string(10 + pick(rng, 50)) +
                     ".123Z\x1b[0m " + std::string(kLevels[pick(rng, 4)]) + " \x1b[36m[worker-" +
                     std::to_string(pick(rng, 16)) + "]\x1b[0m ";
  const int words = 6 + pick(rng, 14);
  for (int w = 0; w < words; ++w) {
    const int kind = pick(rng, 20);
    line += kind == 0 ? std::string(kWide[pick(rng, kWide.size())])
            : kind == 1 ? std::string(kAccented[pick(rng, kAccented.size())])
                        : std::string(kWords[pick(rng, 9)]);
    line += ' ';
  }
  if (chance(rng, 20)) line += "\x1b[38;5;208mlatency=" + std::to_string(pick(rng, 900)) + "ms\x1b[0m";
  if (chance(rng, 10)) line += "\x1b[38;2;120;200;80mrgb\x1b[0m";
  return line + "\r\n";
}

std::string progress_bar(Rng& rng) {
  std::string out;
  const int steps = 3 + pick(rng, 8);
  for (int s = 0; s <= steps; ++s) {
    const int done = s * 40 / steps;
    out += "\r\x1b[32m[" + std::string(done, '#') + std::string(40 - done, ' ') + "]\x1b[0m " +
           std::to_string(s * 100 / steps) + "% downloading artifacts";
  }
  return out + "\r\n";
}

std::string compiler_line(Rng& rng) {
  return "src/module_" + std::to_string(pick(rng, 90)) + ".cpp:" + std::to_string(pick(rng, 900)) +
         ":" + std::to_string(pick(rng, 80)) +
         ": \x1b[1;31merror:\x1b[0m no matching function for call to \x1b[1m'frobnicate'\x1b[0m\r\n";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

std::string realistic_log_stream(std::mt19937& rng, std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 512);
  while (out.size() < bytes) {
    const int kind = pick(rng, 100);
    if (kind < 75) {
      out += log_line(rng);
    } else if (kind < 85) {
      out += progress_bar(rng);
    } else if (kind < 95) {
      out += compiler_line(rng);
    } else {
      out += "\x1b[1A\x1b[2K\r\x1b[35m⠋\x1b[0m rebuilding index " + std::to_string(pick(rng, 99)) + "\r\n";
    }
  }
  return out;
}

}  // namespace signaltty::ptyhost::testing
