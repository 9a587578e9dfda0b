// broker/pane_socket_sweep.cpp: the stale pane socket sweep.
// Runs in: broker (io thread).
#include "broker/pane_socket_sweep.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>

#include "common/fs.hpp"
#include "common/ids.hpp"

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

// A ptyhost binds its socket and listens on it at once; a name younger
// than this may be between the two calls.
constexpr std::chrono::seconds kStaleSocketMinAge{2};

// Every path some process listens on, from the kernel's table: no probe
// connects, so no live ptyhost ever sees a spurious broker connection.
std::set<std::string> listening_socket_paths() {
  constexpr unsigned long kAcceptConnections = 0x10000;  // __SO_ACCEPTCON
  std::set<std::string> paths;
  std::ifstream table("/proc/net/unix");
  std::string line;
  std::getline(table, line);  // header
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string num, refs, protocol, flags, type, state, inode, path;
    if (!(fields >> num >> refs >> protocol >> flags >> type >> state >> inode >> path)) continue;
    unsigned long bits = 0;
    const auto parsed = std::from_chars(flags.data(), flags.data() + flags.size(), bits, 16);
    if (parsed.ec == std::errc() && (bits & kAcceptConnections) != 0) paths.insert(path);
  }
  return paths;
}

enum class Stale { Removed, Waiting, NotASocket };

Stale remove_if_stale(const std::string& path, const std::set<std::string>& listening) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return Stale::NotASocket;
  const auto changed = std::chrono::system_clock::from_time_t(st.st_ctim.tv_sec);
  if (std::chrono::system_clock::now() - changed < kStaleSocketMinAge) return Stale::Waiting;
  if (listening.contains(path) || ::unlink(path.c_str()) != 0) return Stale::Waiting;
  return Stale::Removed;
}

}  // namespace

SocketSweep remove_stale_pane_sockets(const std::string& panes_dir,
                                      const std::function<bool(const std::string&)>& in_store) {
  SocketSweep sweep;
  std::unique_ptr<DIR, DirCloser> dir(::opendir(panes_dir.c_str()));
  if (!dir) return sweep;
  const std::set<std::string> listening = listening_socket_paths();
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string pane_id = pane_id_of(entry->d_name);
    if (pane_id.empty() || in_store(pane_id)) continue;
    switch (remove_if_stale(fs::join(panes_dir, entry->d_name), listening)) {
      case Stale::Removed: ++sweep.removed; break;
      case Stale::Waiting: ++sweep.waiting; break;
      case Stale::NotASocket: break;
    }
  }
  return sweep;
}

}  // namespace signaltty::broker
