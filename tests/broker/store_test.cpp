// tests/broker/store_test.cpp: the model's transitions (docs/rules.md:
// Model, Methods): validation, emitted events in
// order with their payloads, no mutation on failure, and the snapshot
// round trip with its repairs (docs/rules.md, Restore).
#include "broker/store.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "broker/layout.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace ev = protocol::ev;
using protocol::Pane;
using protocol::Tab;
using protocol::Workspace;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "store-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::canonical(tmpl).string();
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct Model {
  std::vector<Workspace> workspaces;
  std::vector<Tab> tabs;
  std::vector<Pane> panes;
  bool operator==(const Model&) const = default;
};
Model model_of(const Store& store) {
  SnapshotDoc doc = store.to_snapshot();
  return {doc.workspaces, doc.tabs, doc.panes};
}

std::vector<std::string> event_names(Txn& txn) {
  std::vector<std::string> out;
  for (const PendingEvent& e : txn.events()) out.push_back(e.name);
  return out;
}

template <class E>
std::string name_of() {
  return std::string(E::name);
}

Pane make_pane(const Tab& tab, std::optional<std::string> name = std::nullopt) {
  Pane p;
  p.id = new_id("pane");
  p.workspace_id = tab.workspace_id;
  p.tab_id = tab.id;
  p.name = std::move(name);
  p.title = "shell";
  return p;
}

class StoreTest : public ::testing::Test {
 protected:
  Clock clock() {
    return [this] { return now_; };
  }

  Workspace create_ws(const std::string& name) {
    Txn txn;
    auto r = store_.create_workspace(txn, name, dir_.path());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return *r;
  }
  Tab create_tab(const Workspace& ws, std::optional<std::string> title = std::nullopt) {
    Txn txn;
    auto r = store_.create_tab(txn, ws.id, std::move(title));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return *r;
  }
  // A store restored with one workspace, one tab and `n` panes laid out in
  // a row (the first pane named "lead").
  void restore_with_panes(int n) {
    Workspace ws = create_ws("proj");
    Tab tab = create_tab(ws);
    SnapshotDoc doc = store_.to_snapshot();
    std::optional<Layout> layout;
    for (int i = 0; i < n; ++i) {
      Pane p = make_pane(tab, i == 0 ? std::optional<std::string>("lead") : std::nullopt);
      pane_ids_.push_back(p.id);
      layout = layout ? split_leaf(*layout, leaves(*layout).back(), p.id, SplitDir::Right)
                      : Layout::leaf(p.id);
      doc.panes.push_back(std::move(p));
    }
    doc.tabs[0].layout = layout ? protocol::Nullable<Layout>(*layout) : std::nullopt;
    if (n > 0) doc.tabs[0].active_pane_id = pane_ids_.front();
    auto restored = Store::from_snapshot(std::move(doc), clock());
    ASSERT_TRUE(restored.ok());
    store_ = std::move(restored).value();
    ws_id_ = ws.id;
    tab_id_ = tab.id;
  }
  const Tab& tab() { return **store_.find_tab(tab_id_); }

  TempDir dir_;
  std::string now_ = "2026-01-01T00:00:00.000Z";
  Store store_{clock()};
  std::vector<std::string> pane_ids_;
  std::string ws_id_;
  std::string tab_id_;
};

// ---- workspace.create --------------------------------------------------------

TEST_F(StoreTest, CreateWorkspaceEmitsWorkspaceCreatedWithTheWorkspace) {
  Txn txn;
  auto ws = store_.create_workspace(txn, "My API!!", dir_.path());
  ASSERT_TRUE(ws.ok());
  EXPECT_TRUE(looks_like_id(ws->id));
  EXPECT_EQ(ws->id.rfind("ws_", 0), 0u);
  EXPECT_EQ(ws->name, "My API!!");
  EXPECT_EQ(ws->handle, "my-api");
  EXPECT_EQ(ws->cwd, dir_.path());
  EXPECT_EQ(ws->created_at, now_);
  EXPECT_EQ(ws->updated_at, now_);
  EXPECT_TRUE(ws->tabs.empty());
  ASSERT_EQ(event_names(txn), std::vector<std::string>{name_of<ev::WorkspaceCreated>()});
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::WorkspacePayload{*ws}));
  EXPECT_EQ(store_.workspace_count(), 1u);
  EXPECT_EQ(store_.revision(), 1u);
}

