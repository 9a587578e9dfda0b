// hookrelay/args.cpp: parses signaltty-hookrelay's command line by hand (no
// CLI11: the relay is started once per agent hook and must start fast).
// Runs in: signaltty-hookrelay. Never: accepts an unknown option, a
// repeated option, or an agent kind the protocol does not name.
#include "hookrelay/args.hpp"

#include <string_view>

#include "common/protocol/codec.hpp"

namespace signaltty::hookrelay {
namespace {

struct Options {
  std::optional<std::string> agent, event, pane, payload;
  int wait_for_answer = 0;  // times given
};

// Splits "--name=value"; a bare "--name" takes the next argument.
std::optional<UsageError> take(const std::vector<std::string>& args, std::size_t& i,
                               std::string_view name, std::optional<std::string>& slot) {
  std::string_view arg = args[i];
  std::string value;
  if (arg.size() > name.size() && arg[name.size()] == '=') {
    value = std::string(arg.substr(name.size() + 1));
  } else if (i + 1 < args.size()) {
    value = args[++i];
  } else {
    return UsageError{std::string(name) + " needs a value"};
  }
  if (slot) return UsageError{std::string(name) + " given twice"};
  slot = std::move(value);
  return std::nullopt;
}

bool is_option(std::string_view arg, std::string_view name) {
  return arg == name || (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=');
}

std::optional<UsageError> scan(const std::vector<std::string>& args, Options& out) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::optional<UsageError> error;
    if (is_option(arg, "--agent")) error = take(args, i, "--agent", out.agent);
    else if (is_option(arg, "--event")) error = take(args, i, "--event", out.event);
    else if (is_option(arg, "--pane")) error = take(args, i, "--pane", out.pane);
    else if (arg == "--wait-for-answer" && out.wait_for_answer++ > 0)
      error = UsageError{"--wait-for-answer given twice"};
    else if (arg == "--wait-for-answer") continue;
    else if (arg.starts_with("-")) error = UsageError{"unknown option " + std::string(arg)};
    else if (out.payload) error = UsageError{"more than one payload argument"};
    else out.payload = std::string(arg);
    if (error) return error;
  }
  return std::nullopt;
}

}  // namespace

Parsed parse_args(const std::vector<std::string>& args, const std::optional<std::string>& env_pane) {
  for (const auto& arg : args) {
    if (arg == "--version") return ShowVersion{};
    if (arg == "--help" || arg == "-h") return ShowHelp{};
  }
  Options options;
  if (auto error = scan(args, options)) return *error;
  if (!options.agent || options.agent->empty()) return UsageError{"--agent KIND is required"};
  if (!options.event || options.event->empty()) return UsageError{"--event NAME is required"};
  auto kind = protocol::Codec<protocol::AgentKind>::decode(protocol::Json(*options.agent), "--agent");
  if (!kind.ok())
    return UsageError{"--agent: " + *options.agent + " is not one of " +
                      protocol::Codec<protocol::AgentKind>::choices()};
  RelayArgs out{*kind, std::move(*options.event), std::move(options.pane),
                std::move(options.payload), options.wait_for_answer > 0};
  if (out.pane_id && out.pane_id->empty()) out.pane_id.reset();
  if (!out.pane_id && env_pane && !env_pane->empty()) out.pane_id = env_pane;
  return out;
}

}  // namespace signaltty::hookrelay
