// common/integrations/launch_setup.cpp: deciding and doing the hook setup
// for one direct agent launch (docs/rules.md "Agent integrations").
// Runs in: broker. Never: fails the launch; every failure becomes an
// `error` result with a notice.
#include "common/integrations/launch_setup.hpp"

#include <array>

#include "common/integrations/codex_runtime.hpp"
#include "common/integrations/installer.hpp"
#include "common/integrations/reporter.hpp"

namespace signaltty::integrations {
namespace {

using protocol::Integration;
using protocol::IntegrationStatus;

constexpr std::array<std::pair<std::string_view, Provider>, 4> kExecutables{{
    {"claude", Provider::Claude},
    {"codex", Provider::Codex},
    {"opencode", Provider::Opencode},
    {"cursor-agent", Provider::Cursor},
}};
constexpr std::string_view kEndOfOptions = "--";
constexpr std::string_view kClaudeBare = "--bare";
constexpr std::string_view kClaudeSettingSources = "--setting-sources";
constexpr std::string_view kClaudeSettingSourcesEq = "--setting-sources=";
constexpr std::string_view kClaudeUserSource = "user";
constexpr std::string_view kOpencodePure = "--pure";

// The program's own options: argv after argv[0], up to a `--`.
std::vector<std::string_view> options_of(const std::vector<std::string>& argv) {
  std::vector<std::string_view> out;
  for (std::size_t i = 1; i < argv.size() && argv[i] != kEndOfOptions; ++i) out.push_back(argv[i]);
  return out;
}

bool lists_user_source(std::string_view list) {
  while (true) {
    const auto comma = list.find(',');
    if (list.substr(0, comma) == kClaudeUserSource) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// --bare, or --setting-sources (either spelling) without `user`.
bool claude_skips_user_settings(const std::vector<std::string_view>& options) {
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string_view option = options[i];
    if (option == kClaudeBare) return true;
    std::optional<std::string_view> sources;
    if (option == kClaudeSettingSources) sources = i + 1 < options.size() ? options[i + 1] : "";
    else if (option.starts_with(kClaudeSettingSourcesEq))
      sources = option.substr(kClaudeSettingSourcesEq.size());
    if (sources && !lists_user_source(*sources)) return true;
  }
  return false;
}

std::optional<std::string> disabled_because(Provider provider, const std::vector<std::string>& argv) {
  const auto options = options_of(argv);
  if (provider == Provider::Claude && claude_skips_user_settings(options))
    return "claude was started without user settings (--bare or --setting-sources): "
           "no hooks were set up, so its state comes from the screen only";
  if (provider == Provider::Opencode &&
      std::find(options.begin(), options.end(), kOpencodePure) != options.end())
    return "opencode was started with --pure (no plugins): no hooks were set up, "
           "so its state comes from the screen only";
  return std::nullopt;
}

Integration failed(Provider provider, const std::optional<std::string>& file, const Error& error) {
  return Integration{agent_kind(provider), IntegrationStatus::Error, false, file,
                     "could not set up " + std::string(provider_name(provider)) +
                         " hooks: " + error.message +
                         ". The terminal stays usable; its state comes from the screen only"};
}

std::optional<std::string> configured_notice(Provider provider, const InstallOutcome& done) {
  if (provider != Provider::Codex || !done.changed) return std::nullopt;
  return "signaltty wrote Codex hooks to " + done.file +
         ": review and trust them in Codex's /hooks before they report anything, and start "
         "Codex as `codex --no-daemon` when you type it in a shell";
}

Integration configure(Provider provider, const LaunchSetupRequest& request) {
  const PathContext where{request.broker_env, request.spawn_env, request.explicit_home, request.cwd};
  auto file = config_file_path(provider, where);
  if (!file.ok()) return failed(provider, std::nullopt, file.error());
  auto reporter = request.reporter ? Result<std::string>(*request.reporter)
                                   : find_reporter(request.broker_env);
  if (!reporter.ok()) return failed(provider, *file, reporter.error());
  auto done = install(provider, *file, *reporter);
  if (!done.ok()) return failed(provider, *file, done.error());
  return Integration{agent_kind(provider), IntegrationStatus::Configured, done->changed, done->file,
                     configured_notice(provider, *done)};
}

}  // namespace

std::optional<Provider> launch_provider(const std::vector<std::string>& argv) {
  if (argv.empty()) return std::nullopt;
  const std::string_view program = argv.front();
  const std::string_view base = program.substr(program.rfind('/') + 1);
  for (const auto& [name, provider] : kExecutables)
    if (base == name) return provider;
  return std::nullopt;
}

std::optional<protocol::Integration> prepare_launch_integration(const LaunchSetupRequest& request) {
  const auto provider = launch_provider(request.argv);
  if (!provider) return std::nullopt;
  if (auto why = disabled_because(*provider, request.argv))
    return Integration{agent_kind(*provider), IntegrationStatus::Disabled, false, std::nullopt, *why};
  Integration done = configure(*provider, request);
  // The hooks are written, but a remote Codex runs them elsewhere.
  if (done.status == IntegrationStatus::Configured &&
      classify_codex_launch(request.argv) == CodexLaunch::Remote)
    return codex_disabled(std::move(done), codex_remote_notice());
  return done;
}

Integration codex_disabled(Integration integration, std::string notice) {
  integration.status = IntegrationStatus::Disabled;
  integration.notice = std::move(notice);
  return integration;
}

}  // namespace signaltty::integrations
