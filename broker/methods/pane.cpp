// broker/methods/pane.cpp: pane.spawn, pane.split, pane.get, pane.rename,
// pane.swap, pane.move, pane.close (docs/rules.md:
// Spawn, Pane, Tab and layout). A launch is validated, then the ptyhost is
// started, and only then is the pane published: a failed launch leaves no
// tab or pane behind.
// Runs in: broker (io thread). Never: starts a process itself (the
// supervisor does, through the launcher).
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "broker/agents/detect.hpp"
#include "broker/child_env.hpp"
#include "broker/pane_tokens.hpp"
#include "broker/detector.hpp"
#include "broker/event_pipeline.hpp"
#include "broker/handle.hpp"
#include "broker/git/git_service.hpp"
#include "broker/handlers.hpp"
#include "broker/pane_resume.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/ids.hpp"
#include "common/limits.hpp"


namespace signaltty::broker {
namespace {

// docs/rules.md "Agent detection and resume": a hint, else the program;
// a program the builtin list does not know may be named by a manifest's
// `binaries` (detection overlays).
p::AgentKind launch_kind(const Services& services, const std::vector<std::string>& argv,
                         const std::optional<std::string>& hint) {
  const p::AgentKind kind = agents::detect_agent_kind(argv, hint);
  if (hint || kind != p::AgentKind::Generic) return kind;
  return services.detector.overlay_kind(agents::program_name(argv)).value_or(kind);
}

// A pane about to be launched: its record and what its ptyhost is told.
struct PaneDraft {
  p::Pane pane;
  LaunchSpec spec;
  std::optional<p::Integration> integration;
};

// What pane.spawn and pane.split share.
struct DraftInput {
  std::string workspace_id;
  std::vector<std::string> argv;
  std::string cwd;
  std::map<std::string, std::string> env;
  p::PtySize size;
  std::optional<std::string> parent_pane_id;
  std::optional<std::string> task_id;
};

Status check_directory(const std::string& dir) {
  if (dir.empty() || dir.front() != '/') return field_error("cwd", "must be an absolute path");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return field_error("cwd", "'" + dir + "' is not a directory");
  return {};
}

// docs/rules.md "Spawn" 2: a relative program path with '/' is anchored at cwd.
std::string anchored_program(const std::string& program, const std::string& cwd) {
  if (program.empty() || program.front() == '/' || program.find('/') == std::string::npos)
    return program;
  std::string_view rest = program;
  while (rest.substr(0, 2) == "./") rest.remove_prefix(2);
  return cwd + (cwd.back() == '/' ? "" : "/") + std::string(rest);
}

std::string initial_title(const std::string& program) {
  const std::string base = program.substr(program.find_last_of('/') + 1);
  auto clean = sanitize_display_name(base.substr(0, limits::kNameMaxBytes), "title");
  return clean.ok() ? *clean : std::string("shell");
}

p::PtySize clamped(std::optional<int> cols, std::optional<int> rows) {
  return clamp_pty_size(cols.value_or(limits::kPaneColsDefault),
                        rows.value_or(limits::kPaneRowsDefault));
}

// docs/rules.md "Agent detection and resume": the provider config dirs of
// the spawn env (requested first, else the broker's), absolute against cwd.
std::map<std::string, std::string> config_env_of(const std::map<std::string, std::string>& requested,
                                                 const std::string& cwd) {
  std::map<std::string, std::string> out;
  for (const char* key : {"CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCODE_CONFIG_DIR"}) {
    std::string value;
    if (auto it = requested.find(key); it != requested.end()) value = it->second;
    else if (const char* inherited = std::getenv(key)) value = inherited;
    if (value.empty()) continue;
    if (value.front() != '/') value = cwd + (cwd.back() == '/' ? "" : "/") + value;
    out.emplace(key, std::move(value));
  }
  return out;
}

Result<PaneDraft> draft_pane(const Services& services, DraftInput in) {
  if (in.argv.empty() || in.argv.front().empty()) return field_error("argv", "must not be empty");
  SIGNALTTY_RETURN_IF_ERROR(check_directory(in.cwd));
  if (services.git.is_reserved(git::canonical(in.cwd).value_or(in.cwd)))
    return field_error("cwd", "'" + in.cwd + "' is a checkout being created or removed");
  in.argv.front() = anchored_program(in.argv.front(), in.cwd);
  PaneDraft d;
  p::Pane& pane = d.pane;
  pane.id = new_id("pane");
  pane.workspace_id = in.workspace_id;
  pane.title = initial_title(in.argv.front());
  pane.cwd = in.cwd;
  pane.argv = in.argv;
  pane.pty_size = in.size;
  pane.created_at = now_rfc3339();
  pane.last_activity_at = pane.created_at;
  pane.process_instance = new_id("proc");
  pane.task_id = in.task_id;
  pane.agent.kind = launch_kind(services, in.argv, std::nullopt);
  if (auto config = config_env_of(in.env, in.cwd); !config.empty()) pane.agent.config_env = config;
  // Before the program starts: a directly launched agent reports its hooks.
  d.integration = launch_integration(in.argv, in.env, in.cwd);
  d.spec = LaunchSpec{pane.id, in.argv,
                      child_environment({broker_environment(), std::move(in.env), pane.id,
                                         services.config.socket_path, in.parent_pane_id,
                                         in.task_id, services.tokens.token_for(pane.id)}),
                      in.cwd, in.size, launch_probe(in.argv), p::Json()};
  return d;
}

// Lineage (docs/rules.md, Pane): root = the parent's root, else the parent.
// `pane` becomes `parent`'s child: its lineage (parent, root, relationship).
void set_parent(p::Pane& pane, const p::Pane& parent, p::PaneRelationship relationship) {
  pane.parent_pane_id = parent.id;
  pane.root_pane_id = parent.root_pane_id.value_or(parent.id);
  pane.relationship = p::encode(relationship).get<std::string>();
}

Status apply_lineage(const Store& store, const p::PaneSpawnParams& params, p::Pane& pane) {
  if (params.label && code_point_count(*params.label) > p::kPaneLabelMaxChars)
    return field_error("label", "at most " + std::to_string(p::kPaneLabelMaxChars) + " characters");
  pane.label = params.label;
  if (!params.parent_pane_id) return {};
  SIGNALTTY_TRY(const p::Pane* parent, store.find_pane(*params.parent_pane_id));
  set_parent(pane, *parent, params.relationship.value_or(p::PaneRelationship::Subagent));
  return {};
}

// Publishes a launched pane; a pane that cannot be published has its
// ptyhost closed.
void publish(Services& services, Txn& txn, Result<Launched> launched, p::Pane pane,
             const std::optional<std::string>& split_of, p::SplitDir dir,
             std::optional<p::Integration> integration, const Reply<p::PaneLaunchResult>& reply) {
  if (!launched.ok()) return reply(std::move(launched).error());
  pane.pid = launched->child_pid;
  pane.ptyhost_pid = launched->ptyhost_pid;
  const std::string id = pane.id;
  auto added = services.store.add_pane(txn, std::move(pane), split_of, dir);
  if (!added.ok()) {
    services.supervisor.discard(id);
    return reply(std::move(added).error());
  }
  services.supervisor.push_meta(added->id);
  reply(p::PaneLaunchResult{*added, after_probe(std::move(integration), launched->probe_passed)});
  // The record must survive a crash right after the launch.
  services.pipeline.after_durable([&services] {
    services.snapshots.save_now_or_retry();
  });
}

// Starts the draft's ptyhost, handing it the pane's record with the spawn
// (a broker killed before publishing leaves the next one the pane to put
// back, decision 2), then publishes the pane in its tab (a new "agents" tab
// when `tab_id` is empty) and saves the snapshot at once. A
// close of the workspace or tab that starts meanwhile waits for the
// publication (store_launches.hpp); one already under way refuses the launch.
void launch_and_publish(Ctx& ctx, PaneDraft draft, std::string tab_id,
                        std::optional<std::string> split_of, p::SplitDir dir,
                        Reply<p::PaneLaunchResult> reply) {
  Services& services = ctx.services;
  Txn& txn = ctx.txn;
  auto ticket = services.store.launches().begin_launch(draft.pane.workspace_id, tab_id);
  if (!ticket.ok()) return reply(std::move(ticket).error());
  draft.pane.tab_id = std::move(tab_id);
  draft.spec.meta = p::encode(draft.pane);
  services.supervisor.launch(
      std::move(draft.spec),
      [&services, &txn, pane = std::move(draft.pane), split_of, dir, ticket = *ticket,
       integration = std::move(draft.integration),
       reply = std::move(reply)](Result<Launched> launched) mutable {
        publish(services, txn, std::move(launched), std::move(pane), split_of, dir,
                std::move(integration), reply);
        LaunchGate::end_launch(ticket);
      });
}

}  // namespace

void handle(p::PaneSpawn, Ctx& ctx, p::PaneSpawnParams&& params,
            Reply<p::PaneLaunchResult> reply) {
  const Store& store = ctx.services.store;
  auto tab = store.spawn_target_tab(params.workspace_id, params.tab_id);
  if (!tab.ok()) return reply(std::move(tab).error());
  const p::Workspace* ws = *store.find_workspace(params.workspace_id);
  DraftInput in{ws->id, std::move(params.argv), params.cwd.value_or(ws->cwd),
                params.env.value_or(std::map<std::string, std::string>{}),
                clamped(params.cols, params.rows), std::nullopt, params.task_id};
  if (params.parent_pane_id) {
    auto parent = store.find_pane(*params.parent_pane_id);
    if (!parent.ok()) return reply(std::move(parent).error());
    in.parent_pane_id = (*parent)->id;
  }
  auto draft = draft_pane(ctx.services, std::move(in));
  if (!draft.ok()) return reply(std::move(draft).error());
  if (Status s = apply_lineage(store, params, draft->pane); !s.ok()) return reply(s.error());
  draft->pane.agent.kind = launch_kind(ctx.services, draft->pane.argv, params.agent_hint);
  launch_and_publish(ctx, std::move(draft).value(), tab->value_or(""), std::nullopt,
                     p::SplitDir::Right, std::move(reply));
}

void handle(p::PaneSplit, Ctx& ctx, p::PaneSplitParams&& params,
            Reply<p::PaneLaunchResult> reply) {
  auto source = ctx.services.store.find_pane(params.pane_id);
  if (!source.ok()) return reply(std::move(source).error());
  const char* shell = std::getenv("SHELL");
  std::vector<std::string> argv = params.argv.value_or(
      std::vector<std::string>{shell != nullptr && *shell != '\0' ? shell : "sh"});
  DraftInput in{(*source)->workspace_id, std::move(argv), params.cwd.value_or((*source)->cwd),
                {}, (*source)->pty_size, std::nullopt, std::nullopt};
  // Split through a pane's token: the new pane is that pane's child, so
  // its lineage reaches it (docs/security.md, "Roles on the socket").
  const p::Pane* parent = nullptr;
  if (const auto& own = ctx.session->token_pane()) {
    auto found = ctx.services.store.find_pane(*own);
    if (!found.ok()) return reply(std::move(found).error());
    parent = *found;
    in.parent_pane_id = parent->id;
  }
  auto draft = draft_pane(ctx.services, std::move(in));
  if (!draft.ok()) return reply(std::move(draft).error());
  if (parent) set_parent(draft->pane, *parent, p::PaneRelationship::Subagent);
  launch_and_publish(ctx, std::move(draft).value(), (*source)->tab_id, (*source)->id,
                     params.direction, std::move(reply));
}

// docs/rules.md "Resume" (broker/pane_resume.hpp).
void handle(p::PaneResume, Ctx& ctx, p::PaneRef&& params, Reply<p::PaneLaunchResult> reply) {
  auto found = ctx.services.store.find_pane(params.pane_id);
  if (!found.ok()) return reply(std::move(found).error());
  resume_pane_process(ctx.services, ctx.txn, (*found)->id, std::move(reply));
}

// The ptyhost is asked first so scrollback_len is current.
void handle(p::PaneGet, Ctx& ctx, p::PaneRef&& params, Reply<p::PaneGetResult> reply) {
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  Services& services = ctx.services;
  const std::string id = (*pane)->id;
  services.supervisor.read(id, ReadSpec{p::ReadMode::Screen, 1, true, 0},
                           [&services, id, reply = std::move(reply)](auto) {
                             auto now = services.store.find_pane(id);
                             if (!now.ok()) return reply(std::move(now).error());
                             auto baseline = services.store.wait_baseline(id);
                             if (!baseline.ok()) return reply(std::move(baseline).error());
                             reply(p::PaneGetResult{**now, std::move(baseline).value()});
                           });
}

Result<p::PaneResult> handle(p::PaneRename, Ctx& ctx, p::PaneRenameParams&& params) {
  SIGNALTTY_TRY(p::Pane pane, ctx.services.store.rename_pane(ctx.txn, params.pane_id, params.name));
  ctx.services.supervisor.push_meta(pane.id);
  return p::PaneResult{std::move(pane)};
}

Result<p::TabsResult> handle(p::PaneSwap, Ctx& ctx, p::PaneSwapParams&& params) {
  SIGNALTTY_TRY(std::vector<p::Tab> tabs,
                ctx.services.store.swap_panes(ctx.txn, params.pane_id, params.target_pane_id));
  for (const p::Tab& tab : tabs)
    for (const p::Pane& pane : ctx.services.store.panes_of_tab(tab))
      ctx.services.supervisor.push_meta(pane.id);
  return p::TabsResult{std::move(tabs)};
}

Result<p::TabsResult> handle(p::PaneMove, Ctx& ctx, p::PaneMoveParams&& params) {
  SIGNALTTY_TRY(std::vector<p::Tab> tabs,
                ctx.services.store.move_pane(ctx.txn, params.pane_id, params.target_pane_id,
                                             params.direction));
  if (auto moved = ctx.services.store.find_pane(params.pane_id); moved.ok())
    ctx.services.supervisor.push_meta((*moved)->id);
  return p::TabsResult{std::move(tabs)};
}

// docs/rules.md, decision 17: the reply comes once the pane is reaped and
// removed.
void handle(p::PaneClose, Ctx& ctx, p::PaneCloseParams&& params, Reply<p::ClosedResult> reply) {
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  const int signo = params.signal ? params.signal->number : SIGTERM;
  ctx.services.supervisor.close((*pane)->id, signo, [reply = std::move(reply)](Status closed) {
    if (!closed.ok()) return reply(std::move(closed).error());
    reply(p::ClosedResult{true});
  });
}

}  // namespace signaltty::broker
