// tests/broker/temp_dir.hpp: a fresh directory under $TMPDIR for one test,
// removed with everything in it when the test ends.
// Runs in: the broker unit tests.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace signaltty::broker::testing {

class TempDir {
 public:
  // `prefix` names the directory, e.g. "signaltty-journal".
  explicit TempDir(std::string_view prefix) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace signaltty::broker::testing
