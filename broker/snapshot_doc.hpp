// broker/snapshot_doc.hpp: the snapshot file's typed shape
// (docs/rules.md, Snapshot): {version, saved_at, workspaces, tabs, panes,
// notifications, tasks}. Objects are exactly the model's wire JSON.
// Runs in: broker. Never: holds runtime-only state (offsets, viewers, fds).
#pragma once

#include <vector>

#include "common/protocol/model.hpp"

namespace signaltty::broker {

inline constexpr int kSnapshotVersion = 1;

struct SnapshotDoc {
  int version = kSnapshotVersion;
  std::string saved_at;
  std::vector<protocol::Workspace> workspaces;
  std::vector<protocol::Tab> tabs;
  std::vector<protocol::Pane> panes;
  std::vector<protocol::Json> notifications;
  std::vector<protocol::Json> tasks;
  static constexpr auto fields() {
    using D = SnapshotDoc;
    using protocol::opt;
    using protocol::req;
    return std::tuple{req("version", &D::version),           opt("saved_at", &D::saved_at),
                      opt("workspaces", &D::workspaces),      opt("tabs", &D::tabs),
                      opt("panes", &D::panes),                opt("notifications", &D::notifications),
                      opt("tasks", &D::tasks)};
  }
};

}  // namespace signaltty::broker
