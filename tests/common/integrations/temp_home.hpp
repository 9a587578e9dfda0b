// tests/common/integrations/temp_home.hpp: a throwaway home directory for
// the installer tests, with helpers to place fixture files, a fake hook
// relay, and to read back what the installer wrote.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace signaltty::integrations::testing {

using OrderedJson = nlohmann::ordered_json;

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string fixture(const std::string& name) {
  return slurp(std::string(SIGNALTTY_FIXTURES_DIR) + "/integrations/" + name);
}

inline OrderedJson parse(const std::string& text) { return OrderedJson::parse(text); }

class TempHome {
 public:
  TempHome() {
    char templ[] = "/tmp/signaltty-integrations-XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~TempHome() { std::filesystem::remove_all(path_); }
  TempHome(const TempHome&) = delete;
  TempHome& operator=(const TempHome&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

  // An executable stand-in for signaltty-hookrelay at <home>/<rel>.
  std::string fake_relay(const std::string& rel = "bin/signaltty-hookrelay") const {
    const std::string path = *this / rel;
    spit(path, "#!/bin/sh\nexit 0\n");
    ::chmod(path.c_str(), 0755);
    return path;
  }

 private:
  std::string path_;
};

// The names in `dir` (a leftover temp file would show here).
inline std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename());
  return out;
}

inline struct stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

}  // namespace signaltty::integrations::testing
