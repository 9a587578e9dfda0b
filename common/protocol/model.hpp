// common/protocol/model.hpp: the entities of docs/rules.md, Model, as wire structs:
// workspace, tab, layout tree, pane and their enums. These are exactly the
// JSON clients see and the snapshot stores.
// Runs in: every process. Never: holds rules; transitions live in broker/store.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"

namespace signaltty::protocol {

// ---- enums ---------------------------------------------------------------

enum class SplitDir { Right, Down };
template <>
struct EnumNames<SplitDir> {
  static constexpr std::array<std::pair<SplitDir, std::string_view>, 2> names{
      {{SplitDir::Right, "right"}, {SplitDir::Down, "down"}}};
};

enum class Lifecycle { Unknown, Working, Blocked, Done, Idle, Failed, Exited };
template <>
struct EnumNames<Lifecycle> {
  static constexpr std::array<std::pair<Lifecycle, std::string_view>, 7> names{
      {{Lifecycle::Unknown, "unknown"},
       {Lifecycle::Working, "working"},
       {Lifecycle::Blocked, "blocked"},
       {Lifecycle::Done, "done"},
       {Lifecycle::Idle, "idle"},
       {Lifecycle::Failed, "failed"},
       {Lifecycle::Exited, "exited"}}};
};

// Ordered by severity (docs/rules.md, Attention axis): raising is max().
enum class Attention { None, Unread, Warning, InputRequired, PermissionRequired, Error };
template <>
struct EnumNames<Attention> {
  static constexpr std::array<std::pair<Attention, std::string_view>, 6> names{
      {{Attention::None, "none"},
       {Attention::Unread, "unread"},
       {Attention::Warning, "warning"},
       {Attention::InputRequired, "input_required"},
       {Attention::PermissionRequired, "permission_required"},
       {Attention::Error, "error"}}};
};

enum class RestoreState { Live, Restored, Resumable, Exited };
template <>
struct EnumNames<RestoreState> {
  static constexpr std::array<std::pair<RestoreState, std::string_view>, 4> names{
      {{RestoreState::Live, "LIVE"},
       {RestoreState::Restored, "RESTORED"},
       {RestoreState::Resumable, "RESUMABLE"},
       {RestoreState::Exited, "EXITED"}}};
};

// docs/rules.md, decision 27: why a pane's program is no longer running.
enum class ExitReason { Exited, Signaled, PtyhostLost };
template <>
struct EnumNames<ExitReason> {
  static constexpr std::array<std::pair<ExitReason, std::string_view>, 3> names{
      {{ExitReason::Exited, "exited"},
       {ExitReason::Signaled, "signaled"},
       {ExitReason::PtyhostLost, "ptyhost_lost"}}};
};

enum class AgentKind { Codex, Claude, Opencode, Cursor, Pi, Generic, None };
template <>
struct EnumNames<AgentKind> {
  static constexpr std::array<std::pair<AgentKind, std::string_view>, 7> names{
      {{AgentKind::Codex, "codex"},
       {AgentKind::Claude, "claude"},
       {AgentKind::Opencode, "opencode"},
       {AgentKind::Cursor, "cursor"},
       {AgentKind::Pi, "pi"},
       {AgentKind::Generic, "generic"},
       {AgentKind::None, "none"}}};
};

// ---- workspace -----------------------------------------------------------

struct WorkspaceGit {
  std::optional<std::string> root;
  std::optional<std::string> name;
  std::optional<std::string> branch;
  bool detached = false;
  std::optional<bool> dirty;
  static constexpr auto fields() {
    return std::tuple{opt("root", &WorkspaceGit::root), opt("name", &WorkspaceGit::name),
                      opt("branch", &WorkspaceGit::branch),
                      opt("detached", &WorkspaceGit::detached),
                      opt("dirty", &WorkspaceGit::dirty)};
  }
  bool operator==(const WorkspaceGit&) const = default;
};

struct Workspace {
  std::string id;
  std::string name;
  std::string handle;
  std::string cwd;
  WorkspaceGit git;
  std::vector<std::string> tabs;
  std::optional<std::string> active_tab_id;
  bool auto_resume = false;
  bool redact = false;
  bool shared_control = false;
  std::string created_at;
  std::string updated_at;
  static constexpr auto fields() {
    return std::tuple{
        req("id", &Workspace::id),          req("name", &Workspace::name),
        opt("handle", &Workspace::handle),  req("cwd", &Workspace::cwd),
        opt("git", &Workspace::git),        opt("tabs", &Workspace::tabs),
        opt("active_tab_id", &Workspace::active_tab_id),
        opt("auto_resume", &Workspace::auto_resume, "resume adapter panes at broker start"),
        opt("redact", &Workspace::redact, "keep no scrollback tail on disk"),
        opt("shared_control", &Workspace::shared_control,
            "its panes' tokens may drive every pane of it, not only their own lineage"),
        opt("created_at", &Workspace::created_at), opt("updated_at", &Workspace::updated_at)};
  }
  bool operator==(const Workspace&) const = default;
};

// ---- layout --------------------------------------------------------------

// A tagged binary tree: leaf {"type":"pane","pane_id"} or split
// {"type":"split","dir","ratio","first","second"}. Children are shared and
// never mutated: edits build a new tree (broker/layout.cpp).
struct Layout {
  enum class Type { Pane, Split };
  Type type = Type::Pane;
  std::string pane_id;
  SplitDir dir = SplitDir::Right;
  double ratio = 0.5;
  std::shared_ptr<const Layout> first;
  std::shared_ptr<const Layout> second;

