// common/integrations/hook_merge.hpp: the merge rules for a JSON hook file
// (Claude settings.json, Codex and Cursor hooks.json; docs/rules.md "Agent
// integrations"). Text in, text out; the JSON tree never leaves this file.
//   - The root must be an object, `hooks` an object, each managed event's
//     value an array; otherwise the file is refused.
//   - Install rewrites every command of ours in place (command and
//     timeout) wherever it sits; an event without one gets one new group
//     (Cursor: one new entry). Cursor gets "version": 1 when absent.
//   - Uninstall removes only our commands. A group goes only when our
//     removal emptied it and it has nothing but `hooks` and an empty or
//     absent `matcher`; an event key (and `hooks`) only when our removal
//     emptied it.
//   - Foreign keys, groups and commands keep their values; output is pretty
//     JSON and a newline, with the file's key order.
// Runs in: CLI and broker. Never: touches a file, or reports a change
// when the document's value is the same.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/integrations/provider.hpp"

namespace signaltty::integrations {

struct ManagedHook {
  std::string event;
  std::string command;
  int timeout_secs = 0;
};

// The new text, or nullopt when the document's value would not change.
// `text` nullopt means a missing file; `file` names it in errors.
Result<std::optional<std::string>> merge_install(const std::optional<std::string>& text,
                                                 HookShape shape,
                                                 const std::vector<ManagedHook>& hooks,
                                                 const std::string& file);
Result<std::optional<std::string>> merge_uninstall(const std::optional<std::string>& text,
                                                   HookShape shape,
                                                   std::span<const std::string_view> events,
                                                   const std::string& file);

struct HookFileState {
  std::vector<std::string> installed_events;  // managed events holding a command of ours
  std::vector<std::string> missing_events;    // managed events without one
  bool stale = false;  // some command of ours differs from what install writes now
};

// What a hook file holds of ours. With `expected` empty, stale means a
// command of ours not in the current managed form (a legacy command).
Result<HookFileState> inspect_hooks(const std::optional<std::string>& text, HookShape shape,
                                    std::span<const std::string_view> events,
                                    const std::vector<ManagedHook>& expected,
                                    const std::string& file);

}  // namespace signaltty::integrations
