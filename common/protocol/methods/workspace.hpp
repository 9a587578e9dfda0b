// common/protocol/methods/workspace.hpp: workspace.* and tab.* methods
// (docs/rules.md: Methods, Workspace, Tab and layout).
// Runs in: every process.
#pragma once

#include "common/protocol/method_decl.hpp"
#include "common/protocol/model.hpp"
#include "common/protocol/signal_name.hpp"

namespace signaltty::protocol {

inline constexpr std::string_view kWorkspaceIdDoc = "workspace id or handle";

struct WorkspaceResult {
  Workspace workspace;
  static constexpr auto fields() { return std::tuple{req("workspace", &WorkspaceResult::workspace)}; }
};
struct TabResult {
  Tab tab;
  static constexpr auto fields() { return std::tuple{req("tab", &TabResult::tab)}; }
};
struct ClosedResult {
  bool closed = true;
  static constexpr auto fields() { return std::tuple{req("closed", &ClosedResult::closed)}; }
};
struct WorkspaceRef {
  std::string workspace_id;
  static constexpr auto fields() {
    return std::tuple{req("workspace_id", &WorkspaceRef::workspace_id, kWorkspaceIdDoc, 0)};
  }
};

struct WorkspaceCreateParams {
  std::optional<std::string> name;
  std::optional<std::string> cwd;
  bool auto_resume = false;
  bool shared_control = false;
  static constexpr auto fields() {
    using P = WorkspaceCreateParams;
    return std::tuple{opt("name", &P::name, "display name (default \"workspace\")"),
                      opt("cwd", &P::cwd, "an existing directory (default $HOME)"),
                      opt("auto_resume", &P::auto_resume,
                          "at broker start, resume its agent panes whose terminal is gone"),
                      opt("shared_control", &P::shared_control,
                          "its panes' tokens may drive each other (docs/security.md); "
                          "refused to a pane's token")};
  }
};

struct WorkspaceListResult {
  std::vector<Workspace> workspaces;
  static constexpr auto fields() {
    return std::tuple{req("workspaces", &WorkspaceListResult::workspaces)};
  }
};

struct WorkspaceGetResult {
  Workspace workspace;
  std::vector<Tab> tabs;
  std::vector<Pane> panes;
  static constexpr auto fields() {
    using R = WorkspaceGetResult;
    return std::tuple{req("workspace", &R::workspace), req("tabs", &R::tabs),
                      req("panes", &R::panes)};
  }
};

struct WorkspaceRenameParams {
  std::string workspace_id;
  std::string name;
  static constexpr auto fields() {
    using P = WorkspaceRenameParams;
    return std::tuple{req("workspace_id", &P::workspace_id, kWorkspaceIdDoc, 0),
                      req("name", &P::name, "new display name; the handle never changes", 1)};
  }
};

struct WorkspaceCloseParams {
  std::string workspace_id;
  std::optional<SignalName> signal;
  static constexpr auto fields() {
    using P = WorkspaceCloseParams;
    return std::tuple{req("workspace_id", &P::workspace_id, kWorkspaceIdDoc, 0),
                      opt("signal", &P::signal, "signal sent to each pane (default TERM)")};
  }
};

struct TabCreateParams {
  std::string workspace_id;
  std::optional<std::string> title;
  static constexpr auto fields() {
    using P = TabCreateParams;
    return std::tuple{req("workspace_id", &P::workspace_id, kWorkspaceIdDoc, 0),
                      opt("title", &P::title, "tab title (default \"tab\")")};
  }
};

struct TabCloseParams {
  std::string tab_id;
  std::optional<SignalName> signal;
  static constexpr auto fields() {
    using P = TabCloseParams;
    return std::tuple{req("tab_id", &P::tab_id, "tab id", 0),
                      opt("signal", &P::signal, "signal sent to each pane (default TERM)")};
  }
};

struct TabSetLayoutParams {
  std::string tab_id;
  Layout layout;
  static constexpr auto fields() {
    using P = TabSetLayoutParams;
    return std::tuple{req("tab_id", &P::tab_id, "tab id", 0),
                      req("layout", &P::layout, "layout tree holding every pane of the tab once", 1)};
  }
};

struct TabSetRatioParams {
  std::string tab_id;
  std::vector<int> path;
  double ratio = 0.5;
  static constexpr auto fields() {
    using P = TabSetRatioParams;
    return std::tuple{req("tab_id", &P::tab_id, "tab id", 0),
                      req("path", &P::path, "0 (first) / 1 (second) choices from the root", 1),
                      req("ratio", &P::ratio, "share of first, clamped to 0.05-0.95", 2)};
  }
};

using WorkspaceCreate = MethodDecl<"workspace.create", "Create a workspace",
                                   WorkspaceCreateParams, WorkspaceResult, kMutating>;
using WorkspaceList =
    MethodDecl<"workspace.list", "List workspaces", Empty, WorkspaceListResult, kNoFlags>;
using WorkspaceGet = MethodDecl<"workspace.get", "Show a workspace with its tabs and panes",
                                WorkspaceRef, WorkspaceGetResult, kNoFlags>;
using WorkspaceRename = MethodDecl<"workspace.rename", "Rename a workspace (handle unchanged)",
                                   WorkspaceRenameParams, WorkspaceResult, kMutating>;
using WorkspaceClose = MethodDecl<"workspace.close", "Close a workspace, its tabs and panes",
                                  WorkspaceCloseParams, ClosedResult, kMutating>;
using TabCreate = MethodDecl<"tab.create", "Create a tab and make it active", TabCreateParams,
                             TabResult, kMutating>;
using TabClose =
    MethodDecl<"tab.close", "Close a tab and its panes", TabCloseParams, ClosedResult, kMutating>;
using TabSetLayout = MethodDecl<"tab.set_layout", "Replace a tab's layout tree",
                                TabSetLayoutParams, TabResult, kMutating>;
using TabSetRatio = MethodDecl<"tab.set_ratio", "Move one divider of a tab's layout",
                               TabSetRatioParams, TabResult, kMutating>;

}  // namespace signaltty::protocol