TEST_F(StoreTest, CreateWorkspaceDefaultsToNameWorkspaceAndHomeDirectory) {
  ScopedEnv home("HOME", dir_.path());
  Txn txn;
  auto ws = store_.create_workspace(txn, std::nullopt, std::nullopt);
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ(ws->name, "workspace");
  EXPECT_EQ(ws->handle, "workspace");
  EXPECT_EQ(ws->cwd, dir_.path());
}

TEST_F(StoreTest, CreateWorkspaceStoresTheCwdResolved) {
  std::filesystem::create_directory(dir_.path() + "/sub");
  std::filesystem::create_directory_symlink(dir_.path() + "/sub", dir_.path() + "/link");
  Txn txn;
  auto ws = store_.create_workspace(txn, "x", dir_.path() + "/link/../sub/.");
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ(ws->cwd, dir_.path() + "/sub");
}

TEST_F(StoreTest, CreateWorkspaceRefusesABadCwdNamingItAndChangesNothing) {
  std::ofstream(dir_.path() + "/file") << "x";
  for (const std::string& cwd : {std::string("relative/dir"), std::string(""),
                                 dir_.path() + "/missing", dir_.path() + "/file"}) {
    Txn txn;
    auto ws = store_.create_workspace(txn, "x", cwd);
    ASSERT_FALSE(ws.ok()) << cwd;
    EXPECT_EQ(ws.error().code, ErrorCode::BadParams);
    EXPECT_EQ(ws.error().details["field"], "cwd");
    EXPECT_NE(ws.error().message.find("cwd"), std::string::npos);
    EXPECT_TRUE(txn.empty());
  }
  EXPECT_EQ(store_.workspace_count(), 0u);
  EXPECT_EQ(store_.revision(), 0u);
}

TEST_F(StoreTest, CreateWorkspaceRefusesAnOverlongName) {
  Txn txn;
  auto ws = store_.create_workspace(txn, std::string(limits::kNameMaxBytes + 1, 'n'), dir_.path());
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.error().code, ErrorCode::BadParams);
  EXPECT_EQ(ws.error().details["field"], "name");
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(store_.workspace_count(), 0u);
}

TEST_F(StoreTest, CreateWorkspaceStripsControlCharactersAndCutsTheName) {
  Txn txn;
  auto ws = store_.create_workspace(txn, "a\x1b]0;x\x07" "b", dir_.path());
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ(ws->name, "a]0;xb");
  auto long_ws = store_.create_workspace(txn, std::string(250, 'n'), dir_.path());
  ASSERT_TRUE(long_ws.ok());
  EXPECT_EQ(long_ws->name.size(), limits::kTitleMaxChars);
}

TEST_F(StoreTest, CollidingNamesGetNumberedHandles) {
  EXPECT_EQ(create_ws("My API!!").handle, "my-api");
  EXPECT_EQ(create_ws("my api").handle, "my-api-2");
  EXPECT_EQ(create_ws("MY-API").handle, "my-api-3");
}

// ---- lookups -----------------------------------------------------------------

TEST_F(StoreTest, FindWorkspaceMatchesIdsThenHandles) {
  Workspace ws = create_ws("api");
  EXPECT_EQ((*store_.find_workspace(ws.id))->id, ws.id);
  EXPECT_EQ((*store_.find_workspace("api"))->id, ws.id);
  auto missing = store_.find_workspace("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::NoSuchWorkspace);
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);
}

TEST_F(StoreTest, FindTabAndFindPaneReportTheirOwnCodes) {
  EXPECT_EQ(store_.find_tab("tab_x").error().code, ErrorCode::NoSuchTab);
  auto pane = store_.find_pane("worker");
  ASSERT_FALSE(pane.ok());
  EXPECT_EQ(pane.error().code, ErrorCode::NoSuchPane);
  EXPECT_NE(pane.error().message.find("worker"), std::string::npos);
}

