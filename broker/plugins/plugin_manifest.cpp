// broker/plugins/plugin_manifest.cpp: parses and validates plugin.toml
// (toml++) and matches event names against a hook's globs.
// Runs in: broker. Never: lets a toml++ exception escape a parse, accepts a
// value it has not bounded, or touches the file system.
#include "broker/plugins/plugin_manifest.hpp"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <utility>

#include "broker/config_dir.hpp"

namespace signaltty::broker::plugins {
namespace {

// ---- small parsing functions ------------------------------------------------

std::string in_quotes(std::string_view s) { return "'" + excerpt(s) + "'"; }

Error invalid(std::string_view where, std::string_view problem) {
  return bad_params(std::string(where) + ": " + std::string(problem));
}

// Keys a table may hold; any other is an error naming it.
Status only_keys(const toml::table& table, std::string_view where,
                 std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    return invalid(where, "unknown key " + in_quotes(key.str()));
  }
  return {};
}

Result<const toml::table*> table_at(const toml::node& node, std::string_view where) {
  if (const toml::table* table = node.as_table()) return table;
  return invalid(where, "expected a table");
}

// Every string a manifest holds: at most kPluginStringMaxBytes, and no NUL
// (nothing holding one can be passed to exec).
Status check_text(std::string_view text, std::string_view where) {
  if (text.size() > kPluginStringMaxBytes)
    return invalid(where, "longer than " + std::to_string(kPluginStringMaxBytes) + " bytes");
  if (text.find('\0') != std::string_view::npos) return invalid(where, "holds a NUL character");
  return {};
}

Result<std::string> string_at(const toml::node& node, std::string_view where) {
  const auto* value = node.as_string();
  if (value == nullptr) return invalid(where, "expected a string");
  SIGNALTTY_RETURN_IF_ERROR(check_text(value->get(), where));
  return value->get();
}

Result<std::vector<std::string>> strings_at(const toml::node& node, const std::string& where,
                                            std::size_t max_entries) {
  const toml::array* array = node.as_array();
  if (array == nullptr) return invalid(where, "expected an array of strings");
  if (array->size() > max_entries)
    return invalid(where, "more than " + std::to_string(max_entries) + " entries");
  std::vector<std::string> out;
  out.reserve(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    SIGNALTTY_TRY(std::string item,
                  string_at(*array->get(i), where + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(item));
  }
  return out;
}

// A required key's node, or an error naming it.
Result<const toml::node*> required(const toml::table& table, std::string_view key,
                                   const std::string& where) {
  if (const toml::node* node = table.get(key)) return node;
  return invalid(where + " " + std::string(key), "missing");
}

// ---- typed values -------------------------------------------------------------

Result<std::string> name_at(const toml::node& node, const std::string& where) {
  SIGNALTTY_TRY(std::string name, string_at(node, where));
  if (!is_plugin_name(name))
    return invalid(where, in_quotes(name) + " is not 1 to " + std::to_string(kPluginNameMaxBytes) +
                              " of [a-z0-9_-]");
  return name;
}

Result<std::vector<std::string>> events_at(const toml::node& node, const std::string& where) {
  SIGNALTTY_TRY(std::vector<std::string> events, strings_at(node, where, kPluginMaxEventsPerHook));
  if (events.empty()) return invalid(where, "empty");
  for (const std::string& glob : events)
    if (!is_event_glob(glob))
      return invalid(where, in_quotes(glob) + " is not `*`, `prefix.*` or an event name");
  return events;
}

Result<std::vector<std::string>> argv_at(const toml::node& node, const std::string& where,
                                         const std::filesystem::path& dir) {
  SIGNALTTY_TRY(std::vector<std::string> argv, strings_at(node, where, kPluginMaxArgs));
  if (argv.empty()) return invalid(where, "empty");
  if (argv.front().empty()) return invalid(where + "[0]", "empty");
  argv.front() = resolve_argv0(argv.front(), dir);
  return argv;
}

Result<std::uint32_t> timeout_at(const toml::node& node, const std::string& where) {
  const auto* value = node.as_integer();
  if (value == nullptr) return invalid(where, "expected an integer");
  const std::int64_t secs = value->get();
  if (secs < kPluginHookTimeoutMinSecs || secs > kPluginHookTimeoutMaxSecs)
    return invalid(where, std::to_string(secs) + " is outside " +
                              std::to_string(kPluginHookTimeoutMinSecs) +
                              "..=" + std::to_string(kPluginHookTimeoutMaxSecs));
  return static_cast<std::uint32_t>(secs);
}

Result<std::map<std::string, std::string>> env_at(const toml::node& node,
                                                  const std::string& where) {
  SIGNALTTY_TRY(const toml::table* table, table_at(node, where));
  if (table->size() > kPluginMaxEnvEntries)
    return invalid(where, "more than " + std::to_string(kPluginMaxEnvEntries) + " entries");
  std::map<std::string, std::string> env;
  for (const auto& [key, value] : *table) {
    const std::string name(key.str());
    SIGNALTTY_RETURN_IF_ERROR(check_text(name, where));
    if (name.empty() || name.find('=') != std::string::npos)
      return invalid(where, in_quotes(name) + " is not a variable name");
    SIGNALTTY_TRY(env[name], string_at(value, where + "." + excerpt(name)));
  }
  return env;
}

// ---- [plugin], [[hook]], [[command]] ----------------------------------------

// `dir` without a trailing separator, so that its filename is its last
// component.
std::filesystem::path without_trailing_separator(const std::filesystem::path& dir) {
  if (!dir.has_filename() && dir.has_relative_path()) return dir.parent_path();
  return dir;
}

Status parse_plugin(const toml::node& node, const std::filesystem::path& dir, Plugin& plugin) {
  SIGNALTTY_TRY(const toml::table* table, table_at(node, "[plugin]"));
  SIGNALTTY_RETURN_IF_ERROR(only_keys(*table, "[plugin]", {"name", "version", "description"}));
  SIGNALTTY_TRY(const toml::node* name, required(*table, "name", "[plugin]"));
  SIGNALTTY_TRY(plugin.name, name_at(*name, "[plugin] name"));
  const std::string dir_name = dir.filename().string();
  if (plugin.name != dir_name)
    return invalid("[plugin] name",
                   in_quotes(plugin.name) + " is not its directory's name " + in_quotes(dir_name));
  if (const toml::node* version = table->get("version")) {
    SIGNALTTY_TRY(plugin.version, string_at(*version, "[plugin] version"));
  }
  if (const toml::node* description = table->get("description")) {
    SIGNALTTY_TRY(plugin.description, string_at(*description, "[plugin] description"));
  }
  return {};
}

Result<PluginHook> parse_hook(const toml::node& node, const std::string& where,
                              const std::filesystem::path& dir) {
  SIGNALTTY_TRY(const toml::table* table, table_at(node, where));
  SIGNALTTY_RETURN_IF_ERROR(only_keys(*table, where, {"events", "command", "timeout_secs", "env"}));
  PluginHook hook;
  SIGNALTTY_TRY(const toml::node* events, required(*table, "events", where));
  SIGNALTTY_TRY(hook.events, events_at(*events, where + " events"));
  SIGNALTTY_TRY(const toml::node* command, required(*table, "command", where));
  SIGNALTTY_TRY(hook.command, argv_at(*command, where + " command", dir));
  if (const toml::node* timeout = table->get("timeout_secs")) {
    SIGNALTTY_TRY(hook.timeout_secs, timeout_at(*timeout, where + " timeout_secs"));
  }
  if (const toml::node* env = table->get("env")) {
    SIGNALTTY_TRY(hook.env, env_at(*env, where + " env"));
  }
  return hook;
}

// "[[command]] 'name'", or the command's position while its name is unknown.
std::string command_label(const toml::node& node, std::size_t index) {
  if (const toml::table* table = node.as_table())
    if (const toml::node* name = table->get("name"))
      if (const auto* text = name->as_string(); text != nullptr && is_plugin_name(text->get()))
        return "[[command]] " + in_quotes(text->get());
  return "[[command]] #" + std::to_string(index + 1);
}

Result<PluginCommand> parse_command(const toml::node& node, const std::string& where,
                                    const std::filesystem::path& dir) {
  SIGNALTTY_TRY(const toml::table* table, table_at(node, where));
  SIGNALTTY_RETURN_IF_ERROR(only_keys(*table, where, {"name", "description", "run"}));
  PluginCommand command;
  SIGNALTTY_TRY(const toml::node* name, required(*table, "name", where));
  SIGNALTTY_TRY(command.name, name_at(*name, where + " name"));
  if (const toml::node* description = table->get("description")) {
    SIGNALTTY_TRY(command.description, string_at(*description, where + " description"));
  }
  SIGNALTTY_TRY(const toml::node* run, required(*table, "run", where));
  SIGNALTTY_TRY(command.run, argv_at(*run, where + " run", dir));
  return command;
}

// The array of tables under `key` (`[[hook]]`, `[[command]]`), bounded.
Result<const toml::array*> tables_at(const toml::node& node, std::string_view key,
                                     std::size_t max_entries) {
  const std::string where = "[[" + std::string(key) + "]]";
  const toml::array* array = node.as_array();
  if (array == nullptr) return invalid(std::string(key), "expected " + where + " tables");
  if (array->size() > max_entries)
    return invalid(where, std::to_string(array->size()) + " entries, more than " +
                              std::to_string(max_entries));
  return array;
}

Status parse_hooks(const toml::node& node, const std::filesystem::path& dir, Plugin& plugin) {
  SIGNALTTY_TRY(const toml::array* hooks, tables_at(node, "hook", kPluginMaxHooks));
  for (std::size_t i = 0; i < hooks->size(); ++i) {
    SIGNALTTY_TRY(PluginHook hook,
                  parse_hook(*hooks->get(i), "[[hook]] #" + std::to_string(i + 1), dir));
    plugin.hooks.push_back(std::move(hook));
  }
  return {};
}

Status parse_commands(const toml::node& node, const std::filesystem::path& dir, Plugin& plugin) {
  SIGNALTTY_TRY(const toml::array* commands, tables_at(node, "command", kPluginMaxCommands));
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < commands->size(); ++i) {
    const toml::node& node_i = *commands->get(i);
    const std::string where = command_label(node_i, i);
    SIGNALTTY_TRY(PluginCommand command, parse_command(node_i, where, dir));
    if (!names.insert(command.name).second) return invalid(where, "a duplicate command name");
    plugin.commands.push_back(std::move(command));
  }
  return {};
}

Result<Plugin> parse_document(const toml::table& root, const std::filesystem::path& dir) {
  SIGNALTTY_RETURN_IF_ERROR(only_keys(root, "top level", {"plugin", "hook", "command"}));
  Plugin plugin;
  plugin.dir = dir.string();
  const toml::node* table = root.get("plugin");
  if (table == nullptr) return invalid("[plugin]", "missing");
  SIGNALTTY_RETURN_IF_ERROR(parse_plugin(*table, dir, plugin));
  if (const toml::node* hooks = root.get("hook"))
    SIGNALTTY_RETURN_IF_ERROR(parse_hooks(*hooks, dir, plugin));
  if (const toml::node* commands = root.get("command"))
    SIGNALTTY_RETURN_IF_ERROR(parse_commands(*commands, dir, plugin));
  return plugin;
}

bool is_event_segment_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// One or more '.'-separated, non-empty segments of [a-z0-9_].
bool is_event_name_form(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '.' && name[i - 1] != '.') continue;
    if (!is_event_segment_char(name[i])) return false;
  }
  return true;
}

}  // namespace