  static Layout leaf(std::string pane_id) {
    Layout l;
    l.pane_id = std::move(pane_id);
    return l;
  }
  static Layout split(SplitDir dir, double ratio, Layout first, Layout second) {
    Layout l;
    l.type = Type::Split;
    l.dir = dir;
    l.ratio = ratio;
    l.first = std::make_shared<const Layout>(std::move(first));
    l.second = std::make_shared<const Layout>(std::move(second));
    return l;
  }
  bool operator==(const Layout& o) const;
};

// Decodes with the depth bound of limits.hpp; ratios must be finite and are
// clamped to 0.05–0.95 on decode.
template <>
struct Codec<Layout> {
  static Result<Layout> decode(const Json& j, std::string_view path);
  static Json encode(const Layout& v);
  static Json schema();
};

// ---- tab -----------------------------------------------------------------

struct Tab {
  std::string id;
  std::string workspace_id;
  std::string title;
  Nullable<Layout> layout;
  std::optional<std::string> active_pane_id;
  std::string created_at;
  static constexpr auto fields() {
    return std::tuple{req("id", &Tab::id), req("workspace_id", &Tab::workspace_id),
                      req("title", &Tab::title), opt("layout", &Tab::layout),
                      opt("active_pane_id", &Tab::active_pane_id),
                      opt("created_at", &Tab::created_at)};
  }
  bool operator==(const Tab&) const = default;
};

// ---- pane ----------------------------------------------------------------

struct PtySize {
  int cols = 80;
  int rows = 24;
  static constexpr auto fields() {
    return std::tuple{req("cols", &PtySize::cols), req("rows", &PtySize::rows)};
  }
  bool operator==(const PtySize&) const = default;
};

struct PaneLive {
  std::string state = "live";  // "live" | "exited"
  std::optional<Nullable<int>> code;  // present (maybe null) when exited
  static constexpr auto fields() {
    return std::tuple{req("state", &PaneLive::state), opt("code", &PaneLive::code)};
  }
  bool operator==(const PaneLive&) const = default;
};

struct PaneAgent {
  AgentKind kind = AgentKind::None;
  std::optional<std::string> agent_session_id;
  std::optional<std::vector<std::string>> resume_argv;
  std::optional<std::string> model;
  std::optional<std::map<std::string, std::string>> config_env;
  static constexpr auto fields() {
    return std::tuple{req("kind", &PaneAgent::kind),
                      opt("agent_session_id", &PaneAgent::agent_session_id),
                      opt("resume_argv", &PaneAgent::resume_argv), opt("model", &PaneAgent::model),
                      opt("config_env", &PaneAgent::config_env)};
  }
  bool operator==(const PaneAgent&) const = default;
};

struct DecisionOption {
  std::string id;
  std::string label;
  static constexpr auto fields() {
    return std::tuple{req("id", &DecisionOption::id), req("label", &DecisionOption::label)};
  }
  bool operator==(const DecisionOption&) const = default;
};

// A pane's pending decision (at most one); set by hook-event.
struct Decision {
  std::string id;
  std::string prompt;
  std::vector<DecisionOption> options;
  bool answerable = true;  // a stored decision without the key reads as answerable
  std::string received_at;
  static constexpr auto fields() {
    return std::tuple{req("id", &Decision::id), req("prompt", &Decision::prompt),
                      req("options", &Decision::options), opt("answerable", &Decision::answerable),
                      opt("received_at", &Decision::received_at)};
  }
  bool operator==(const Decision&) const = default;
};

struct Pane {
  std::string id;
  std::string workspace_id;
  std::string tab_id;
  std::optional<std::string> name;
  std::string title;
  std::string cwd;
  std::vector<std::string> argv;
  PtySize pty_size;
  PaneLive live;
  RestoreState restore_state = RestoreState::Live;
  PaneAgent agent;
  Lifecycle lifecycle = Lifecycle::Unknown;
  Lifecycle last_lifecycle = Lifecycle::Unknown;
  std::optional<std::string> lifecycle_since;
  std::optional<double> last_run_secs;
  Attention attention = Attention::None;
  std::optional<std::string> attention_since;
  std::optional<std::string> last_message;
  std::optional<Decision> pending_decision;
  std::string created_at;
  std::string last_activity_at;
  std::optional<std::string> last_seen_at;
  std::optional<std::string> parent_pane_id;
  std::optional<std::string> root_pane_id;
  std::optional<std::string> label;
  std::optional<std::string> relationship;
  std::optional<std::string> task_id;
  Nullable<std::int64_t> pid;
  Nullable<std::int64_t> ptyhost_pid;
  std::string process_instance;
  std::uint64_t session_generation = 0;
  std::uint64_t scrollback_len = 0;
  std::optional<Nullable<int>> exit_code;
  std::optional<Nullable<std::string>> exit_signal;
  std::optional<ExitReason> exit_reason;
  static constexpr auto fields() {
    return std::tuple{
        req("id", &Pane::id),
        req("workspace_id", &Pane::workspace_id),
        req("tab_id", &Pane::tab_id),
        opt("name", &Pane::name),
        opt("title", &Pane::title),
        opt("cwd", &Pane::cwd),
        opt("argv", &Pane::argv),
        opt("pty_size", &Pane::pty_size),
        opt("live", &Pane::live),
        opt("restore_state", &Pane::restore_state),
        opt("agent", &Pane::agent),
        opt("lifecycle", &Pane::lifecycle),
        opt("last_lifecycle", &Pane::last_lifecycle),
        opt("lifecycle_since", &Pane::lifecycle_since),
        opt("last_run_secs", &Pane::last_run_secs),
        opt("attention", &Pane::attention),
        opt("attention_since", &Pane::attention_since),
        opt("last_message", &Pane::last_message),
        opt("pending_decision", &Pane::pending_decision, "at most one; blocks clearing by seen"),
        opt("created_at", &Pane::created_at),
        opt("last_activity_at", &Pane::last_activity_at),
        opt("last_seen_at", &Pane::last_seen_at),
        opt("parent_pane_id", &Pane::parent_pane_id),
        opt("root_pane_id", &Pane::root_pane_id),
        opt("label", &Pane::label),
        opt("relationship", &Pane::relationship),
        opt("task_id", &Pane::task_id),
        opt("pid", &Pane::pid, "the pane program's pid; null when not live"),
        opt("ptyhost_pid", &Pane::ptyhost_pid, "null when no ptyhost runs"),
        opt("process_instance", &Pane::process_instance),
        opt("session_generation", &Pane::session_generation),
        opt("scrollback_len", &Pane::scrollback_len),
        opt("exit_code", &Pane::exit_code),
        opt("exit_signal", &Pane::exit_signal),
        opt("exit_reason", &Pane::exit_reason,
            "exited, signaled, or ptyhost_lost (its ptyhost died, not its program)")};
  }
  bool operator==(const Pane&) const = default;
};

}  // namespace signaltty::protocol