TEST_F(StoreTest, FindPaneMatchesIdsThenNames) {
  restore_with_panes(2);
  EXPECT_EQ((*store_.find_pane(pane_ids_[1]))->id, pane_ids_[1]);
  EXPECT_EQ((*store_.find_pane("lead"))->id, pane_ids_[0]);
}

TEST_F(StoreTest, ListWorkspacesKeepsCreationOrder) {
  Workspace b = create_ws("b");
  Workspace a = create_ws("a");
  auto list = store_.list_workspaces();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, b.id);
  EXPECT_EQ(list[1].id, a.id);
}

// ---- workspace.rename --------------------------------------------------------

TEST_F(StoreTest, RenameChangesTheNameButNeverTheHandle) {
  Workspace ws = create_ws("api");
  now_ = "2026-01-02T00:00:00.000Z";
  Txn txn;
  auto renamed = store_.rename_workspace(txn, "api", "Backend");
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->name, "Backend");
  EXPECT_EQ(renamed->handle, "api");
  EXPECT_EQ(renamed->updated_at, now_);
  EXPECT_EQ(renamed->created_at, ws.created_at);
  ASSERT_EQ(event_names(txn), std::vector<std::string>{name_of<ev::WorkspaceUpdated>()});
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::WorkspacePayload{*renamed}));
}

TEST_F(StoreTest, RenameToTheSameNameEmitsNothing) {
  Workspace ws = create_ws("api");
  const auto revision = store_.revision();
  Txn txn;
  auto same = store_.rename_workspace(txn, ws.id, "api");
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(store_.revision(), revision);
}

TEST_F(StoreTest, FailedRenameChangesNothing) {
  Workspace ws = create_ws("api");
  const Model before = model_of(store_);
  Txn txn;
  EXPECT_EQ(store_.rename_workspace(txn, "nope", "x").error().code, ErrorCode::NoSuchWorkspace);
  EXPECT_EQ(store_.rename_workspace(txn, ws.id, "\x01").error().code, ErrorCode::BadParams);
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(model_of(store_), before);
}

// ---- tab.create / tab.close --------------------------------------------------

TEST_F(StoreTest, CreateTabBecomesActiveAndEmitsTabThenWorkspace) {
  Workspace ws = create_ws("api");
  Txn txn;
  auto tab = store_.create_tab(txn, "api", std::nullopt);
  ASSERT_TRUE(tab.ok());
  EXPECT_EQ(tab->title, "tab");
  EXPECT_EQ(tab->workspace_id, ws.id);
  EXPECT_FALSE(tab->layout.has_value());
  const Workspace& after = **store_.find_workspace(ws.id);
  EXPECT_EQ(after.tabs, std::vector<std::string>{tab->id});
  EXPECT_EQ(after.active_tab_id, tab->id);
  ASSERT_EQ(event_names(txn), (std::vector<std::string>{name_of<ev::TabCreated>(),
                                                        name_of<ev::WorkspaceUpdated>()}));
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::TabPayload{*tab}));
  EXPECT_EQ(txn.events()[1].payload, protocol::encode(protocol::WorkspacePayload{after}));
  EXPECT_TRUE(txn.events()[0].payload["tab"]["layout"].is_null());
}

TEST_F(StoreTest, CreateTabInAnUnknownWorkspaceChangesNothing) {
  create_ws("api");
  const Model before = model_of(store_);
  Txn txn;
  EXPECT_EQ(store_.create_tab(txn, "nope", "t").error().code, ErrorCode::NoSuchWorkspace);
  EXPECT_EQ(store_.create_tab(txn, "api", "").error().code, ErrorCode::BadParams);
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(model_of(store_), before);
}

