// broker/permit_check.cpp: token binding and the pane role's permits.
// Runs in: broker (io thread).
#include "broker/permit_check.hpp"

#include <unordered_set>

#include "broker/pane_tokens.hpp"
#include "broker/session.hpp"
#include "broker/store.hpp"
#include "common/protocol/permits.hpp"

namespace signaltty::broker {
namespace {

using protocol::Json;
using protocol::Permit;
using protocol::PermitRule;
using protocol::Target;

Error forbidden(std::string message, std::string_view method, std::string_view own) {
  Error e{ErrorCode::Forbidden, std::move(message)};
  e.details = {{"method", std::string(method)},
               {"role", std::string(protocol::role_name(protocol::Role::Pane))},
               {"pane_id", std::string(own)}};
  return e;
}

// The pane a params field names, as an id; nullopt when it names none the
// store knows (the handler then answers NO_SUCH_PANE) or is not a string
// (the decoder answers BAD_PARAMS).
std::optional<std::string> pane_named(const Store& store, const Json& value) {
  if (!value.is_string()) return std::nullopt;
  auto pane = store.find_pane(value.get_ref<const std::string&>());
  if (!pane.ok()) return std::nullopt;
  return (*pane)->id;
}

Status check_own_pane(const Store& store, const PermitRule& rule, std::string_view own,
                      Json& params) {
  const std::string field(rule.field);
  auto it = params.find(field);
  if (it == params.end() || it->is_null()) {
    params[field] = std::string(own);
    return {};
  }
  if (auto named = pane_named(store, *it); named && *named == own) return {};
  Error e = forbidden(std::string(rule.method) + ": a pane's token reports for its own pane only",
                      rule.method, own);
  e.details["field"] = field;
  return e;
}

// Lineage, or a workspace both panes share that grants shared_control.
bool may_drive(const Store& store, std::string_view own, std::string_view target) {
  if (in_lineage(store, own, target)) return true;
  auto mine = store.find_pane(own);
  auto theirs = store.find_pane(target);
  if (!mine.ok() || !theirs.ok() || (*mine)->workspace_id != (*theirs)->workspace_id) return false;
  auto ws = store.find_workspace((*mine)->workspace_id);
  return ws.ok() && (*ws)->shared_control;
}

Status check_lineage(const Store& store, const PermitRule& rule, std::string_view own,
                     const Json& value) {
  auto target = pane_named(store, value);
  if (!target || may_drive(store, own, *target)) return {};
  Error e = forbidden(std::string(rule.method) +
                          ": a pane's token reaches only its own pane and the panes it spawned",
                      rule.method, own);
  e.details["field"] = std::string(rule.field);
  e.details["target"] = *target;
  return e;
}

Status check_lineage_all(const Store& store, const PermitRule& rule, std::string_view own,
                         const Json& value) {
  if (!value.is_string()) return {};
  const auto& key = value.get_ref<const std::string&>();
  std::vector<protocol::Pane> panes;
  if (rule.target == Target::Workspace) {
    auto ws = store.find_workspace(key);
    if (!ws.ok()) return {};
    panes = store.panes_of_workspace(**ws);
  } else {
    auto tab = store.find_tab(key);
    if (!tab.ok()) return {};
    panes = store.panes_of_tab(**tab);
  }
  for (const protocol::Pane& pane : panes) {
    if (may_drive(store, own, pane.id)) continue;
    Error e = forbidden(std::string(rule.method) + ": it holds pane " + pane.id +
                            ", outside this pane's lineage",
                        rule.method, own);
    e.details["field"] = std::string(rule.field);
    e.details["target"] = pane.id;
    return e;
  }
  return {};
}

}  // namespace

bool in_lineage(const Store& store, std::string_view own, std::string_view target) {
  std::unordered_set<std::string> seen;
  std::string at(target);
  for (;;) {
    if (at == own) return true;
    if (!seen.insert(at).second) return false;  // a cycle: no model makes one, none is trusted
    auto pane = store.find_pane(at);
    if (!pane.ok() || !(*pane)->parent_pane_id) return false;
    at = *(*pane)->parent_pane_id;
  }
}

Status authorize(const Store& store, const PaneTokens& tokens, Session& session,
                 std::string_view method, const std::optional<std::string>& token,
                 Json& params) {
  if (token) {
    auto pane = tokens.pane_of(*token);
    if (!pane) {
      Error e{ErrorCode::Forbidden, "token: not a pane token of this broker"};
      e.details = {{"field", "token"}};
      return e;
    }
    if (session.token_pane() && *session.token_pane() != *pane) {
      Error e{ErrorCode::Forbidden, "token: this connection already acts for another pane"};
      e.details = {{"field", "token"}, {"pane_id", *session.token_pane()}};
      return e;
    }
    if (!session.token_pane()) session.bind_token_pane(*pane);
  }
  if (!session.token_pane()) return {};  // role user
  const std::string own = *session.token_pane();
  if (auto pane = store.find_pane(own); !pane.ok() || (*pane)->id != own) {
    Error e{ErrorCode::Forbidden, "token: its pane " + own + " is closed"};
    e.details = {{"field", "token"}, {"pane_id", own}};
    return e;
  }

  auto rule = protocol::permit_rule(method);
  if (!rule || rule->pane == Permit::Deny)
    return forbidden(std::string(method) + ": not permitted to a pane's token (role pane)",
                     method, own);
  const Json absent;
  auto field = [&]() -> const Json& {
    auto it = params.find(std::string(rule->field));
    return it == params.end() ? absent : *it;
  };
  switch (rule->pane) {
    case Permit::Allow:
    case Permit::Deny:
      return {};
    case Permit::OwnPane:
      return check_own_pane(store, *rule, own, params);
    case Permit::Lineage:
      if (rule->target == Target::Task) return {};  // tasks: checked by their handler
      return check_lineage(store, *rule, own, field());
    case Permit::LineageAll:
      return check_lineage_all(store, *rule, own, field());
    case Permit::NoGrant: {
      const Json& grant = field();
      if (!grant.is_boolean() || !grant.get<bool>()) return {};
      Error e = forbidden(std::string(method) + ": a pane's token cannot grant " +
                              std::string(rule->field),
                          method, own);
      e.details["field"] = std::string(rule->field);
      return e;
    }
    case Permit::SpawnChild: {
      const Json& parent = field();
      if (parent.is_null()) {
        params[std::string(rule->field)] = own;
        return {};
      }
      return check_lineage(store, *rule, own, parent);
    }
  }
  return {};
}

}  // namespace signaltty::broker
