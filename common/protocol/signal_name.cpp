// common/protocol/signal_name.cpp: the signal-name allowlist (docs/rules.md,
// Resize and signals). Runs in: every process.
#include "common/protocol/signal_name.hpp"

#include <csignal>

namespace signaltty::protocol {
namespace {

constexpr std::array<std::pair<std::string_view, int>, 8> kAllowed{{
    {"INT", SIGINT},
    {"TERM", SIGTERM},
    {"KILL", SIGKILL},
    {"HUP", SIGHUP},
    {"QUIT", SIGQUIT},
    {"WINCH", SIGWINCH},
    {"USR1", SIGUSR1},
    {"USR2", SIGUSR2},
}};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::string allowed_list() {
  std::string out;
  for (const auto& [name, number] : kAllowed) {
    if (!out.empty()) out += " ";
    out += name;
  }
  return out;
}

}  // namespace

Result<SignalName> parse_signal_name(std::string_view text) {
  std::string name = upper(text);
  if (name.rfind("SIG", 0) == 0) name.erase(0, 3);
  for (const auto& [allowed, number] : kAllowed)
    if (name == allowed) return SignalName{number, std::string(allowed)};
  return bad_params("signal: '" + std::string(text) + "' is not one of " + allowed_list());
}

Result<SignalName> Codec<SignalName>::decode(const Json& j, std::string_view path) {
  if (!j.is_string()) return detail::mistyped(path, "signal name", j);
  auto parsed = parse_signal_name(j.get_ref<const std::string&>());
  if (!parsed.ok()) {
    Error e = std::move(parsed).error();
    e.message.replace(0, 6, std::string(path));
    e.details = {{"field", std::string(path)}};
    return e;
  }
  return parsed;
}

Json Codec<SignalName>::schema() {
  Json names = Json::array();
  for (const auto& entry : kAllowed) names.push_back(std::string(entry.first));
  return {{"type", "string"},
          {"description", "signal name, case-insensitive, optional SIG prefix"},
          {"x-enum-ci", names}};
}

}  // namespace signaltty::protocol
