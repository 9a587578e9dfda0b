// common/version.hpp: the release version of signaltty, what every
// program's --version prints. It must equal project(VERSION) in the
// top-level CMakeLists.txt, which refuses to configure when they differ.
// Runs in: every process. Never: changed without project(VERSION).
#pragma once

#include <string>
#include <string_view>

namespace signaltty {

inline constexpr std::string_view kReleaseVersion = "0.1.0";

// What `<program> --version` prints, without the newline: "signaltty 0.1.0".
inline std::string version_line(std::string_view program) {
  return std::string(program) + " " + std::string(kReleaseVersion);
}

}  // namespace signaltty
