// broker/agents/pane_ancestry.hpp: which pane a reporting process runs in,
// by its ancestry (docs/rules.md "Hook attribution"): from the reporter's
// pid up through /proc/<pid>/stat parents to the first pid that is a live
// pane's program, which is the deepest pane it descends from.
// Runs in: broker (io thread; a few small /proc reads).
// Never: trusts a pid it cannot read (the walk stops there), walks past
// kMaxAncestryDepth parents, or matches pid 0/1.
//
// Usage:
//   std::map<std::int64_t, std::string> live = {{pane.pid, pane.id}, …};
//   std::optional<std::string> pane_id = pane_of_process(client_pid, live);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace signaltty::broker::agents {

// Our bound: deeper process trees than this are not followed.
inline constexpr int kMaxAncestryDepth = 64;

// The parent pid of `pid` as /proc/<pid>/stat says, nullopt when unreadable.
std::optional<std::int64_t> parent_pid(std::int64_t pid);

// The pane whose program is `pid` or its nearest ancestor; `parent_of`
// is parent_pid (tests pass their own).
std::optional<std::string> pane_of_process(
    std::int64_t pid, const std::map<std::int64_t, std::string>& pane_by_pid,
    const std::function<std::optional<std::int64_t>(std::int64_t)>& parent_of = parent_pid);

}  // namespace signaltty::broker::agents
