// broker/pane_socket_sweep.cpp: the stale pane socket sweep.
// Runs in: broker (io thread).
#include "broker/pane_socket_sweep.hpp"

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "common/fs.hpp"
#include "common/ids.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {

constexpr std::string_view kSocketSuffix = ".sock";
constexpr std::string_view kPanePrefix = "pane_";

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

// The pane id of a `<pane_id>.sock` name, or empty.
std::string pane_id_of(std::string_view name) {
  if (name.size() <= kSocketSuffix.size() || !name.ends_with(kSocketSuffix)) return {};
  std::string id(name.substr(0, name.size() - kSocketSuffix.size()));
  return id.starts_with(kPanePrefix) && looks_like_id(id) ? id : std::string();
}

// True only when the socket exists and a connect is refused: nobody listens.
bool refuses_connections(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!probe) return false;
  return ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 &&
         errno == ECONNREFUSED;
}

bool remove_if_stale(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  return refuses_connections(path) && ::unlink(path.c_str()) == 0;
}

}  // namespace

std::size_t remove_stale_pane_sockets(const std::string& panes_dir,
                                      const std::function<bool(const std::string&)>& in_store) {
  std::unique_ptr<DIR, DirCloser> dir(::opendir(panes_dir.c_str()));
  if (!dir) return 0;
  std::size_t removed = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string pane_id = pane_id_of(entry->d_name);
    if (pane_id.empty() || in_store(pane_id)) continue;
    if (remove_if_stale(fs::join(panes_dir, entry->d_name))) ++removed;
  }
  return removed;
}

}  // namespace signaltty::broker
