// cli/integration_command.cpp: `signaltty integration` → the installers of
// common/integrations/, and their report on stdout.
// Runs in: CLI. Never: connects to the broker.
#include "cli/integration_command.hpp"

#include <algorithm>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/new_command.hpp"
#include "cli/terminal_text.hpp"
#include "common/integrations/config_paths.hpp"
#include "common/integrations/installer.hpp"
#include "common/integrations/reporter.hpp"

namespace signaltty::cli {
namespace {

namespace ig = signaltty::integrations;
using protocol::Json;

constexpr std::string_view kCodexTrustNotice =
    "Codex runs new hooks only once you trust them: review them in Codex's /hooks";

int report(const Error& error, const CliIo& io) {
  io.err << error_line(error) << '\n';
  return exit_code_for(error);
}

void print_json(const Json& result, std::optional<JsonStyle> json, const CliIo& io) {
  render_json(result, json.value_or(JsonStyle::OneLine), io.out);
  io.out.flush();
}

std::optional<std::string> notice_for(const ig::InstallOutcome& done) {
  if (done.provider != ig::Provider::Codex || !done.changed) return std::nullopt;
  return std::string(kCodexTrustNotice);
}

Json outcome_json(const ig::InstallOutcome& done, const std::optional<std::string>& notice) {
  Json out{{"agent", ig::provider_name(done.provider)}, {"file", done.file}, {"changed", done.changed}};
  if (notice) out["notice"] = *notice;
  return out;
}

Json status_json(const ig::ProviderStatus& st) {
  Json out{{"agent", ig::provider_name(st.provider)}, {"file", st.file},  {"exists", st.exists},
           {"installed", st.installed},               {"stale", st.stale}, {"missing_events", st.missing_events}};
  if (st.provider == ig::Provider::Opencode) out["foreign_plugin"] = st.foreign_plugin;
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

void print_status(const ig::ProviderStatus& st, std::ostream& out) {
  const std::string name(ig::provider_name(st.provider));
  out << name << ": ";
  if (st.foreign_plugin) out << "not installed (the file is another plugin)";
  else if (st.installed) out << (st.stale ? "installed, stale (install again to refresh)" : "installed");
  else if (!st.exists) out << "not installed (no file)";
  else if (st.provider == ig::Provider::Opencode) out << "not installed";
  else out << "not installed (missing: " << printable(joined(st.missing_events)) << ")";
  out << "\n  file: " << printable(st.file) << '\n';
}

// `changed` and `kept` say what happened, in the verb's words.
struct Wording {
  std::string_view changed, kept;
};
constexpr Wording kInstalled{"hooks installed in", "hooks already installed in"};
constexpr Wording kRemoved{"hooks removed from", "no signaltty hooks in"};

void print_outcome(const Wording& words, const ig::InstallOutcome& done, std::ostream& out) {
  out << ig::provider_name(done.provider) << ": " << (done.changed ? words.changed : words.kept) << ' '
      << printable(done.file) << '\n';
}

}  // namespace

IntegrationCommand::IntegrationCommand(CLI::App& parent) {
  group_ = parent.add_subcommand(
      "integration",
      "Write, remove or inspect signaltty's hooks in an agent's own config file "
      "(local: talks to no broker)");
  group_->require_subcommand(1);
  add_verb(Action::Install, "install",
           "Add or refresh signaltty's hooks for PROVIDER, keeping everything else in the file");
  add_verb(Action::Uninstall, "uninstall", "Remove signaltty's hooks for PROVIDER, and only those");
  add_verb(Action::Status, "status", "Say whether PROVIDER's config file holds signaltty's hooks");
}

void IntegrationCommand::add_verb(Action action, const char* name, const char* description) {
  CLI::App* app = group_->add_subcommand(name, description);
  std::vector<std::string> names;
  for (auto provider : ig::kProviders) names.emplace_back(ig::provider_name(provider));
  app->add_option("provider", provider_, "claude, codex, opencode or cursor")
      ->required()
      ->check(CLI::IsMember(names));
  app->add_option("--home", home_,
                  "use DIR as the home directory and ignore CLAUDE_CONFIG_DIR, CODEX_HOME and "
                  "OPENCODE_CONFIG_DIR (OpenCode still follows XDG_CONFIG_HOME)")
      ->type_name("DIR");
  verbs_.push_back({app, action});
}

bool IntegrationCommand::chosen() const { return group_->parsed(); }

int IntegrationCommand::run(std::optional<JsonStyle> json, const CliIo& io) const {
  auto verb = std::find_if(verbs_.begin(), verbs_.end(), [](const Verb& v) { return v.app->parsed(); });
  const auto provider = ig::provider_from_name(provider_);
  if (verb == verbs_.end() || !provider) return report(bad_params("no integration command given"), io);
  const ig::PathContext where{io.env, {}, home_.empty() ? std::nullopt : std::optional(home_),
                              current_directory()};
  auto file = ig::config_file_path(*provider, where);
  if (!file.ok()) return report(file.error(), io);
  auto reporter = ig::find_reporter(io.env);
  if (verb->action == Action::Status) {
    auto st = ig::status(*provider, *file, reporter.ok() ? std::optional(*reporter) : std::nullopt);
    if (!st.ok()) return report(st.error(), io);
    if (json) print_json(status_json(*st), json, io);
    else print_status(*st, io.out);
    return kExitOk;
  }
  if (verb->action == Action::Install && !reporter.ok()) return report(reporter.error(), io);
  auto done = verb->action == Action::Install ? ig::install(*provider, *file, *reporter)
                                              : ig::uninstall(*provider, *file);
  if (!done.ok()) return report(done.error(), io);
  const auto notice = verb->action == Action::Install ? notice_for(*done) : std::nullopt;
  if (json) print_json(outcome_json(*done, notice), json, io);
  else print_outcome(verb->action == Action::Install ? kInstalled : kRemoved, *done, io.out);
  if (notice && !json) io.err << "notice: " << *notice << '\n';
  return kExitOk;
}

}  // namespace signaltty::cli
