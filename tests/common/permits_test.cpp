// tests/common/permits_test.cpp: the (method, role) table of
// common/protocol/permits.hpp holds every declared method exactly once, no
// other name, and the pane role's refusals the security model promises
// (docs/security.md, "Roles on the socket"); server.schema prints it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/protocol/methods.hpp"
#include "common/protocol/permits.hpp"
#include "common/protocol/schema.hpp"

namespace signaltty::protocol {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::set<std::string> declared_methods() {
  std::set<std::string> out;
  for_each_type<AllMethods>([&]<class M>() { out.emplace(M::name); });
  return out;
}

TEST(Permits, EveryDeclaredMethodHasExactlyOneRuleAndNoRuleNamesAnUnknownMethod) {
  const std::set<std::string> declared = declared_methods();
  std::set<std::string> ruled;
  for (const PermitRule& rule : kPermits) {
    EXPECT_TRUE(ruled.emplace(rule.method).second) << "two rules for " << rule.method;
    EXPECT_TRUE(declared.count(std::string(rule.method))) << "a rule for no method: " << rule.method;
  }
  for (const std::string& method : declared) EXPECT_TRUE(ruled.count(method)) << "no rule: " << method;
}

TEST(Permits, EveryRuleThatChecksATargetNamesAParamsFieldOfItsMethod) {
  for_each_type<AllMethods>([&]<class M>() {
    auto rule = permit_rule(M::name);
    ASSERT_TRUE(rule.has_value());
    const bool targeted = rule->pane != Permit::Allow && rule->pane != Permit::Deny;
    EXPECT_EQ(targeted, !rule->field.empty()) << M::name;
    EXPECT_EQ(targeted, rule->target != Target::None) << M::name;
    if (!targeted) return;
    const Json schema = schema_of<typename M::Params>();
    EXPECT_TRUE(schema["properties"].contains(std::string(rule->field)))
        << M::name << " has no params field " << rule->field;
  });
}

TEST(Permits, TheUserRoleMayCallEverything) {
  for (const PermitRule& rule : kPermits)
    EXPECT_EQ(permit_for(rule.method, Role::User), Permit::Allow) << rule.method;
  EXPECT_EQ(permit_for("no.such.method", Role::User), Permit::Allow);  // UNKNOWN_METHOD decides
}

TEST(Permits, ThePaneRolesPromisesHold) {
  // An agent never approves a prompt, nor stops the supervisor.
  EXPECT_EQ(permit_for("decision.answer", Role::Pane), Permit::Deny);
  EXPECT_EQ(permit_for("server.shutdown", Role::Pane), Permit::Deny);
  // Reports are bound to the token's pane.
  for (const char* m : {"hook-event", "report-session", "notify", "task.report"})
    EXPECT_EQ(permit_for(m, Role::Pane), Permit::OwnPane) << m;
  // Whatever types into, signals, ends or hides another pane: lineage only.
  for (const char* m : {"pane.input", "pane.submit", "pane.signal", "pane.attach", "pane.close",
                        "pane.resize", "pane.clear", "pane.mark_seen", "pane.resume"})
    EXPECT_EQ(permit_for(m, Role::Pane), Permit::Lineage) << m;
  EXPECT_EQ(permit_for("workspace.close", Role::Pane), Permit::LineageAll);
  EXPECT_EQ(permit_for("tab.close", Role::Pane), Permit::LineageAll);
  EXPECT_EQ(permit_for("pane.spawn", Role::Pane), Permit::SpawnChild);
  // A pane cannot grant itself more.
  EXPECT_EQ(permit_for("workspace.create", Role::Pane), Permit::NoGrant);
  // A name the table does not hold is refused to a pane, not allowed.
  EXPECT_EQ(permit_for("no.such.method", Role::Pane), Permit::Deny);
}

TEST(Permits, ServerSchemaPrintsTheTable) {
  const Json schema = encode(build_schema());
  std::size_t seen = 0;
  for (const Json& method : schema["methods"]) {
    const std::string name = method["name"];
    auto rule = permit_rule(name);
    ASSERT_TRUE(rule.has_value()) << name;
    EXPECT_EQ(method["permits"]["user"], "allow") << name;
    EXPECT_EQ(method["permits"]["pane"], std::string(permit_name(rule->pane))) << name;
    if (rule->field.empty())
      EXPECT_FALSE(method["permits"].contains("target")) << name;
    else
      EXPECT_EQ(method["permits"]["target"], std::string(rule->field)) << name;
    ++seen;
  }
  EXPECT_EQ(seen, std::size(kPermits));
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::protocol
