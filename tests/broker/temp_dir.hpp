// tests/broker/temp_dir.hpp: a fresh directory under $TMPDIR for one test,
// removed with everything in it when the test ends; and reading and writing
// a whole file in it.
// Runs in: the broker unit tests.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
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

// `text` as the whole of `path`, with `mode`; throws when it cannot be
// written (GoogleTest reports it as a failure of the test).
inline void write_file(const std::string& path, std::string_view text, mode_t mode = 0644) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.good()) throw std::runtime_error("cannot write " + path);
  out.close();
  if (::chmod(path.c_str(), mode) != 0) throw std::runtime_error("cannot chmod " + path);
}

// The whole of `path`; "" when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace signaltty::broker::testing
