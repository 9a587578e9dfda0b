// cli/stdin_read.cpp: see stdin_read.hpp.
// Runs in: CLI.
#include "cli/stdin_read.hpp"

#include <unistd.h>

#include <cerrno>

namespace signaltty::cli {
namespace {

constexpr std::size_t kChunkBytes = 64u << 10;

}  // namespace

Result<std::string> read_to_end_bounded(int fd, std::size_t max_bytes, std::string_view too_big) {
  std::string bytes;
  char chunk[kChunkBytes];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "read", errno, "stdin");
    if (n == 0) return bytes;
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > max_bytes) return bad_params(std::string(too_big));
  }
}

}  // namespace signaltty::cli
