// broker/git/repo_paths.cpp: finding a checkout's directories.
// Runs in: broker.
#include "broker/git/repo_paths.hpp"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "common/fs.hpp"

namespace signaltty::broker::git {
namespace {

// The single line of a pointer file, trimmed; `prefix` stripped when given.
Result<std::string> read_pointer(const std::string& path, std::string_view prefix) {
  SIGNALTTY_TRY(std::string text, fs::read_file(path, kRepoPointerMax));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  if (!text.starts_with(prefix) || text.find('\n') != std::string::npos ||
      text.find('\0') != std::string::npos || text.size() == prefix.size())
    return Error{ErrorCode::IoError, path + " is not a Git pointer file"};
  return text.substr(prefix.size());
}

// `target` relative to `base` unless absolute, canonical.
Result<std::string> resolve(const std::string& base, const std::string& target,
                            const std::string& named_in) {
  const std::string joined = target.front() == '/' ? target : base + "/" + target;
  auto real = canonical(joined);
  if (!real) return Error{ErrorCode::IoError, named_in + " points to " + joined + ", which is not there"};
  return *real;
}

Result<RepoPaths> paths_at(const std::string& top, const struct stat& dot_git) {
  RepoPaths out;
  out.root = top;
  const std::string entry = top + "/.git";
  if (S_ISDIR(dot_git.st_mode)) {
    out.git_dir = entry;
  } else {
    SIGNALTTY_TRY(std::string target, read_pointer(entry, "gitdir: "));
    SIGNALTTY_TRY(out.git_dir, resolve(top, target, entry));
  }
  const std::string commondir = out.git_dir + "/commondir";
  struct stat st {};
  if (::lstat(commondir.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    SIGNALTTY_TRY(std::string target, read_pointer(commondir, ""));
    SIGNALTTY_TRY(out.common_dir, resolve(out.git_dir, target, commondir));
  } else {
    out.common_dir = out.git_dir;
  }
  return out;
}

}  // namespace

std::optional<std::string> canonical(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return std::nullopt;
  return std::string(buf);
}

bool path_within(std::string_view path, std::string_view dir) {
  if (dir == "/") return !path.empty() && path.front() == '/';
  return path == dir || (path.starts_with(dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

Result<std::optional<RepoPaths>> find_repo(const std::string& dir) {
  auto start = canonical(dir);
  struct stat st {};
  if (!start || ::stat(start->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return bad_params(dir + " is not a directory");
  const dev_t device = st.st_dev;
  std::string here = *start;
  for (;;) {
    struct stat at {};
    if (::stat(here.c_str(), &at) != 0 || at.st_dev != device) return std::optional<RepoPaths>();
    struct stat dot_git {};
    if (::lstat((here + "/.git").c_str(), &dot_git) == 0 &&
        (S_ISDIR(dot_git.st_mode) || S_ISREG(dot_git.st_mode))) {
      SIGNALTTY_TRY(RepoPaths found, paths_at(here, dot_git));
      return std::optional<RepoPaths>(std::move(found));
    }
    if (here == "/") return std::optional<RepoPaths>();
    const auto slash = here.rfind('/');
    here = slash == 0 ? "/" : here.substr(0, slash);
  }
}

}  // namespace signaltty::broker::git
