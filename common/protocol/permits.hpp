// common/protocol/permits.hpp: who may call what on the socket, as one
// table of (method, role) in the manner of a privilege-separation monitor:
// the router checks every request against it before the method's handler
// runs, and server.schema prints it (docs/security.md, "Roles on the
// socket").
// Runs in: broker (router, server.schema), CLI (schema output).
// Never: holds a method the declarations do not, or leaves one out (a unit
// test walks AllMethods against it).
#pragma once

#include <optional>
#include <string_view>

namespace signaltty::protocol {

// `user`: a connection that presented no token (the person at the
// keyboard, their scripts). `pane`: one that presented a pane's
// SIGNALTTY_TOKEN; it acts for that pane only.
enum class Role { User, Pane };

// What the `pane` role may do with a method (the `user` role may do all).
enum class Permit {
  Allow,       // as is
  Deny,        // FORBIDDEN
  OwnPane,     // `target` is bound to the token's pane: filled in when absent,
               // FORBIDDEN when it names another pane
  Lineage,     // `target` (a pane) must be the token's pane or one it
               // spawned, directly or through its children (parent_pane_id),
               // or share a `shared_control` workspace with it
  LineageAll,  // every pane in `target` (a workspace or a tab) must pass Lineage
  SpawnChild,  // a new pane: its parent_pane_id defaults to the token's pane and,
               // when given, must pass Lineage
  NoGrant,     // as Allow, but `target` (a grant such as shared_control) may not be set
};

// The params field a rule reads: a pane, workspace or tab reference.
enum class Target { None, Pane, ParentPane, Workspace, Tab, Task, Grant };

struct PermitRule {
  std::string_view method;
  Permit pane;
  Target target = Target::None;
  std::string_view field;  // the params key `target` is read from
};

// Every method, in the order of AllMethods' modules. A method missing here
// is a test failure (tests/common/permits_test.cpp), not a silent Allow.
inline constexpr PermitRule kPermits[] = {
    // agent.hpp
    {"decision.answer", Permit::Deny},  // an agent never approves a prompt, its own or another's
    {"notify", Permit::OwnPane, Target::Pane, "pane_id"},
    {"hook-event", Permit::OwnPane, Target::Pane, "pane_id"},
    {"report-session", Permit::OwnPane, Target::Pane, "pane_id"},
    {"wait", Permit::Allow},
    {"focus.next_unread", Permit::Allow},
    {"attention.pending", Permit::Allow},
    {"agents.list", Permit::Allow},
    {"agents.reload", Permit::Allow},
    // git.hpp
    {"workspace.refresh_git", Permit::Allow},
    {"workspace.diff", Permit::Allow},
    {"workspace.file_diff", Permit::Allow},
    {"worktree.list", Permit::Allow},
    {"worktree.create", Permit::Allow},
    {"worktree.open", Permit::Allow},
    {"worktree.remove", Permit::Allow},
    // pane.hpp
    {"pane.spawn", Permit::SpawnChild, Target::ParentPane, "parent_pane_id"},
    {"pane.split", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.rename", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.swap", Permit::Allow},  // layout only: no program is touched
    {"pane.move", Permit::Allow},
    {"pane.get", Permit::Allow},
    {"pane.input", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.resize", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.signal", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.read", Permit::Allow},
    {"pane.wait_for_output", Permit::Allow},
    {"pane.clear", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.attach", Permit::Lineage, Target::Pane, "pane_id"},  // an attach can type
    {"pane.detach", Permit::Allow},
    {"pane.close", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.resume", Permit::Lineage, Target::Pane, "pane_id"},
    {"pane.mark_seen", Permit::Lineage, Target::Pane, "pane_id"},  // would hide the user's unread
    {"pane.explain", Permit::Allow},
    {"pane.submit", Permit::Lineage, Target::Pane, "pane_id"},
    // plugin.hpp
    {"plugin.list", Permit::Allow},
    {"plugin.reload", Permit::Allow},
    // server.hpp
    {"server.status", Permit::Allow},
    {"server.shutdown", Permit::Deny},  // force would kill every pane
    {"server.schema", Permit::Allow},
    // subscribe.hpp
    {"subscribe", Permit::Allow},
    // task.hpp
    {"task.start", Permit::Allow},
    {"task.get", Permit::Allow},
    {"task.list", Permit::Allow},
    {"task.wait", Permit::Allow},
    {"task.cancel", Permit::Lineage, Target::Task, "task_id"},
    {"task.report", Permit::OwnPane, Target::Pane, "pane_id"},
    {"task.diff", Permit::Allow},
    {"task.file_diff", Permit::Allow},
    {"task.finish", Permit::Lineage, Target::Task, "task_id"},
    {"task.pr_open", Permit::Lineage, Target::Task, "task_id"},
    {"task.pr_refresh", Permit::Allow},
    // workspace.hpp
    {"workspace.create", Permit::NoGrant, Target::Grant, "shared_control"},
    {"workspace.list", Permit::Allow},
    {"workspace.get", Permit::Allow},
    {"workspace.rename", Permit::Allow},
    {"workspace.close", Permit::LineageAll, Target::Workspace, "workspace_id"},
    {"tab.create", Permit::Allow},
    {"tab.close", Permit::LineageAll, Target::Tab, "tab_id"},
    {"tab.set_layout", Permit::Allow},
    {"tab.set_ratio", Permit::Allow},
};

// The rule of `method`; nullopt for a name the table does not hold.
constexpr std::optional<PermitRule> permit_rule(std::string_view method) {
  for (const PermitRule& rule : kPermits)
    if (rule.method == method) return rule;
  return std::nullopt;
}

// What `role` may do with `method`: the user role is always Allow.
constexpr Permit permit_for(std::string_view method, Role role) {
  if (role == Role::User) return Permit::Allow;
  auto rule = permit_rule(method);
  return rule ? rule->pane : Permit::Deny;
}

constexpr std::string_view permit_name(Permit permit) {
  switch (permit) {
    case Permit::Allow: return "allow";
    case Permit::Deny: return "deny";
    case Permit::OwnPane: return "own_pane";
    case Permit::Lineage: return "lineage";
    case Permit::LineageAll: return "lineage_all";
    case Permit::SpawnChild: return "spawn_child";
    case Permit::NoGrant: return "no_grant";
  }
  return "deny";
}

constexpr std::string_view role_name(Role role) { return role == Role::User ? "user" : "pane"; }

}  // namespace signaltty::protocol