TEST_F(StoreTest, ClosingTheLastActiveTabActivatesThePreviousOne) {
  Workspace ws = create_ws("api");
  Tab a = create_tab(ws, "a");
  Tab b = create_tab(ws, "b");
  Tab c = create_tab(ws, "c");
  Txn txn;
  ASSERT_TRUE(store_.close_tab(txn, c.id).ok());
  EXPECT_EQ((*store_.find_workspace(ws.id))->active_tab_id, b.id);
  ASSERT_EQ(event_names(txn), (std::vector<std::string>{name_of<ev::TabClosed>(),
                                                        name_of<ev::WorkspaceUpdated>()}));
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::TabClosedPayload{c.id, ws.id}));
  EXPECT_EQ(txn.events()[1].payload["workspace"]["tabs"], nlohmann::json::array({a.id, b.id}));
}

TEST_F(StoreTest, ClosingAMiddleActiveTabActivatesTheOneAfterIt) {
  Workspace ws = create_ws("api");
  Tab a = create_tab(ws, "a");
  Tab b = create_tab(ws, "b");
  Tab c = create_tab(ws, "c");
  SnapshotDoc doc = store_.to_snapshot();
  doc.workspaces[0].active_tab_id = b.id;
  store_ = *Store::from_snapshot(doc, clock());
  Txn txn;
  ASSERT_TRUE(store_.close_tab(txn, b.id).ok());
  const Workspace& after = **store_.find_workspace(ws.id);
  EXPECT_EQ(after.tabs, (std::vector<std::string>{a.id, c.id}));
  EXPECT_EQ(after.active_tab_id, c.id);
}

TEST_F(StoreTest, ClosingTheOnlyTabLeavesNoActiveTab) {
  Workspace ws = create_ws("api");
  Tab a = create_tab(ws);
  Txn txn;
  ASSERT_TRUE(store_.close_tab(txn, a.id).ok());
  const Workspace& after = **store_.find_workspace(ws.id);
  EXPECT_TRUE(after.tabs.empty());
  EXPECT_FALSE(after.active_tab_id.has_value());
  EXPECT_EQ(store_.tab_count(), 0u);
}

TEST_F(StoreTest, ClosingAnUnknownTabIsNoSuchTab) {
  Txn txn;
  EXPECT_EQ(store_.close_tab(txn, "tab_nope").error().code, ErrorCode::NoSuchTab);
  EXPECT_TRUE(txn.empty());
}

// docs/rules.md, decision 17: a pane record goes only once its child is reaped
// (remove_pane); closing its tab or workspace never drops it.
TEST_F(StoreTest, ClosingATabOrWorkspaceThatStillHoldsPanesIsPanesAliveAndChangesNothing) {
  restore_with_panes(2);
  const Model before = model_of(store_);
  const std::string ws_id = (*store_.find_tab(tab_id_))->workspace_id;
  Txn txn;
  auto tab = store_.close_tab(txn, tab_id_);
  ASSERT_FALSE(tab.ok());
  EXPECT_EQ(tab.error().code, ErrorCode::PanesAlive);
  EXPECT_EQ(tab.error().details["pane_ids"].size(), 2u);
  auto ws = store_.close_workspace(txn, ws_id);
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.error().code, ErrorCode::PanesAlive);
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(model_of(store_), before);
}

TEST_F(StoreTest, ATabIsClosedOnceItsPanesAreRemoved) {
  restore_with_panes(2);
  Txn txn;
  for (const protocol::Pane& pane : store_.list_panes())
    ASSERT_TRUE(store_.remove_pane(txn, pane.id).ok());
  Txn close;
  ASSERT_TRUE(store_.close_tab(close, tab_id_).ok());
  EXPECT_EQ(event_names(close),
            (std::vector<std::string>{name_of<ev::TabClosed>(), name_of<ev::WorkspaceUpdated>()}));
  EXPECT_EQ(store_.pane_count(), 0u);
}

// ---- workspace.close ---------------------------------------------------------

