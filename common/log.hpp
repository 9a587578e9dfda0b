// common/log.hpp: leveled logging to stderr, one line per message:
// "<UTC time> <program>[<pid>] <level> <message>". Runs in: every process.
// Never: logs PTY contents or request params (they may hold secrets).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace signaltty::log {

enum class Level { Debug, Info, Warn, Error };

void init(std::string_view program, Level level);
std::optional<Level> parse_level(std::string_view name);
bool enabled(Level level);
void write(Level level, std::string_view message);

inline void debug(std::string_view m) { write(Level::Debug, m); }
inline void info(std::string_view m) { write(Level::Info, m); }
inline void warn(std::string_view m) { write(Level::Warn, m); }
inline void error(std::string_view m) { write(Level::Error, m); }

}  // namespace signaltty::log
