// common/protocol/methods/task.hpp: task.* methods, worker tasks run in their
// own worktree (docs/rules.md, Methods; not built yet).
// The task object itself is not modelled yet, so it travels as JSON inside
// typed results.
// Runs in: every process. Never: starts, merges or reports a task; the broker
// and gitworker do.
#pragma once

#include "common/protocol/method_decl.hpp"
#include "common/protocol/methods/agent.hpp"
#include "common/protocol/methods/git.hpp"
#include "common/protocol/methods/pane.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::protocol {

// Defaults and caps of task params, kept beside the params they shape.
inline constexpr double kTaskReadyTimeoutDefaultS = 30;
inline constexpr double kTaskWaitTimeoutDefaultS = 3600;
inline constexpr std::size_t kTaskObjectiveMaxBytes = 32u << 10;
inline constexpr std::size_t kTaskSummaryMaxBytes = 8u << 10;
inline constexpr std::size_t kTaskArtifactsMax = 32;

// A2A task states; terminal ones never change.
enum class TaskState { Pending, Working, InputRequired, Completed, Failed, Canceled, Rejected };
template <>
struct EnumNames<TaskState> {
  static constexpr std::array<std::pair<TaskState, std::string_view>, 7> names{
      {{TaskState::Pending, "pending"},
       {TaskState::Working, "working"},
       {TaskState::InputRequired, "input_required"},
       {TaskState::Completed, "completed"},
       {TaskState::Failed, "failed"},
       {TaskState::Canceled, "canceled"},
       {TaskState::Rejected, "rejected"}}};
};

// The outcomes a worker may report; canceled is the user's, not the worker's.
enum class TaskReportStatus { Completed, Failed, Rejected };
template <>
struct EnumNames<TaskReportStatus> {
  static constexpr std::array<std::pair<TaskReportStatus, std::string_view>, 3> names{
      {{TaskReportStatus::Completed, "completed"},
       {TaskReportStatus::Failed, "failed"},
       {TaskReportStatus::Rejected, "rejected"}}};
};

enum class TaskFinishMode { Merge, Discard };
template <>
struct EnumNames<TaskFinishMode> {
  static constexpr std::array<std::pair<TaskFinishMode, std::string_view>, 2> names{
      {{TaskFinishMode::Merge, "merge"}, {TaskFinishMode::Discard, "discard"}}};
};

inline constexpr std::string_view kTaskDoc =
    "task object: id, context_id, state, disposition, ...";

// ---- shared params and results ----------------------------------------------

struct TaskRef {
  std::string task_id;
  static constexpr auto fields() { return std::tuple{req("task_id", &TaskRef::task_id, {}, 0)}; }
};
struct TaskOneResult {
  Json task;
  static constexpr auto fields() { return std::tuple{req("task", &TaskOneResult::task, kTaskDoc)}; }
};
struct TaskManyResult {
  std::vector<Json> tasks;
  static constexpr auto fields() { return std::tuple{req("tasks", &TaskManyResult::tasks)}; }
};

// ---- task.start -------------------------------------------------------------

struct TaskContract {
  std::string objective;
  std::optional<std::string> constraints;
  std::optional<std::string> output_format;
  std::optional<std::vector<std::string>> acceptance_criteria;
  static constexpr auto fields() {
    using C = TaskContract;
    return std::tuple{req("objective", &C::objective, "1 B-32 KiB"),
                      opt("constraints", &C::constraints), opt("output_format", &C::output_format),
                      opt("acceptance_criteria", &C::acceptance_criteria)};
  }
};