TEST_F(StoreTest, CloseWorkspaceClosesEachTabThenTheWorkspace) {
  Workspace ws = create_ws("api");
  Tab a = create_tab(ws);
  Tab b = create_tab(ws);
  Workspace other = create_ws("other");
  Txn txn;
  ASSERT_TRUE(store_.close_workspace(txn, "api").ok());
  ASSERT_EQ(event_names(txn),
            (std::vector<std::string>{name_of<ev::TabClosed>(), name_of<ev::TabClosed>(),
                                      name_of<ev::WorkspaceClosed>()}));
  EXPECT_EQ(txn.events()[0].payload["tab_id"], a.id);
  EXPECT_EQ(txn.events()[1].payload["tab_id"], b.id);
  EXPECT_EQ(txn.events()[2].payload, protocol::encode(protocol::WorkspaceClosedPayload{ws.id}));
  EXPECT_EQ(store_.workspace_count(), 1u);
  EXPECT_EQ(store_.tab_count(), 0u);
  EXPECT_EQ(store_.list_workspaces()[0].id, other.id);
  EXPECT_EQ(create_ws("api").handle, "api");  // the handle is free again
}

TEST_F(StoreTest, ClosingAnUnknownWorkspaceChangesNothing) {
  create_ws("api");
  const Model before = model_of(store_);
  Txn txn;
  EXPECT_EQ(store_.close_workspace(txn, "nope").error().code, ErrorCode::NoSuchWorkspace);
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(model_of(store_), before);
}

// ---- tab.set_layout ----------------------------------------------------------

TEST_F(StoreTest, AnyLayoutOfATabWithoutPanesIsBadParams) {
  Workspace ws = create_ws("api");
  Tab tab = create_tab(ws);
  Txn txn;
  auto r = store_.set_layout(txn, tab.id, Layout::leaf(new_id("pane")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  EXPECT_TRUE(txn.empty());
}

TEST_F(StoreTest, SetLayoutReplacesTheTreeAndEmitsTabUpdated) {
  restore_with_panes(3);
  const auto& ids = pane_ids_;
  Layout next = Layout::split(SplitDir::Down, .3, Layout::leaf(ids[2]),
                              Layout::split(SplitDir::Right, .5, Layout::leaf(ids[0]),
                                            Layout::leaf(ids[1])));
  Txn txn;
  auto r = store_.set_layout(txn, tab_id_, next);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->layout, next);
  EXPECT_EQ(tab(), *r);
  ASSERT_EQ(event_names(txn), std::vector<std::string>{name_of<ev::TabUpdated>()});
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::TabPayload{*r}));
}

TEST_F(StoreTest, SetLayoutAcceptsPaneNamesAsLeaves) {
  restore_with_panes(2);
  Txn txn;
  auto r = store_.set_layout(txn, tab_id_, Layout::split(SplitDir::Right, .5,
                                                        Layout::leaf(pane_ids_[1]),
                                                        Layout::leaf("lead")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(leaves(*r->layout), (std::vector<std::string>{pane_ids_[1], pane_ids_[0]}));
}

TEST_F(StoreTest, SetLayoutClampsRatios) {
  restore_with_panes(2);
  Txn txn;
  auto r = store_.set_layout(txn, tab_id_, Layout::split(SplitDir::Right, .999,
                                                        Layout::leaf(pane_ids_[0]),
                                                        Layout::leaf(pane_ids_[1])));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r->layout).ratio, limits::kRatioMax);
}

TEST_F(StoreTest, SetLayoutWithAMissingForeignOrRepeatedPaneChangesNothing) {
  restore_with_panes(2);
  const Model before = model_of(store_);
  const auto leaf = [](const std::string& id) { return Layout::leaf(id); };
  const std::string foreign = new_id("pane");
  for (const Layout& bad :
       {leaf(pane_ids_[0]),
        Layout::split(SplitDir::Right, .5, leaf(pane_ids_[0]), leaf(foreign)),
        Layout::split(SplitDir::Right, .5, leaf(pane_ids_[0]),
                      Layout::split(SplitDir::Down, .5, leaf(pane_ids_[1]), leaf(pane_ids_[1])))}) {
    Txn txn;
    auto r = store_.set_layout(txn, tab_id_, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::BadParams);
    EXPECT_TRUE(r.error().details.contains("pane_id"));
    EXPECT_TRUE(txn.empty());
  }
  EXPECT_EQ(model_of(store_), before);
}

