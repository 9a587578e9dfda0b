// common/protocol/schema.cpp: server.schema from the declarations.
// Runs in: broker, CLI.
#include "common/protocol/schema.hpp"

#include "common/protocol/events.hpp"
#include "common/protocol/permits.hpp"

namespace signaltty::protocol {

ServerSchemaResult build_schema() {
  ServerSchemaResult out;
  out.protocol = std::string(kProtocol);
  out.version = std::string(kVersion);
  for_each_type<AllMethods>([&]<class M>() {
    SchemaMethod m;
    m.name = std::string(M::name);
    m.summary = std::string(M::summary);
    m.mutating = (M::flags & kMutating) != 0;
    m.connection_bound = (M::flags & kConnectionBound) != 0;
    m.single_flight = (M::flags & kSingleFlight) != 0;
    m.implemented = M::availability == Availability::Implemented;
    m.params = schema_of<typename M::Params>();
    m.result = schema_of<typename M::Result>();
    m.permits.user = std::string(permit_name(permit_for(M::name, Role::User)));
    m.permits.pane = std::string(permit_name(permit_for(M::name, Role::Pane)));
    if (auto rule = permit_rule(M::name); rule && !rule->field.empty())
      m.permits.target = std::string(rule->field);
    out.methods.push_back(std::move(m));
  });
  for_each_type<AllEvents>([&]<class E>() {
    out.events.emplace_back(E::name);
    out.event_payloads.push_back({std::string(E::name), schema_of<typename E::PayloadType>()});
  });
  for (const auto& entry : kErrorCodeNames) out.codes.emplace_back(entry.second);
  return out;
}

}  // namespace signaltty::protocol