struct TaskStartParams {
  std::string repo;
  TaskContract contract;
  std::optional<AgentKind> agent;
  std::optional<std::string> label;
  std::optional<std::string> parent_pane_id;
  std::optional<std::string> context_id;
  std::optional<std::string> client_request_id;
  std::optional<std::string> base_ref;
  bool fetch_first = false;
  std::optional<std::string> branch;
  std::optional<std::string> path;
  double ready_timeout_s = kTaskReadyTimeoutDefaultS;
  double stall_timeout_s = kSubmitStallTimeoutDefaultS;
  std::uint32_t submit_delay_ms = kSubmitDelayDefaultMs;
  std::optional<std::vector<std::string>> argv;
  static constexpr auto fields() {
    using P = TaskStartParams;
    return std::tuple{
        req("repo", &P::repo, "absolute path of the source repository"),
        req("contract", &P::contract), opt("agent", &P::agent, "agent or argv is required"),
        opt("label", &P::label), opt("parent_pane_id", &P::parent_pane_id, kPaneIdDoc),
        opt("context_id", &P::context_id),
        opt("client_request_id", &P::client_request_id, "a repeat returns the existing task"),
        opt("base_ref", &P::base_ref), opt("fetch_first", &P::fetch_first),
        opt("branch", &P::branch), opt("path", &P::path, "absolute worktree path"),
        opt("ready_timeout_s", &P::ready_timeout_s, "default 30"),
        opt("stall_timeout_s", &P::stall_timeout_s, "default 5"),
        opt("submit_delay_ms", &P::submit_delay_ms, "default 300"),
        opt("argv", &P::argv, "worker command (trailing CLI args)", 0)};
  }
};
struct TaskStartResult {
  Json task;
  Pane pane;
  static constexpr auto fields() {
    return std::tuple{req("task", &TaskStartResult::task, kTaskDoc),
                      req("pane", &TaskStartResult::pane, "the worker pane")};
  }
};

// ---- task.list / wait -------------------------------------------------------

struct TaskListParams {
  std::optional<std::string> context_id;
  std::optional<TaskState> state;
  std::optional<std::uint32_t> limit;
  static constexpr auto fields() {
    using P = TaskListParams;
    return std::tuple{opt("context_id", &P::context_id), opt("state", &P::state),
                      opt("limit", &P::limit)};
  }
};

struct TaskWaitParams {
  std::optional<std::string> task_id;
  std::optional<std::string> context_id;
  std::optional<UntilSpec> until;
  double timeout_s = kTaskWaitTimeoutDefaultS;
  static constexpr auto fields() {
    using P = TaskWaitParams;
    return std::tuple{opt("task_id", &P::task_id, "exactly one of task_id, context_id", 0),
                      opt("context_id", &P::context_id),
                      opt("until", &P::until, "task states, terminal, settled (default)"),
                      opt("timeout_s", &P::timeout_s, "default 3600")};
  }
};
struct TaskWaitResult {
  bool satisfied = true;
  std::vector<Json> tasks;
  static constexpr auto fields() {
    return std::tuple{req("satisfied", &TaskWaitResult::satisfied),
                      req("tasks", &TaskWaitResult::tasks)};
  }
};

// ---- task.report ------------------------------------------------------------

struct TaskArtifact {
  std::string name;
  std::string path;
  std::optional<std::string> version;
  static constexpr auto fields() {
    return std::tuple{req("name", &TaskArtifact::name), req("path", &TaskArtifact::path),
                      opt("version", &TaskArtifact::version)};
  }
};

struct TaskReportParams {
  std::optional<std::string> task_id;
  std::optional<std::string> pane_id;
  TaskReportStatus status = TaskReportStatus::Completed;
  std::string summary;
  std::optional<std::vector<TaskArtifact>> artifacts;
  std::optional<Json> evidence;
  static constexpr auto fields() {
    using P = TaskReportParams;
    return std::tuple{opt("task_id", &P::task_id, "else the task owning pane_id"),
                      opt("pane_id", &P::pane_id, kPaneIdDoc), req("status", &P::status),
                      req("summary", &P::summary, "1 B-8 KiB"),
                      opt("artifacts", &P::artifacts, "at most 32"),
                      opt("evidence", &P::evidence, "free JSON")};
  }
};

// ---- task.diff / file_diff --------------------------------------------------

struct MergePreview {
  std::string target;
  bool clean = false;
  std::vector<std::string> conflicted;
  static constexpr auto fields() {
    return std::tuple{req("target", &MergePreview::target), req("clean", &MergePreview::clean),
                      req("conflicted", &MergePreview::conflicted)};
  }
};
struct TaskDiffResult {
  std::string task_id;
  std::string base_sha;
  std::string branch;
  std::vector<DiffFile> files;
  std::vector<DiffDir> dirs;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  Nullable<MergePreview> merge_preview;
  static constexpr auto fields() {
    using R = TaskDiffResult;
    return std::tuple{req("task_id", &R::task_id), req("base_sha", &R::base_sha),
                      req("branch", &R::branch), req("files", &R::files), req("dirs", &R::dirs),
                      req("added", &R::added), req("removed", &R::removed),
                      opt("merge_preview", &R::merge_preview, "null when git cannot tell")};
  }
};

