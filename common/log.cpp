// common/log.cpp: the stderr logger. Runs in: every process.
#include "common/log.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

#include "common/ids.hpp"

namespace signaltty::log {
namespace {

// Set once by init() before threads start; read-only afterwards.
struct Config {
  std::string program = "signaltty";
  std::atomic<int> level{static_cast<int>(Level::Info)};
};
Config& config() {
  static Config c;
  return c;
}

std::string_view level_name(Level l) {
  switch (l) {
    case Level::Debug: return "debug";
    case Level::Info: return "info";
    case Level::Warn: return "warn";
    case Level::Error: return "error";
  }
  return "info";
}

}  // namespace

void init(std::string_view program, Level level) {
  config().program = std::string(program);
  config().level = static_cast<int>(level);
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : {Level::Debug, Level::Info, Level::Warn, Level::Error})
    if (level_name(l) == name) return l;
  return std::nullopt;
}

bool enabled(Level level) { return static_cast<int>(level) >= config().level.load(); }

void write(Level level, std::string_view message) {
  if (!enabled(level)) return;
  std::string line = now_rfc3339();
  line += ' ';
  line += config().program;
  line += '[';
  line += std::to_string(::getpid());
  line += "] ";
  line += level_name(level);
  line += ' ';
  line += message;
  line += '\n';
  // One write(2) per line so lines from threads never interleave.
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) return;  // stderr gone: nowhere to say so
}

}  // namespace signaltty::log
