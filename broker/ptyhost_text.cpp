// broker/ptyhost_text.cpp: cleaning what a ptyhost says before it is stored.
// Runs in: broker (io thread).
#include "broker/ptyhost_text.hpp"

#include <algorithm>
#include <array>

#include "broker/handle.hpp"
#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

namespace wire = protocol::ptyhost;

// A wait status's exit code is one byte.
constexpr int kExitCodeMax = 255;
// docs/rules.md "OSC / BEL scanner": the sources an OSC notification names.
constexpr std::array<std::string_view, 3> kOscSources{"osc9", "osc99", "osc777"};
// docs/rules.md "Ptyhost strings": the only env a pane record keeps.
constexpr std::array<std::string_view, 3> kConfigEnvKeys{"CLAUDE_CONFIG_DIR", "CODEX_HOME",
                                                         "OPENCODE_CONFIG_DIR"};

// Length of the well-formed UTF-8 sequence at `s[i]` (RFC 3629: no
// overlong form, no surrogate, nothing past U+10FFFF), 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&s](std::size_t at) { return static_cast<unsigned char>(s[at]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t n = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong below
    if (lead == 0xED) second_max = 0x9F;  // surrogates above
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong below
    if (lead == 0xF4) second_max = 0x8F;  // past U+10FFFF above
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < second_min || byte(i + 1) > second_max) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) >> 6) != 0x2) return 0;
  return n;
}

bool has_controls(std::string_view s) {
  return clean_text(s, s.size()) != s || s.find_first_of("\n\t") != std::string_view::npos;
}

// ≤ kArgvMaxArgs, ≤ kArgvMaxBytes, no control characters.
bool argv_ok(const std::vector<std::string>& argv) {
  if (argv.size() > limits::kArgvMaxArgs) return false;
  std::size_t bytes = 0;
  for (const std::string& arg : argv) {
    bytes += arg.size();
    if (bytes > limits::kArgvMaxBytes || has_controls(arg)) return false;
  }
  return true;
}

bool path_ok(std::string_view path) {
  return !path.empty() && path.front() == '/' && path.size() <= limits::kPathMaxBytes &&
         !has_controls(path);
}

void clean_optional(std::optional<std::string>& value) {
  if (value) value = clean_text(*value, limits::kRecordStringMaxChars);
}

void check_agent(protocol::PaneAgent& agent) {
  clean_optional(agent.agent_session_id);
  clean_optional(agent.model);
  if (agent.resume_argv && (agent.resume_argv->empty() || !argv_ok(*agent.resume_argv)))
    agent.resume_argv.reset();
  if (agent.config_env) {
    std::erase_if(*agent.config_env, [](const auto& entry) {
      const bool known = std::find(kConfigEnvKeys.begin(), kConfigEnvKeys.end(), entry.first) !=
                         kConfigEnvKeys.end();
      return !known || !path_ok(entry.second);
    });
  }
}

}  // namespace

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

bool is_clean_absolute_path(std::string_view path) {
  return path_ok(path) && clean_text(path, limits::kPathMaxBytes) == path;
}

std::string clean_text(std::string_view raw, std::size_t max_chars) {
  std::string valid;
  valid.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t n = utf8_length(raw, i);
    if (n == 0) {
      ++i;
      continue;
    }
    valid.append(raw.substr(i, n));
    i += n;
  }
  return sanitize_notification_text(valid, max_chars);
}

std::string notification_source(const std::optional<std::string>& source) {
  for (std::string_view known : kOscSources)
    if (source == known) return std::string(known);
  return std::string(kOscSources.front());
}

wire::ExitStatus checked_exit(const wire::ExitStatus& exit) {
  wire::ExitStatus out;
  if (exit.code.has_value() && *exit.code >= 0 && *exit.code <= kExitCodeMax) out.code = *exit.code;
  if (exit.signal.has_value()) {
    const std::string& name = *exit.signal;
    const bool plain = !name.empty() && name.size() <= limits::kSignalNameMaxChars &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
                                c == '-';
                       });
    if (plain) out.signal = name;
  }
  return out;
}

protocol::Pane checked_recovered_pane(protocol::Pane pane, std::string_view fallback_title) {
  if (pane.name && !validate_pane_name(*pane.name).ok()) pane.name.reset();
  auto title = sanitize_display_name(pane.title, "title");
  pane.title = title.ok() ? std::move(title).value() : clean_text(fallback_title, limits::kTitleMaxChars);
  if (pane.title.empty()) pane.title = "recovered";
  if (!argv_ok(pane.argv)) pane.argv.clear();
  if (!path_ok(pane.cwd)) pane.cwd.clear();
  check_agent(pane.agent);
  clean_optional(pane.last_message);
  clean_optional(pane.label);
  clean_optional(pane.relationship);
  return pane;
}

}  // namespace signaltty::broker
