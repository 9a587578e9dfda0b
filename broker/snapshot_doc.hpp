// broker/snapshot_doc.hpp: the snapshot file's typed shape
// (docs/rules.md, Snapshot): {version, saved_at, journal_seq, workspaces,
// tabs, panes, notifications, tasks, transitions}. Objects are exactly the
// model's wire JSON; `transitions` are the panes' wait-baseline numbers
// (docs/rules.md "Wait baseline"), absent from older snapshots and then all
// zero; `journal_seq` is the highest event number the snapshot reflects
// (decision 25). Also the journal's state image, a partial snapshot of the
// entities one transaction touched (docs/rules.md (Persistence), "Journal
// replay").
// Runs in: broker. Never: holds runtime-only state (offsets, viewers, fds).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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
  // Every journal record up to this seq is reflected; at start the broker
  // applies the state images of the records after it. Absent in a snapshot
  // of an older broker: nothing is replayed over it.
  std::optional<std::uint64_t> journal_seq;
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
                      opt("journal_seq", &D::journal_seq),
                      opt("workspaces", &D::workspaces),      opt("tabs", &D::tabs),
                      opt("panes", &D::panes),                opt("notifications", &D::notifications),
                      opt("tasks", &D::tasks),                opt("transitions", &D::transitions)};
  }
};

// One journal record's `state` (docs/rules.md (Persistence), "Journal
// replay"): the entities one transaction touched, as they were once it was
// done, in the snapshot's shapes (a pane with its transition numbers), and
// the ids of those it removed. Replay upserts and removes them.
struct StateImage {
  std::vector<protocol::Workspace> workspaces;
  std::vector<protocol::Tab> tabs;
  std::vector<protocol::Pane> panes;
  std::vector<PaneTransitions> transitions;
  std::vector<protocol::Json> notifications;
  std::vector<std::string> removed_workspaces;
  std::vector<std::string> removed_tabs;
  std::vector<std::string> removed_panes;
  static constexpr auto fields() {
    using I = StateImage;
    using protocol::opt;
    return std::tuple{opt("workspaces", &I::workspaces),
                      opt("tabs", &I::tabs),
                      opt("panes", &I::panes),
                      opt("transitions", &I::transitions),
                      opt("notifications", &I::notifications),
                      opt("removed_workspaces", &I::removed_workspaces),
                      opt("removed_tabs", &I::removed_tabs),
                      opt("removed_panes", &I::removed_panes)};
  }
};

}  // namespace signaltty::broker
