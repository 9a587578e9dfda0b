// gitworker/untracked.cpp: an untracked file read component by component
// from the checkout's top directory, never through a symlink, never
// blocking, never past the cap.
// Runs in: gitworker. Never: opens a file it has not lstat'ed as regular.
#include "gitworker/untracked.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "common/unique_fd.hpp"

namespace signaltty::gitworker {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr int kFileFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

// `rel` split on '/'; empty when any component is empty, "." or "..".
std::vector<std::string> components(std::string_view rel) {
  std::vector<std::string> parts;
  while (true) {
    const auto slash = rel.find('/');
    const std::string_view part = rel.substr(0, slash);
    if (part.empty() || part == "." || part == ".." ||
        part.find('\0') != std::string_view::npos)
      return {};
    parts.emplace_back(part);
    if (slash == std::string_view::npos) return parts;
    rel.remove_prefix(slash + 1);
  }
}

// The directory holding the last component, opened without following a
// symlink on the way; invalid when one is a symlink or not a directory.
UniqueFd open_parent(const std::string& root, const std::vector<std::string>& parts) {
  UniqueFd dir(::open(root.c_str(), kDirFlags & ~O_NOFOLLOW));
  for (std::size_t i = 0; dir && i + 1 < parts.size(); ++i)
    dir = UniqueFd(::openat(dir.get(), parts[i].c_str(), kDirFlags));
  return dir;
}

bool read_all(int fd, std::string& into, std::size_t cap) {
  char buf[65536];
  while (into.size() <= cap) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    into.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

UntrackedFile of_kind(UntrackedKind kind) {
  UntrackedFile file;
  file.kind = kind;
  return file;
}

}  // namespace

std::uint64_t count_lines(std::string_view text) {
  const auto newlines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
  return newlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

UntrackedFile read_untracked(const std::string& root, std::string_view rel) {
  const std::vector<std::string> parts = components(rel);
  if (parts.empty()) return of_kind(UntrackedKind::Unreadable);
  const UniqueFd dir = open_parent(root, parts);
  if (!dir) return of_kind(UntrackedKind::Unreadable);
  const char* name = parts.back().c_str();
  struct stat before {};
  if (::fstatat(dir.get(), name, &before, AT_SYMLINK_NOFOLLOW) != 0)
    return of_kind(UntrackedKind::Unreadable);
  if (!S_ISREG(before.st_mode)) return of_kind(UntrackedKind::NotRegular);
  if (static_cast<std::uint64_t>(before.st_size) > kUntrackedReadCap)
    return of_kind(UntrackedKind::TooLarge);
  const UniqueFd fd(::openat(dir.get(), name, kFileFlags));
  if (!fd) return of_kind(errno == ELOOP ? UntrackedKind::NotRegular : UntrackedKind::Unreadable);
  struct stat after {};
  if (::fstat(fd.get(), &after) != 0) return of_kind(UntrackedKind::Unreadable);
  if (!S_ISREG(after.st_mode) || after.st_ino != before.st_ino || after.st_dev != before.st_dev)
    return of_kind(UntrackedKind::NotRegular);  // swapped between the two looks
  UntrackedFile file;
  if (!read_all(fd.get(), file.content, kUntrackedReadCap))
    return of_kind(UntrackedKind::Unreadable);
  if (file.content.size() > kUntrackedReadCap) return of_kind(UntrackedKind::TooLarge);
  const std::string_view probe =
      std::string_view(file.content).substr(0, kUntrackedBinaryProbe);
  if (probe.find('\0') != std::string_view::npos) {
    file.kind = UntrackedKind::Binary;
    return file;
  }
  file.kind = UntrackedKind::Text;
  file.lines = count_lines(file.content);
  return file;
}

}  // namespace signaltty::gitworker