struct TaskFileDiffParams {
  std::string task_id;
  std::string path;
  static constexpr auto fields() {
    return std::tuple{req("task_id", &TaskFileDiffParams::task_id, {}, 0),
                      req("path", &TaskFileDiffParams::path, "one literal filename", 1)};
  }
};
struct TaskFileDiffResult {
  std::string task_id;
  std::string path;
  bool untracked = false;
  Json content;
  static constexpr auto fields() {
    using R = TaskFileDiffResult;
    return std::tuple{req("task_id", &R::task_id), req("path", &R::path),
                      req("untracked", &R::untracked),
                      req("content", &R::content, kFileDiffContentDoc)};
  }
};

// ---- task.finish / pr_open / pr_refresh -------------------------------------

struct TaskFinishParams {
  std::string task_id;
  TaskFinishMode mode = TaskFinishMode::Discard;
  std::optional<std::string> target_ref;
  std::optional<bool> delete_branch;
  bool ignore_dirty = false;
  static constexpr auto fields() {
    using P = TaskFinishParams;
    return std::tuple{req("task_id", &P::task_id, {}, 0), req("mode", &P::mode),
                      opt("target_ref", &P::target_ref, "default the recorded target branch"),
                      opt("delete_branch", &P::delete_branch,
                          "default: merge deletes, discard keeps"),
                      opt("ignore_dirty", &P::ignore_dirty)};
  }
};
struct TaskMerge {
  std::string target;
  std::string sha;
  static constexpr auto fields() {
    return std::tuple{req("target", &TaskMerge::target), req("sha", &TaskMerge::sha)};
  }
};
struct TaskFinishResult {
  Json task;
  std::optional<TaskMerge> merge;
  std::optional<std::string> cleanup_error;
  static constexpr auto fields() {
    using R = TaskFinishResult;
    return std::tuple{req("task", &R::task, kTaskDoc), opt("merge", &R::merge),
                      opt("cleanup_error", &R::cleanup_error)};
  }
};

struct TaskPrOpenParams {
  std::string task_id;
  std::optional<std::string> title;
  std::optional<std::string> body;
  bool draft = false;
  static constexpr auto fields() {
    using P = TaskPrOpenParams;
    return std::tuple{req("task_id", &P::task_id, {}, 0), opt("title", &P::title),
                      opt("body", &P::body), opt("draft", &P::draft)};
  }
};

struct TaskPrRefreshParams {
  std::optional<std::string> task_id;
  static constexpr auto fields() {
    return std::tuple{opt("task_id", &TaskPrRefreshParams::task_id, "default every open PR", 0)};
  }
};

// ---- the declarations -------------------------------------------------------

using TaskStart = MethodDecl<"task.start", "Start a worker agent on a new worktree",
                             TaskStartParams, TaskStartResult, kMutating, Availability::Planned>;
using TaskGet = MethodDecl<"task.get", "Show a task", TaskRef, TaskOneResult, kNoFlags,
                           Availability::Planned>;
using TaskList = MethodDecl<"task.list", "List tasks", TaskListParams, TaskManyResult, kNoFlags,
                            Availability::Planned>;
using TaskWait =
    MethodDecl<"task.wait", "Wait for a task or a whole context to reach a state",
               TaskWaitParams, TaskWaitResult, kConnectionBound | kSingleFlight,
               Availability::Planned>;
using TaskCancel = MethodDecl<"task.cancel", "Cancel a task and close its worker", TaskRef,
                              TaskOneResult, kMutating, Availability::Planned>;
using TaskReport = MethodDecl<"task.report", "Report a task's outcome from its worker",
                              TaskReportParams, TaskOneResult, kMutating, Availability::Planned>;
using TaskDiff = MethodDecl<"task.diff", "Summarise a task's changes and preview the merge",
                            TaskRef, TaskDiffResult, kNoFlags, Availability::Planned>;
using TaskFileDiff = MethodDecl<"task.file_diff", "Show one file's changes in a task",
                                TaskFileDiffParams, TaskFileDiffResult, kNoFlags,
                                Availability::Planned>;
using TaskFinish = MethodDecl<"task.finish", "Merge or discard a task's work",
                              TaskFinishParams, TaskFinishResult, kMutating, Availability::Planned>;
using TaskPrOpen = MethodDecl<"task.pr_open", "Push a task's branch and open a pull request",
                              TaskPrOpenParams, TaskOneResult, kMutating, Availability::Planned>;
using TaskPrRefresh =
    MethodDecl<"task.pr_refresh", "Refresh the pull request state of one or every task",
               TaskPrRefreshParams, TaskManyResult, kMutating, Availability::Planned>;

}  // namespace signaltty::protocol
