// common/integrations/hook_merge.cpp: install, uninstall and inspect of our
// command hooks inside a JSON hook file (docs/rules.md "Agent
// integrations"). The file is parsed into an insertion-ordered tree so a
// rewrite keeps the user's key order.
// Runs in: CLI and broker. Never: changes a value that is not ours, or
// lets a JSON exception out.
#include "common/integrations/hook_merge.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/integrations/hook_command.hpp"
#include "common/limits.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::integrations {
namespace {

using Doc = nlohmann::ordered_json;

constexpr int kIndent = 2;
constexpr int kCursorHooksVersion = 1;
constexpr const char* kHooks = "hooks";
constexpr const char* kCommand = "command";
constexpr const char* kTimeout = "timeout";
constexpr const char* kMatcher = "matcher";

Error malformed(const std::string& file, const std::string& why) {
  return Error{ErrorCode::IoError, file + ": " + why + "; not changed"};
}

Result<Doc> parse(const std::optional<std::string>& text, const std::string& file) {
  if (!text) return Doc::object();
  if (protocol::json_nesting_depth(*text, limits::kJsonMaxDepth) > limits::kJsonMaxDepth)
    return malformed(file, "nested too deep");
  Doc doc = Doc::parse(*text, nullptr, false);
  if (doc.is_discarded()) return malformed(file, "not valid JSON");
  if (!doc.is_object()) return malformed(file, "not a JSON object");
  return doc;
}

std::string render(const Doc& doc) { return doc.dump(kIndent) + "\n"; }

// `hooks` must be an object and each managed event's value an array.
Status check_shape(const Doc& doc, std::span<const std::string_view> events, const std::string& file) {
  auto hooks = doc.find(kHooks);
  if (hooks == doc.end()) return {};
  if (!hooks->is_object()) return malformed(file, "\"hooks\" is not an object");
  for (auto event : events) {
    auto value = hooks->find(std::string(event));
    if (value != hooks->end() && !value->is_array())
      return malformed(file, "\"hooks." + std::string(event) + "\" is not an array");
  }
  return {};
}

bool is_ours(const Doc& entry) {
  if (!entry.is_object()) return false;
  auto command = entry.find(kCommand);
  return command != entry.end() && command->is_string() &&
         is_managed_command(command->get_ref<const std::string&>());
}

// The command entries of one event's array: the entries themselves
// (Cursor) or the `hooks` arrays of its groups.
template <class Visit>
void for_each_entry_list(Doc& list, HookShape shape, Visit visit) {
  if (shape == HookShape::Entries) return visit(list);
  for (auto& group : list) {
    if (!group.is_object()) continue;
    auto inner = group.find(kHooks);
    if (inner != group.end() && inner->is_array()) visit(*inner);
  }
}

Doc new_entry(const ManagedHook& hook, HookShape shape) {
  if (shape == HookShape::Entries) return Doc{{kCommand, hook.command}, {kTimeout, hook.timeout_secs}};
  Doc entry{{"type", "command"}, {kCommand, hook.command}, {kTimeout, hook.timeout_secs}};
  return Doc{{kMatcher, ""}, {kHooks, Doc::array({entry})}};
}

void install_one(Doc& list, HookShape shape, const ManagedHook& hook) {
  bool found = false;
  for_each_entry_list(list, shape, [&](Doc& entries) {
    for (auto& entry : entries) {
      if (!is_ours(entry)) continue;
      entry[kCommand] = hook.command;
      entry[kTimeout] = hook.timeout_secs;
      found = true;
    }
  });
  if (!found) list.push_back(new_entry(hook, shape));
}

// A group our removal emptied, with nothing else worth keeping.
bool is_disposable_group(const Doc& group) {
  for (const auto& [key, value] : group.items()) {
    if (key == kHooks && value.is_array() && value.empty()) continue;
    if (key == kMatcher && value.is_string() && value.get_ref<const std::string&>().empty()) continue;
    return false;
  }
  return true;
}

// Removes our entries from one entry list; true when it removed any.
bool remove_ours(Doc& entries) {
  const auto before = entries.size();
  Doc kept = Doc::array();
  for (auto& entry : entries)
    if (!is_ours(entry)) kept.push_back(std::move(entry));
  entries = std::move(kept);
  return entries.size() != before;
}

// Removes ours from one event's array; true when that emptied it.
bool uninstall_list(Doc& list, HookShape shape) {
  if (list.empty()) return false;
  if (shape == HookShape::Entries) return remove_ours(list) && list.empty();
  Doc kept = Doc::array();
  for (auto& group : list) {
    bool removed = false;
    if (group.is_object() && group.contains(kHooks) && group[kHooks].is_array())
      removed = remove_ours(group[kHooks]);
    if (!(removed && is_disposable_group(group))) kept.push_back(std::move(group));
  }
  list = std::move(kept);
  return list.empty();
}

void ensure_cursor_version(Doc& doc) {
  if (!doc.contains("version")) {
    Doc out{{"version", kCursorHooksVersion}};
    for (auto& [key, value] : doc.items()) out[key] = std::move(value);
    doc = std::move(out);
  }
}

std::optional<std::string> changed_text(const Doc& before, const Doc& after) {
  if (before == after) return std::nullopt;
  return render(after);
}

}  // namespace