TEST_F(StoreTest, SetLayoutRejectsAPaneOfAnotherTab) {
  restore_with_panes(1);
  Workspace ws = **store_.find_workspace(ws_id_);
  Tab other = create_tab(ws, "other");
  SnapshotDoc doc = store_.to_snapshot();
  Pane stranger = make_pane(other);
  doc.panes.push_back(stranger);
  store_ = *Store::from_snapshot(doc, clock());
  Txn txn;
  auto r = store_.set_layout(txn, tab_id_, Layout::split(SplitDir::Right, .5,
                                                        Layout::leaf(pane_ids_[0]),
                                                        Layout::leaf(stranger.id)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().details["pane_id"], stranger.id);
}

TEST_F(StoreTest, SetLayoutToTheCurrentTreeEmitsNothing) {
  restore_with_panes(2);
  const auto revision = store_.revision();
  Txn txn;
  ASSERT_TRUE(store_.set_layout(txn, tab_id_, *tab().layout).ok());
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(store_.revision(), revision);
}

TEST_F(StoreTest, SetLayoutOnAnUnknownTabIsNoSuchTab) {
  Txn txn;
  EXPECT_EQ(store_.set_layout(txn, "tab_nope", Layout::leaf("x")).error().code,
            ErrorCode::NoSuchTab);
}

// ---- tab.set_ratio -----------------------------------------------------------

TEST_F(StoreTest, SetRatioMovesOneDividerAndEmitsTabUpdated) {
  restore_with_panes(3);
  Txn txn;
  auto r = store_.set_ratio(txn, tab_id_, {1}, 0.2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r->layout).second->ratio, 0.2);
  EXPECT_EQ(tab(), *r);
  ASSERT_EQ(event_names(txn), std::vector<std::string>{name_of<ev::TabUpdated>()});
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::TabPayload{*r}));
}

TEST_F(StoreTest, SetRatioClampsTheRatio) {
  restore_with_panes(2);
  Txn txn;
  auto clamped = store_.set_ratio(txn, tab_id_, {}, 0.0);
  ASSERT_TRUE(clamped.ok());
  EXPECT_EQ((*clamped->layout).ratio, limits::kRatioMin);
}

TEST_F(StoreTest, SetRatioOnATabWithoutLayoutIsBadParams) {
  Workspace ws = create_ws("api");
  Tab t = create_tab(ws);
  Txn txn;
  auto r = store_.set_ratio(txn, t.id, {}, 0.5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  EXPECT_TRUE(txn.empty());
}

TEST_F(StoreTest, SetRatioWithABadPathOrRatioChangesNothing) {
  restore_with_panes(2);
  const Model before = model_of(store_);
  Txn txn;
  auto leafward = store_.set_ratio(txn, tab_id_, {0}, 0.3);
  ASSERT_FALSE(leafward.ok());
  EXPECT_EQ(leafward.error().details["path"], nlohmann::json::array({0}));
  EXPECT_FALSE(store_.set_ratio(txn, tab_id_, {}, std::nan("")).ok());
  EXPECT_TRUE(txn.empty());
  EXPECT_EQ(model_of(store_), before);
}

TEST_F(StoreTest, SetRatioToTheCurrentRatioEmitsNothing) {
  restore_with_panes(2);
  Txn txn;
  ASSERT_TRUE(store_.set_ratio(txn, tab_id_, {}, (*tab().layout).ratio).ok());
  EXPECT_TRUE(txn.empty());
}

// ---- pane removal ------------------------------------------------------------

TEST_F(StoreTest, RemovePaneCollapsesTheLayoutAndMovesTheActivePane) {
  restore_with_panes(3);
  Txn txn;
  ASSERT_TRUE(store_.remove_pane(txn, pane_ids_[0]).ok());
  EXPECT_EQ(leaves(*tab().layout), (std::vector<std::string>{pane_ids_[1], pane_ids_[2]}));
  EXPECT_EQ(tab().active_pane_id, pane_ids_[1]);
  ASSERT_EQ(event_names(txn), (std::vector<std::string>{name_of<ev::PaneClosed>(),
                                                        name_of<ev::TabUpdated>()}));
  EXPECT_EQ(txn.events()[0].payload, protocol::encode(protocol::PaneIdPayload{pane_ids_[0]}));
  EXPECT_EQ(store_.pane_count(), 2u);
}

TEST_F(StoreTest, RemovingTheLastPaneKeepsTheTabEmptyWithANullLayout) {
  restore_with_panes(1);
  Txn txn;
  ASSERT_TRUE(store_.remove_pane(txn, "lead").ok());
  EXPECT_FALSE(tab().layout.has_value());
  EXPECT_FALSE(tab().active_pane_id.has_value());
  EXPECT_EQ(store_.tab_count(), 1u);
}

// ---- queries over panes ------------------------------------------------------

TEST_F(StoreTest, PanesOfWorkspaceFollowTheLayout) {
  restore_with_panes(3);
  Txn txn;
  ASSERT_TRUE(store_
                  .set_layout(txn, tab_id_,
                              Layout::split(SplitDir::Down, .5, Layout::leaf(pane_ids_[2]),
                                            Layout::split(SplitDir::Right, .5,
                                                          Layout::leaf(pane_ids_[0]),
                                                          Layout::leaf(pane_ids_[1]))))
                  .ok());
  const Workspace& ws = **store_.find_workspace(ws_id_);
  std::vector<std::string> ids;
  for (const Pane& p : store_.panes_of_workspace(ws)) ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::string>{pane_ids_[2], pane_ids_[0], pane_ids_[1]}));
  EXPECT_EQ(store_.tabs_of(ws).size(), 1u);
}

