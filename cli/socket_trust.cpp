// cli/socket_trust.cpp: the directory and peer-credential checks the CLI
// makes on the broker's socket before its first byte.
// Runs in: CLI. Never: sends on the socket, or changes the file system.
#include "cli/socket_trust.hpp"

#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "cli/client.hpp"
#include "common/fs.hpp"

namespace signaltty::cli {
namespace {

// Permission bits for group and others: none may be set on the directory.
constexpr mode_t kGroupOtherBits = 077;
constexpr mode_t kPermissionBits = 07777;

bool means_absent(int err) { return err == ENOENT || err == ENOTDIR; }

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & kPermissionBits));
  return text;
}

std::string uid_text(uid_t uid) { return "uid " + std::to_string(uid); }

}  // namespace

Error untrusted_socket(const std::string& socket_path, const std::string& why) {
  return Error{ErrorCode::Forbidden,
               "refusing to use the broker socket " + socket_path + ": " + why +
                   "; nothing was sent",
               {{kUntrustedSocketDetail, true}}};
}

bool is_untrusted_socket(const Error& error) {
  return error.code == ErrorCode::Forbidden && error.details.is_object() &&
         error.details.value(kUntrustedSocketDetail, false);
}

Status check_socket_directory(const std::string& socket_path, uid_t uid) {
  const std::string dir = fs::dirname(socket_path);
  struct stat dir_stat {};
  if (::stat(dir.c_str(), &dir_stat) != 0) {
    if (means_absent(errno))
      return Error{ErrorCode::NoSuchServer, broker_not_running_message(socket_path)};
    return Error::from_errno(ErrorCode::IoError, "stat", errno, dir);
  }
  struct stat socket_stat {};
  if (::lstat(socket_path.c_str(), &socket_stat) != 0 && means_absent(errno))
    return Error{ErrorCode::NoSuchServer, broker_not_running_message(socket_path)};
  if (!S_ISDIR(dir_stat.st_mode)) return untrusted_socket(socket_path, dir + " is not a directory");
  if (dir_stat.st_uid != uid)
    return untrusted_socket(socket_path, dir + " is owned by " + uid_text(dir_stat.st_uid) +
                                             ", not by you (" + uid_text(uid) +
                                             "); another user may have created it");
  if ((dir_stat.st_mode & kGroupOtherBits) != 0)
    return untrusted_socket(socket_path, dir + " has mode " + octal_mode(dir_stat.st_mode) +
                                             "; it must be 0700 (no access for group or others)");
  return {};
}

Status check_broker_peer(int fd, const std::string& socket_path, uid_t uid) {
  ucred peer{};
  socklen_t size = sizeof(peer);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0)
    return Error::from_errno(ErrorCode::IoError, "getsockopt(SO_PEERCRED)", errno, socket_path);
  if (peer.uid != uid)
    return untrusted_socket(socket_path, "the process serving it (pid " + std::to_string(peer.pid) +
                                             ") runs as " + uid_text(peer.uid) + ", not as you (" +
                                             uid_text(uid) + ")");
  return {};
}

}  // namespace signaltty::cli
