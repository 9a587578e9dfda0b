// tests/broker/state_image_test.cpp: which entities a transaction names
// (payload keys only, whatever the event) and the image the store gives
// of each (broker/state_image.cpp).
#include "broker/state_image.hpp"

#include <gtest/gtest.h>

#include "broker/store.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;

TEST(StateImage, EntitiesAreNamedByPayloadKeysWhateverTheEvent) {
  std::vector<PendingEvent> events{
      {"decision.created", Json{{"pane_id", "pane_a"}, {"decision", {{"id", "d1"}}}}},
      {"some.future_event", Json{{"tab", {{"id", "tab_b"}, {"workspace_id", "ws_c"}}}}},
      {"notification.created", Json{{"notification", {{"id", "notif_d"}, {"pane_id", "pane_a"}}}}}};
  std::vector<EntityRef> touched{{EntityKind::Pane, "pane_e"}, {EntityKind::Pane, "pane_a"}};
  std::vector<EntityRef> want{{EntityKind::Pane, "pane_a"},
                              {EntityKind::Tab, "tab_b"},
                              {EntityKind::Workspace, "ws_c"},
                              {EntityKind::Notification, "notif_d"},
                              {EntityKind::Pane, "pane_e"}};
  EXPECT_EQ(named_entities(events, touched), want);
}

TEST(StateImage, AnEntityTheStoreNoLongerHoldsIsListedAsRemoved) {
  Store store([] { return std::string("2026-11-30T00:00:00.000Z"); });
  Txn txn;
  const std::string ws = store.create_workspace(txn, "api", "/").value().id;
  StateImage image = state_image_of(
      store, {{EntityKind::Workspace, ws}, {EntityKind::Pane, "pane_gone"}, {EntityKind::Tab, "tab_gone"}});
  ASSERT_EQ(image.workspaces.size(), 1u);
  EXPECT_EQ(image.workspaces[0].name, "api");
  EXPECT_EQ(image.removed_panes, std::vector<std::string>{"pane_gone"});
  EXPECT_EQ(image.removed_tabs, std::vector<std::string>{"tab_gone"});
  Json encoded = Json::parse(encode_state_image(image));
  EXPECT_FALSE(encoded.contains("panes")) << "empty lists are left out: " << encoded.dump();
  EXPECT_EQ(encode_state_image(StateImage{}), "");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
