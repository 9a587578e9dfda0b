// broker/agents/pane_ancestry.cpp: the /proc walk of pane_ancestry.hpp.
// Runs in: broker (io thread).
#include "broker/agents/pane_ancestry.hpp"

#include <fstream>
#include <sstream>

namespace signaltty::broker::agents {
namespace {

// pid 1 (init) and 0 are every process's ancestors, never a pane.
constexpr std::int64_t kFirstUserPid = 2;

}  // namespace

std::optional<std::int64_t> parent_pid(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  // `pid (comm) state ppid …`: comm may hold spaces and ')', so read after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  std::int64_t ppid = 0;
  if (!(rest >> state >> ppid)) return std::nullopt;
  return ppid;
}

std::optional<std::string> pane_of_process(
    std::int64_t pid, const std::map<std::int64_t, std::string>& pane_by_pid,
    const std::function<std::optional<std::int64_t>(std::int64_t)>& parent_of) {
  for (int depth = 0; depth <= kMaxAncestryDepth && pid >= kFirstUserPid; ++depth) {
    if (auto it = pane_by_pid.find(pid); it != pane_by_pid.end()) return it->second;
    auto parent = parent_of(pid);
    if (!parent || *parent == pid) return std::nullopt;
    pid = *parent;
  }
  return std::nullopt;
}

}  // namespace signaltty::broker::agents
