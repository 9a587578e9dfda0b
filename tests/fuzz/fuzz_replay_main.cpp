// tests/fuzz/fuzz_replay_main.cpp: runs a libFuzzer target without libFuzzer.
// Each argument is a file or a directory of files; every file is passed once
// to LLVMFuzzerTestOneInput. A path after `--optional` may be missing. ctest uses it to replay each corpus on every
// build; a crash or sanitizer report fails the run. With
// SIGNALTTY_FUZZ_REPLAY_VERBOSE=1 each input's path goes to stderr first.
// Runs in: test builds. Never: mutates inputs; that is libFuzzer's job.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  bool optional = false;
  for (int a = 1; a < argc; ++a) {
    const std::filesystem::path arg(argv[a]);
    if (arg == "--optional") {  // the next path may be missing
      optional = true;
      continue;
    }
    if (std::exchange(optional, false) && !std::filesystem::exists(arg)) continue;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.push_back(arg);
    }
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::filesystem::path> files = inputs(argc, argv);
  // Names each input before it runs, so that a report from a tool that
  // only sees the whole run (valgrind) can be traced to its input.
  const char* verbose_env = std::getenv("SIGNALTTY_FUZZ_REPLAY_VERBOSE");
  const bool verbose = verbose_env != nullptr && *verbose_env != '\0';
  std::size_t failed = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      ++failed;
      continue;
    }
    const std::string read{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    // In a buffer of exactly its size, as libFuzzer passes it: a read one
    // byte past the input then meets ASan's redzone, not a string's spare
    // capacity.
    const auto data = std::make_unique<std::uint8_t[]>(read.size());
    std::memcpy(data.get(), read.data(), read.size());
    if (verbose) std::fprintf(stderr, "input %s\n", file.c_str());
    LLVMFuzzerTestOneInput(data.get(), read.size());
  }
  std::printf("%zu passed, %zu failed\n", files.size() - failed, failed);
  return failed == 0 && !files.empty() ? 0 : 1;
}
