// cli/command_table.hpp: turns the method table (server.schema's methods[],
// built locally by protocol::build_schema()) into command specs: the words
// that name each method on the command line and one parameter spec per
// params field, typed from the field's JSON Schema.
// Runs in: CLI. Never: names a method itself; every generated command comes
// from the table, and hand-written commands live elsewhere (events_command).
//
//   workspace.create → signaltty workspace create [--name N] [--cwd DIR]
//   tab.set_layout   → signaltty tab set-layout TAB_ID LAYOUT_JSON
//   subscribe        → signaltty subscribe
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/methods.hpp"

namespace signaltty::cli {

// How a params field is spelled on the command line.
enum class ParamKind {
  String,      // --name VALUE
  Integer,     // --name N (checked as an integer)
  Number,      // --name X (checked as a number)
  Boolean,     // --name (a flag; --name=false sends false)
  StringList,  // --name A --name B (repeatable), or trailing positionals
  JsonArray,   // --name '[0,1]' (also "0,1": brackets are added)
  JsonValue,   // --name '{"type":"pane",...}': JSON text passed through
};

struct ParamSpec {
  std::string field;  // the wire name, e.g. "workspace_id"
  ParamKind kind = ParamKind::String;
  int positional = -1;  // x-positional slot, -1 for an --option
  bool required = false;
  std::string doc;      // description, with the allowed values when known
};

struct CommandSpec {
  std::string method;              // "tab.set_layout"
  std::vector<std::string> words;  // {"tab", "set-layout"}
  std::string summary;
  bool implemented = true;
  std::vector<ParamSpec> params;  // positionals first, in slot order
};

// A method that also gets a top-level command of its own.
struct Shortcut {
  std::string_view method;
  std::string_view word;
};
inline constexpr Shortcut kShortcuts[] = {
    {protocol::ServerStatus::name, "status"},
    {protocol::ServerSchema::name, "schema"},
    {protocol::ServerShutdown::name, "shutdown"},
};

// "tab.set_layout" → {"tab", "set-layout"}; "subscribe" → {"subscribe"}.
std::vector<std::string> command_words(std::string_view method);
// "workspace_id" → "workspace-id".
std::string dashed(std::string_view name);
// The kind a field's JSON Schema asks for.
ParamKind param_kind(const protocol::Json& field_schema);
// One spec per method of the table, in table order.
std::vector<CommandSpec> command_specs(const std::vector<protocol::SchemaMethod>& methods);

}  // namespace signaltty::cli