TEST_F(StoreTest, CountsSeparateLiveFromExitedPanes) {
  restore_with_panes(2);
  SnapshotDoc doc = store_.to_snapshot();
  doc.panes[0].live.state = "exited";
  store_ = *Store::from_snapshot(doc, clock());
  EXPECT_EQ(store_.workspace_count(), 1u);
  EXPECT_EQ(store_.tab_count(), 1u);
  EXPECT_EQ(store_.pane_count(), 2u);
  EXPECT_EQ(store_.live_pane_count(), 1u);
}

TEST_F(StoreTest, RevisionGrowsOnlyWithChanges) {
  Workspace ws = create_ws("api");
  Tab t = create_tab(ws);
  EXPECT_EQ(store_.revision(), 2u);
  Txn txn;
  EXPECT_FALSE(store_.create_tab(txn, "nope", std::nullopt).ok());
  EXPECT_TRUE(store_.rename_workspace(txn, ws.id, "api").ok());
  EXPECT_EQ(store_.revision(), 2u);
  EXPECT_TRUE(store_.close_tab(txn, t.id).ok());
  EXPECT_EQ(store_.revision(), 3u);
}

// ---- snapshots ---------------------------------------------------------------

TEST_F(StoreTest, SnapshotRoundTripRestoresTheModelExactly) {
  restore_with_panes(3);
  Workspace ws = **store_.find_workspace(ws_id_);
  create_tab(ws, "second");
  create_ws("other");
  Txn txn;
  ASSERT_TRUE(store_.set_ratio(txn, tab_id_, {}, 0.7).ok());
  const SnapshotDoc saved = store_.to_snapshot();
  EXPECT_EQ(saved.version, kSnapshotVersion);
  EXPECT_EQ(saved.saved_at, now_);

  auto decoded = protocol::decode<SnapshotDoc>(protocol::encode(saved));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  auto restored = Store::from_snapshot(std::move(decoded).value(), clock());
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(model_of(*restored), model_of(store_));
  EXPECT_EQ(restored->list_workspaces(), store_.list_workspaces());
}