Result<Plugin> parse_plugin_manifest(std::string_view text, const std::filesystem::path& dir) {
  if (text.size() > kPluginManifestMaxBytes)
    return bad_params("larger than " + std::to_string(kPluginManifestMaxBytes) + " bytes");
  SIGNALTTY_TRY(toml::table root, parse_toml(text));
  return parse_document(root, without_trailing_separator(dir));
}

bool is_plugin_name(std::string_view name) {
  if (name.empty() || name.size() > kPluginNameMaxBytes) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool is_event_glob(std::string_view glob) {
  if (glob == "*") return true;
  if (glob.ends_with(".*")) return is_event_name_form(glob.substr(0, glob.size() - 2));
  return is_event_name_form(glob);
}

bool event_matches(std::string_view glob, std::string_view event) {
  if (glob == "*") return true;
  if (glob.ends_with(".*")) {
    const std::string_view family = glob.substr(0, glob.size() - 1);  // keeps the dot
    return event.size() > family.size() && event.starts_with(family);
  }
  return glob == event;
}

bool hook_matches(const PluginHook& hook, std::string_view event) {
  return std::any_of(hook.events.begin(), hook.events.end(),
                     [&](const std::string& glob) { return event_matches(glob, event); });
}

std::string resolve_argv0(std::string_view argv0, const std::filesystem::path& dir) {
  if (argv0.starts_with('/') || argv0.find('/') == std::string_view::npos)
    return std::string(argv0);
  while (argv0.starts_with("./")) argv0.remove_prefix(2);
  return (dir / argv0).string();
}

}  // namespace signaltty::broker::plugins
