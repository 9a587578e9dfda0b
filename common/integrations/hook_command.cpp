// common/integrations/hook_command.cpp: building the managed hook command
// and recognising ours, current and legacy (docs/rules.md "Agent
// integrations").
// Runs in: CLI and broker. Never: runs a command.
#include "common/integrations/hook_command.hpp"

#include <vector>

namespace signaltty::integrations {
namespace {

constexpr std::string_view kLegacyProgram = "signaltty";
constexpr std::string_view kWaitFlag = " --wait-for-answer";

std::vector<std::string_view> split_on_spaces(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const auto space = text.find(' ');
    words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

bool is_legacy_path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
         c == '.' || c == '_' || c == '-';
}

// `signaltty` itself, or an absolute path of plain characters ending in /signaltty.
bool is_legacy_program(std::string_view word) {
  if (word == kLegacyProgram) return true;
  if (!word.starts_with('/') || !word.ends_with(std::string("/") + std::string(kLegacyProgram)))
    return false;
  for (char c : word)
    if (!is_legacy_path_char(c)) return false;
  return true;
}

bool is_legacy_command(std::string_view command) {
  const auto w = split_on_spaces(command);
  return w.size() == 7 && is_legacy_program(w[0]) && w[1] == "hook-event" && w[2] == "--agent" &&
         provider_from_name(w[3]).has_value() && w[4] == "--event" && is_known_event(w[5]) &&
         w[6] == "--payload-stdin";
}

}  // namespace

Result<std::string> managed_command(std::string_view reporter, Provider provider,
                                    std::string_view event) {
  if (!reporter.starts_with('/'))
    return bad_params("the hook reporter path is not absolute: " + std::string(reporter));
  if (reporter.find('\'') != std::string_view::npos)
    return bad_params("the hook reporter path holds a single quote: " + std::string(reporter));
  std::string out = "'" + std::string(reporter) + "' --agent " + std::string(provider_name(provider)) +
                    " --event " + std::string(event);
  if (hook_wait(provider, event) == HookWait::ForAnswer) out += kWaitFlag;
  out += kManagedSuffix;
  return out;
}

bool is_managed_command(std::string_view command) {
  return command.ends_with(kManagedSuffix) || is_legacy_command(command);
}

}  // namespace signaltty::integrations
