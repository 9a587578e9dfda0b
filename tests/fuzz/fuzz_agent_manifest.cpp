// tests/fuzz/fuzz_agent_manifest.cpp: libFuzzer target for the files a
// user drops into the agents and plugins dirs: an agent manifest (TOML,
// [[screen]] rules and their RE2 patterns) through the broker's parser and
// validator, its rules evaluated and explained over a screen made from the
// rest of the input, as the screen-classification tick does; or a
// plugin.toml through the plugin manifest parser, its hooks matched
// against event names.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp.
// Never: expects a file to be accepted; it looks for exceptions, crashes,
// sanitizer reports and accepted manifests that break their own bounds.
//
// Input layout: byte 0 picks the file (even: an agent manifest, odd: a
// plugin.toml); the rest up to the first NUL byte is the file's text, and
// what follows it is the screen: its first line the title, the others the
// rows.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "broker/agents/manifests.hpp"
#include "broker/agents/screen_rules.hpp"
#include "broker/plugins/plugin_manifest.hpp"
#include "common/log.hpp"

namespace {

namespace agents = signaltty::broker::agents;
namespace plugins = signaltty::broker::plugins;

agents::ScreenText screen_of(std::string_view text) {
  agents::ScreenText screen;
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line(text.substr(start, end - start));
    if (first) {
      screen.title = std::move(line);
      first = false;
    } else {
      screen.rows.push_back(std::move(line));
    }
    start = end + 1;
  }
  return screen;
}

void agent_manifest(std::string_view text, std::string_view rest) {
  auto manifest = agents::parse_manifest("fuzz.toml", text);
  if (!manifest.ok()) {
    if (manifest.error().message.rfind("fuzz.toml", 0) != 0) std::abort();  // names the file
    return;
  }
  if (manifest->screen.size() > agents::kManifestMaxScreenRules) std::abort();
  std::vector<const agents::ScreenRule*> rules;
  for (const agents::ScreenRule& rule : manifest->screen) {
    if (rule.lines < 0 || rule.lines > agents::kRegionLinesMax) std::abort();
    rules.push_back(&rule);
  }
  for (const std::string& binary : manifest->binaries)
    (void)agents::names_program(*manifest, binary);
  (void)agents::names_program(*manifest, rest.substr(0, rest.find('\n')));
  const agents::ScreenText screen = screen_of(rest);
  const agents::RuleTrace trace = agents::evaluate(rules, screen);
  if (trace.matched.size() != rules.size()) std::abort();
  if (trace.winner && (*trace.winner >= rules.size() || !trace.matched[*trace.winner]))
    std::abort();
  (void)agents::explain_rules(rules, trace);
  (void)agents::explain_winner(rules, trace);
}

void plugin_manifest(std::string_view text, std::string_view rest) {
  auto plugin = plugins::parse_plugin_manifest(text, "/nonexistent/fuzz-plugin");
  if (!plugin.ok()) return;
  const std::string_view event = rest.substr(0, rest.find('\n'));
  for (const plugins::PluginHook& hook : plugin->hooks) (void)plugins::hook_matches(hook, event);
  for (const plugins::PluginCommand& command : plugin->commands)
    if (!plugins::is_plugin_name(command.name)) std::abort();
}

bool quiet = [] {
  signaltty::log::init("fuzz_agent_manifest", signaltty::log::Level::Error);
  return true;
}();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  const std::string_view rest = nul == std::string_view::npos ? "" : input.substr(nul + 1);
  if (data[0] % 2 == 0)
    agent_manifest(text, rest);
  else
    plugin_manifest(text, rest);
  return 0;
}
