// tests/integration/snapshot_seen_test.cpp: a change with no event (a pane
// marked seen while nothing was unread) still reaches snapshot.json within
// the debounce window, with no other change to carry it (docs/rules.md (Persistence),
// Snapshot: every structural change sets the persist-pending flag).
// Runs in: the integration test binary.
#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using SnapshotSeen = PaneTest;

// The saved pane `id`, or null when snapshot.json does not hold it (yet).
Json saved_pane(const TempDirs& dirs, const std::string& id) {
  const Json doc = Json::parse(read_text_file(dirs.state_file("snapshot.json")), nullptr, false);
  if (!doc.is_object() || !doc.contains("panes")) return nullptr;
  for (const Json& p : doc["panes"])
    if (p.value("id", "") == id) return p;
  return nullptr;
}

TEST_F(SnapshotSeen, AttachMarkingSeenIsSavedWithoutAnotherChange) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"cat"});
  const std::string id = pane["id"];
  ASSERT_TRUE(wait_until([&] { return !saved_pane(dirs_, id).is_null(); }));
  ASSERT_TRUE(saved_pane(dirs_, id).value("last_seen_at", Json()).is_null())
      << saved_pane(dirs_, id).dump();

  client.call("pane.attach", {{"pane_id", id}, {"mark_seen", true}});
  const Json live = get_pane(client, id);
  ASSERT_TRUE(live.contains("last_seen_at")) << live.dump();

  EXPECT_TRUE(wait_until([&] {
    const Json saved = saved_pane(dirs_, id);
    return saved.is_object() && saved.value("last_seen_at", Json()) == live["last_seen_at"];
  })) << "snapshot: " << saved_pane(dirs_, id).dump();
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