Result<std::optional<std::string>> merge_install(const std::optional<std::string>& text,
                                                 HookShape shape,
                                                 const std::vector<ManagedHook>& hooks,
                                                 const std::string& file) {
  SIGNALTTY_TRY(const Doc before, parse(text, file));
  std::vector<std::string_view> events;
  for (const auto& hook : hooks) events.push_back(hook.event);
  SIGNALTTY_RETURN_IF_ERROR(check_shape(before, events, file));
  Doc after = before;
  if (shape == HookShape::Entries) ensure_cursor_version(after);
  if (!after.contains(kHooks)) after[kHooks] = Doc::object();
  for (const auto& hook : hooks) {
    Doc& list = after[kHooks][hook.event];
    if (list.is_null()) list = Doc::array();
    install_one(list, shape, hook);
  }
  return changed_text(before, after);
}

Result<std::optional<std::string>> merge_uninstall(const std::optional<std::string>& text,
                                                   HookShape shape,
                                                   std::span<const std::string_view> events,
                                                   const std::string& file) {
  if (!text) return std::optional<std::string>();
  SIGNALTTY_TRY(const Doc before, parse(text, file));
  SIGNALTTY_RETURN_IF_ERROR(check_shape(before, events, file));
  if (!before.contains(kHooks)) return std::optional<std::string>();
  Doc after = before;
  Doc& hooks = after[kHooks];
  std::vector<std::string> emptied;
  for (auto& [event, list] : hooks.items())
    if (list.is_array() && uninstall_list(list, shape)) emptied.push_back(event);
  for (const auto& event : emptied) hooks.erase(event);
  if (!emptied.empty() && hooks.empty()) after.erase(kHooks);
  return changed_text(before, after);
}

Result<HookFileState> inspect_hooks(const std::optional<std::string>& text, HookShape shape,
                                    std::span<const std::string_view> events,
                                    const std::vector<ManagedHook>& expected,
                                    const std::string& file) {
  SIGNALTTY_TRY(Doc doc, parse(text, file));
  SIGNALTTY_RETURN_IF_ERROR(check_shape(doc, events, file));
  HookFileState state;
  for (auto event : events) {
    const std::string name(event);
    auto want = std::find_if(expected.begin(), expected.end(),
                             [&](const ManagedHook& h) { return h.event == name; });
    bool present = false;
    Doc list = doc.contains(kHooks) && doc[kHooks].contains(name) ? doc[kHooks][name] : Doc::array();
    for_each_entry_list(list, shape, [&](Doc& entries) {
      for (const auto& entry : entries) {
        if (!is_ours(entry)) continue;
        present = true;
        const auto& command = entry[kCommand].get_ref<const std::string&>();
        if (want == expected.end()) state.stale |= !command.ends_with(kManagedSuffix);
        else state.stale |= command != want->command || entry.value(kTimeout, Doc()) != want->timeout_secs;
      }
    });
    (present ? state.installed_events : state.missing_events).push_back(name);
  }
  return state;
}

}  // namespace signaltty::integrations
