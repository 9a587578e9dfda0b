// common/protocol/methods/server.hpp: server.status, server.shutdown,
// server.schema (docs/rules.md, Methods). Runs in: every process.
#pragma once

#include "common/protocol/method_decl.hpp"

namespace signaltty::protocol {

struct ServerStatusResult {
  std::string version;
  std::string protocol;
  std::uint64_t uptime_s = 0;
  std::uint64_t workspaces = 0;
  std::uint64_t tabs = 0;
  std::uint64_t panes = 0;
  std::uint64_t live_panes = 0;
  std::uint64_t seq = 0;
  std::uint64_t journal_events = 0;
  std::uint64_t journal_syncs = 0;
  static constexpr auto fields() {
    using R = ServerStatusResult;
    return std::tuple{req("version", &R::version), req("protocol", &R::protocol),
                      req("uptime_s", &R::uptime_s), req("workspaces", &R::workspaces),
                      req("tabs", &R::tabs), req("panes", &R::panes),
                      req("live_panes", &R::live_panes),
                      req("seq", &R::seq, "highest event number issued so far"),
                      opt("journal_events", &R::journal_events, "events journaled since start"),
                      opt("journal_syncs", &R::journal_syncs,
                          "journal syncs since start (group commit shares one per group)")};
  }
};

struct ServerShutdownParams {
  bool force = false;
  static constexpr auto fields() {
    return std::tuple{opt("force", &ServerShutdownParams::force,
                          "close every pane first instead of refusing with PANES_ALIVE")};
  }
};
struct ServerShutdownResult {
  bool stopped = false;
  static constexpr auto fields() { return std::tuple{req("stopped", &ServerShutdownResult::stopped)}; }
};

// One entry of server.schema's methods[]: names first, our extension after.
// Who may call a method (common/protocol/permits.hpp): the `user` role
// always; the `pane` role as `pane` says, reading `target` when it checks one.
struct SchemaPermits {
  std::string user;
  std::string pane;
  std::optional<std::string> target;
  static constexpr auto fields() {
    using P = SchemaPermits;
    return std::tuple{req("user", &P::user, "allow"),
                      req("pane", &P::pane,
                          "allow | deny | own_pane | lineage | lineage_all | spawn_child | no_grant"),
                      opt("target", &P::target, "the params field the pane rule reads")};
  }
};

struct SchemaMethod {
  std::string name;
  std::string summary;
  bool mutating = false;
  bool connection_bound = false;
  bool single_flight = false;
  bool implemented = true;
  Json params;
  Json result;
  SchemaPermits permits;
  static constexpr auto fields() {
    using M = SchemaMethod;
    return std::tuple{req("name", &M::name), req("summary", &M::summary),
                      req("mutating", &M::mutating), req("connection_bound", &M::connection_bound),
                      req("single_flight", &M::single_flight),
                      req("implemented", &M::implemented,
                          "false: answered INTERNAL 'not implemented yet' by this build"),
                      req("params", &M::params, "JSON Schema of params"),
                      req("result", &M::result, "JSON Schema of result"),
                      req("permits", &M::permits, "who may call it (docs/security.md)")};
  }
};

struct SchemaEvent {
  std::string name;
  Json payload;
  static constexpr auto fields() {
    return std::tuple{req("name", &SchemaEvent::name),
                      req("payload", &SchemaEvent::payload, "JSON Schema of payload")};
  }
};

struct ServerSchemaResult {
  std::string protocol;
  std::string version;
  std::vector<SchemaMethod> methods;
  std::vector<std::string> events;
  std::vector<std::string> codes;
  std::vector<SchemaEvent> event_payloads;
  static constexpr auto fields() {
    using R = ServerSchemaResult;
    return std::tuple{req("protocol", &R::protocol),  req("version", &R::version),
                      req("methods", &R::methods),    req("events", &R::events),
                      req("codes", &R::codes),        req("event_payloads", &R::event_payloads)};
  }
};

using ServerStatus = MethodDecl<"server.status", "Report the broker's version, uptime and counts",
                                Empty, ServerStatusResult, kNoFlags>;
using ServerShutdown =
    MethodDecl<"server.shutdown", "Stop the broker; panes keep running unless force closes them",
               ServerShutdownParams, ServerShutdownResult, kMutating>;
using ServerSchema = MethodDecl<"server.schema", "Print the live contract: methods, events, codes",
                                Empty, ServerSchemaResult, kNoFlags>;

}  // namespace signaltty::protocol