TEST_F(StoreTest, SnapshotBackfillsMissingHandlesInIdOrderKeepingSavedOnes) {
  SnapshotDoc doc;
  for (const auto& [id, handle] : std::vector<std::pair<std::string, std::string>>{
           {"ws_" + std::string(31, 'b') + "2", ""},
           {"ws_" + std::string(31, 'c') + "3", "api"},
           {"ws_" + std::string(31, 'a') + "1", ""}}) {
    Workspace ws;
    ws.id = id;
    ws.name = "API";
    ws.handle = handle;
    ws.cwd = dir_.path();
    doc.workspaces.push_back(ws);
  }
  auto store = Store::from_snapshot(doc, clock());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store->find_workspace(doc.workspaces[2].id))->handle, "api-2");
  EXPECT_EQ((*store->find_workspace(doc.workspaces[0].id))->handle, "api-3");
  EXPECT_EQ((*store->find_workspace(doc.workspaces[1].id))->handle, "api");
  EXPECT_EQ(store->list_workspaces()[0].id, doc.workspaces[0].id);  // order kept
}

TEST_F(StoreTest, SnapshotDuplicateHandleIsReDerived) {
  Workspace a = create_ws("api");
  Workspace b = create_ws("web");
  SnapshotDoc doc = store_.to_snapshot();
  doc.workspaces[1].handle = "api";
  auto store = Store::from_snapshot(doc, clock());
  ASSERT_TRUE(store.ok());
  const std::string ha = (*store->find_workspace(a.id))->handle;
  const std::string hb = (*store->find_workspace(b.id))->handle;
  EXPECT_NE(ha, hb);
  EXPECT_TRUE(ha == "api" || hb == "api");
}

TEST_F(StoreTest, SnapshotDropsTabsOfMissingWorkspacesAndFixesDanglingReferences) {
  Workspace ws = create_ws("api");
  Tab kept = create_tab(ws, "kept");
  SnapshotDoc doc = store_.to_snapshot();
  Tab orphan = kept;
  orphan.id = new_id("tab");
  orphan.workspace_id = new_id("ws");
  doc.tabs.push_back(orphan);
  Tab unlisted = kept;
  unlisted.id = new_id("tab");
  doc.tabs.push_back(unlisted);
  doc.workspaces[0].tabs = {"tab_gone", kept.id, kept.id};
  doc.workspaces[0].active_tab_id = "tab_gone";
  auto store = Store::from_snapshot(doc, clock());
  ASSERT_TRUE(store.ok());
  const Workspace& after = **store->find_workspace(ws.id);
  EXPECT_EQ(after.tabs, (std::vector<std::string>{kept.id, unlisted.id}));
  EXPECT_EQ(after.active_tab_id, kept.id);
  EXPECT_FALSE(store->find_tab(orphan.id).ok());
  EXPECT_EQ(store->tab_count(), 2u);
}

TEST_F(StoreTest, SnapshotRepairsLayoutsToHoldExactlyTheTabsPanes) {
  restore_with_panes(2);
  SnapshotDoc doc = store_.to_snapshot();
  Pane extra = make_pane(doc.tabs[0]);
  doc.panes.push_back(extra);  // not in the layout
  Pane orphan = make_pane(doc.tabs[0]);
  orphan.tab_id = "tab_gone";
  doc.panes.push_back(orphan);  // its tab is missing
  doc.tabs[0].layout = Layout::split(SplitDir::Right, .5, Layout::leaf(pane_ids_[0]),
                                     Layout::split(SplitDir::Down, .5, Layout::leaf("pane_gone"),
                                                   Layout::leaf(pane_ids_[0])));
  doc.tabs[0].active_pane_id = "pane_gone";
  auto store = Store::from_snapshot(doc, clock());
  ASSERT_TRUE(store.ok());
  const Tab& t = **store->find_tab(tab_id_);
  std::vector<std::string> expected = {pane_ids_[0], pane_ids_[1], extra.id};
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> got = leaves(*t.layout);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(t.active_pane_id, leaves(*t.layout).front());
  EXPECT_FALSE(store->find_pane(orphan.id).ok());
}

TEST_F(StoreTest, SnapshotOfAnUnknownVersionIsRefused) {
  SnapshotDoc doc;
  doc.version = kSnapshotVersion + 1;
  auto store = Store::from_snapshot(doc, clock());
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("version"), std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
