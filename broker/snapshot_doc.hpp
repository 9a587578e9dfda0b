// broker/snapshot_doc.hpp: the snapshot file's typed shape
// (docs/rules.md, Snapshot): {version, saved_at, workspaces, tabs, panes,
// notifications, tasks, transitions}. Objects are exactly the model's wire
// JSON; `transitions` are the panes' wait-baseline numbers (docs/rules.md
// "Wait baseline"), absent from older snapshots and then all zero.
// Runs in: broker. Never: holds runtime-only state (offsets, viewers, fds).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/protocol/model.hpp"

namespace signaltty::broker {

inline constexpr int kSnapshotVersion = 1;

// One pane's transition numbers (docs/rules.md "Wait baseline"): `counter`
// grows by one per lifecycle or attention change; `last_into` holds, per
// state name, the counter of the latest change into it.
struct PaneTransitions {
  std::string pane_id;
  std::uint64_t counter = 0;
  std::uint64_t lifecycle_seq = 0;
  std::uint64_t attention_seq = 0;
  std::map<std::string, std::uint64_t> last_into;
  static constexpr auto fields() {
    using T = PaneTransitions;
    using protocol::opt;
    using protocol::req;
    return std::tuple{req("pane_id", &T::pane_id), opt("counter", &T::counter),
                      opt("lifecycle_seq", &T::lifecycle_seq),
                      opt("attention_seq", &T::attention_seq), opt("last_into", &T::last_into)};
  }
  bool operator==(const PaneTransitions&) const = default;
};

struct SnapshotDoc {
  int version = kSnapshotVersion;
  std::string saved_at;
  std::vector<protocol::Workspace> workspaces;
  std::vector<protocol::Tab> tabs;
  std::vector<protocol::Pane> panes;
  std::vector<protocol::Json> notifications;
  std::vector<protocol::Json> tasks;
  std::vector<PaneTransitions> transitions;
  static constexpr auto fields() {
    using D = SnapshotDoc;
    using protocol::opt;
    using protocol::req;
    return std::tuple{req("version", &D::version),           opt("saved_at", &D::saved_at),
                      opt("workspaces", &D::workspaces),      opt("tabs", &D::tabs),
                      opt("panes", &D::panes),                opt("notifications", &D::notifications),
                      opt("tasks", &D::tasks),                opt("transitions", &D::transitions)};
  }
};

}  // namespace signaltty::broker
