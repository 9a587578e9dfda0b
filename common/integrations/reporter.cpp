// common/integrations/reporter.cpp: locating signaltty-hookrelay beside
// /proc/self/exe or on PATH (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: runs the program.
#include "common/integrations/reporter.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "common/fs.hpp"

namespace signaltty::integrations {
namespace {

constexpr const char* kSelfExe = "/proc/self/exe";

std::optional<std::string> own_directory() {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(kSelfExe, buffer, sizeof buffer - 1);
  if (n <= 0) return std::nullopt;
  return fs::dirname(std::string(buffer, static_cast<std::size_t>(n)));
}

bool usable(const std::string& path) { return check_reporter(path).ok(); }

std::optional<std::string> on_path(const EnvLookup& env) {
  const auto path = env ? env("PATH") : std::nullopt;
  if (!path) return std::nullopt;
  std::string_view rest = *path;
  while (true) {
    const auto colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    if (dir.starts_with('/')) {
      std::string candidate = fs::join(dir, kReporterProgram);
      if (usable(candidate)) return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

std::optional<std::string> beside_self() {
  auto dir = own_directory();
  if (!dir) return std::nullopt;
  std::string beside = fs::join(*dir, kReporterProgram);
  if (!usable(beside)) return std::nullopt;
  return beside;
}

Error not_found() {
  return Error{ErrorCode::IoError,
               "signaltty-hookrelay was found neither beside this program nor on PATH"};
}

}  // namespace

Status check_reporter(const std::string& path) {
  if (!path.starts_with('/')) return Error{ErrorCode::IoError, path + ": the hook reporter is not an absolute path"};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error::from_errno(ErrorCode::IoError, "stat", errno, path);
  if (!S_ISREG(st.st_mode)) return Error{ErrorCode::IoError, path + ": the hook reporter is not a regular file"};
  if (::access(path.c_str(), X_OK) != 0)
    return Error{ErrorCode::IoError, path + ": the hook reporter is not executable"};
  return {};
}

Result<std::string> find_reporter(const EnvLookup& env) {
  std::optional<std::string> found = beside_self();
  if (!found) found = on_path(env);
  if (!found) return not_found();
  return std::move(*found);
}

}  // namespace signaltty::integrations
