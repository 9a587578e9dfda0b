// common/integrations/installer.cpp: one provider's install, uninstall and
// status over the guarded file edit (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: writes outside config_file's transaction.
#include "common/integrations/installer.hpp"

#include "common/integrations/config_file.hpp"
#include "common/integrations/hook_command.hpp"
#include "common/integrations/hook_merge.hpp"
#include "common/integrations/opencode_plugin.hpp"
#include "common/integrations/reporter.hpp"

namespace signaltty::integrations {
namespace {

Result<std::vector<ManagedHook>> managed_hooks(Provider provider, const std::string& reporter) {
  std::vector<ManagedHook> hooks;
  for (auto event : managed_events(provider)) {
    SIGNALTTY_TRY(std::string command, managed_command(reporter, provider, event));
    hooks.push_back({std::string(event), std::move(command), hook_timeout_secs(provider, event)});
  }
  return hooks;
}

Error foreign_plugin(const std::string& file) {
  return Error{ErrorCode::IoError,
               file + " is another OpenCode plugin, not ours; not changed (move it away to install)"};
}

FileEdit write_or_keep(std::optional<std::string> text) {
  if (!text) return FileEdit{};
  return FileEdit{FileChange::Write, std::move(*text)};
}

Result<FileEditOutcome> install_plugin(const std::string& file, const std::string& reporter) {
  SIGNALTTY_TRY(std::string text, opencode_plugin_text(reporter));
  return edit_config_file(file, [&](const std::optional<std::string>& current) -> Result<FileEdit> {
    if (current && !is_our_opencode_plugin(*current)) return foreign_plugin(file);
    return FileEdit{FileChange::Write, text};
  });
}

Result<FileEditOutcome> install_hooks(Provider provider, const std::string& file,
                                      const std::string& reporter) {
  SIGNALTTY_TRY(std::vector<ManagedHook> hooks, managed_hooks(provider, reporter));
  return edit_config_file(file, [&](const std::optional<std::string>& current) -> Result<FileEdit> {
    SIGNALTTY_TRY(auto text, merge_install(current, hook_shape(provider), hooks, file));
    return write_or_keep(std::move(text));
  });
}

Result<ProviderStatus> plugin_status(const std::string& file, const std::optional<std::string>& reporter) {
  SIGNALTTY_TRY(std::optional<std::string> text, read_config_file(file));
  ProviderStatus out{Provider::Opencode, file, text.has_value()};
  if (!text) return out;
  out.installed = is_our_opencode_plugin(*text);
  out.foreign_plugin = !out.installed;
  if (out.installed && reporter) {
    SIGNALTTY_TRY(std::string wanted, opencode_plugin_text(*reporter));
    out.stale = *text != wanted;
  }
  return out;
}

}  // namespace

Result<InstallOutcome> install(Provider provider, const std::string& file, const std::string& reporter) {
  SIGNALTTY_RETURN_IF_ERROR(check_reporter(reporter));
  auto done = hook_shape(provider) == HookShape::Plugin ? install_plugin(file, reporter)
                                                        : install_hooks(provider, file, reporter);
  if (!done.ok()) return std::move(done).error();
  return InstallOutcome{provider, done->path, done->changed};
}

Result<InstallOutcome> uninstall(Provider provider, const std::string& file) {
  const HookShape shape = hook_shape(provider);
  auto done = edit_config_file(file, [&](const std::optional<std::string>& current) -> Result<FileEdit> {
    if (shape == HookShape::Plugin) {
      if (!current || !is_our_opencode_plugin(*current)) return FileEdit{};
      return FileEdit{FileChange::Delete, {}};
    }
    SIGNALTTY_TRY(auto text, merge_uninstall(current, shape, managed_events(provider), file));
    return write_or_keep(std::move(text));
  });
  if (!done.ok()) return std::move(done).error();
  return InstallOutcome{provider, done->path, done->changed};
}

Result<ProviderStatus> status(Provider provider, const std::string& file,
                              const std::optional<std::string>& reporter) {
  if (hook_shape(provider) == HookShape::Plugin) return plugin_status(file, reporter);
  SIGNALTTY_TRY(std::optional<std::string> text, read_config_file(file));
  std::vector<ManagedHook> expected;
  if (reporter) {
    auto hooks = managed_hooks(provider, *reporter);
    if (hooks.ok()) expected = std::move(*hooks);
  }
  SIGNALTTY_TRY(HookFileState state,
                inspect_hooks(text, hook_shape(provider), managed_events(provider), expected, file));
  ProviderStatus out{provider, file, text.has_value()};
  out.installed = state.missing_events.empty();
  out.stale = state.stale;
  out.missing_events = std::move(state.missing_events);
  return out;
}

}  // namespace signaltty::integrations
