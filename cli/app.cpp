// cli/app.cpp: builds the command tree from the method table and runs the
// chosen command. Runs in: CLI. Never: names a method; the table does.
#include "cli/app.hpp"

#include <algorithm>
#include <stdexcept>

#include "cli/agent_context.hpp"
#include "cli/audit_command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/human_output.hpp"
#include "cli/plugin_command.hpp"
#include "cli/skill_command.hpp"
#include "common/protocol/schema.hpp"
#include "common/version.hpp"

namespace signaltty::cli {
namespace {

constexpr const char* kDescription =
    "signaltty: talk to signaltty-broker. Each command is one signaltty/1 method call; "
    "--json prints the method's result verbatim.";

// The method's last name component as the table spells it ("set_layout").
std::string raw_last_word(const std::string& method) {
  return method.substr(method.rfind('.') + 1);
}

int fail(std::ostream& err, const Error& error) {
  err << error_line(error) << '\n';
  return exit_code_for(error);
}

}  // namespace

Cli::Cli() : app_(kDescription, "signaltty") {
  app_.footer(exit_status_footer());
  app_.fallthrough();  // global options may follow the command words
  app_.require_subcommand(1);
  add_global_options();
  const std::vector<CommandSpec> specs = command_specs(protocol::build_schema().methods);
  for (const auto& spec : specs) add_generated(spec);
  add_shortcuts(specs);
  events_ = std::make_unique<EventsCommand>(app_);
  new_ = std::make_unique<NewCommand>(app_);
  attach_ = std::make_unique<AttachCommand>(app_);
  skill_ = std::make_unique<SkillCommand>(app_);
  integration_ = std::make_unique<IntegrationCommand>(app_);
  audit_ = std::make_unique<AuditCommand>(app_);
  plugin_run_ = std::make_unique<PluginRunCommand>(*groups_.at("plugin"));
  pane_commands_ = std::make_unique<PaneCommands>(*groups_.at("pane"),
                                                  generated(protocol::PaneInput::name),
                                                  generated(protocol::PaneWaitForOutput::name));
  agent_context_ = std::make_unique<AgentContext>(generated(protocol::Notify::name),
                                                  generated(protocol::HookEvent::name));
}

Cli::~Cli() = default;

const CommandBinding& Cli::generated(std::string_view method) const {
  auto it = std::find_if(commands_.begin(), commands_.end(),
                         [&](const CommandBinding& c) { return c.spec().method == method; });
  if (it == commands_.end()) throw std::logic_error("no generated command for " + std::string(method));
  return *it;
}

std::optional<JsonStyle> Cli::json_style() const {
  if (pretty_) return JsonStyle::Pretty;
  if (json_) return JsonStyle::OneLine;
  return std::nullopt;
}

void Cli::add_global_options() {
  app_.add_option("--socket", socket_flag_,
                  "broker socket (default: $SIGNALTTY_SOCKET, else "
                  "$XDG_RUNTIME_DIR/signaltty/signaltty.sock, else "
                  "/tmp/signaltty-$UID/signaltty.sock)");
  app_.add_flag("--json", json_, "print the method's result verbatim as one JSON line");
  app_.add_flag("--pretty", pretty_, "like --json, indented");
  app_.set_version_flag("--version", version_line("signaltty"));
}

void Cli::add_generated(const CommandSpec& spec) {
  CLI::App& parent = group_for(spec.words);
  auto& command = commands_.emplace_back(parent, spec.words.back(), spec);
  if (std::string raw = raw_last_word(spec.method); raw != spec.words.back())
    command.app().alias(raw);
}

void Cli::add_shortcuts(const std::vector<CommandSpec>& specs) {
  for (const auto& shortcut : kShortcuts) {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const CommandSpec& s) { return s.method == shortcut.method; });
    if (spec == specs.end()) continue;
    commands_.emplace_back(app_, std::string(shortcut.word), *spec).app().group("Shortcuts");
  }
}

// The CLI11 node holding a method's command: the root for one-word methods,
// else one group per leading word ("workspace", "tab", ...).
CLI::App& Cli::group_for(const std::vector<std::string>& words) {
  CLI::App* node = &app_;
  std::string path;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    path += (path.empty() ? "" : ".") + words[i];
    auto [it, fresh] = groups_.try_emplace(path, nullptr);
    if (fresh) {
      it->second = node->add_subcommand(words[i], words[i] + " commands");
      it->second->require_subcommand(1);
    }
    node = it->second;
  }
  return *node;
}

std::optional<int> Cli::parse(int argc, const char* const argv[], std::ostream& out,
                              std::ostream& err) {
  try {
    app_.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    const int status = app_.exit(e, out, err);
    return status == static_cast<int>(CLI::ExitCodes::Success) ? kExitOk : kExitUsage;
  }
}

const CommandBinding* Cli::chosen_command() const {
  for (const auto& command : commands_)
    if (command.chosen()) return &command;
  return nullptr;
}

int Cli::execute(const CliIo& io) {
  if (integration_->chosen()) return integration_->run(json_style(), io);
  if (audit_->chosen()) return audit_->run(json_style(), io);
  const std::string socket_path = resolve_socket_path(socket_flag_, io.env, io.uid);
  if (new_->chosen()) return new_->run(socket_path, json_style(), io);
  if (attach_->chosen()) return attach_->run(socket_path, io);
  if (skill_->chosen()) return skill_->run(io.out);
  const CommandBinding* command = chosen_command();
  if (command == nullptr && !events_chosen() && !pane_commands_->chosen() &&
      !plugin_run_->chosen()) {
    io.err << "error: no command given; see --help\n";
    return kExitUsage;
  }
  auto client = Client::connect(socket_path, io.uid);
  if (!client.ok()) return fail(io.err, client.error());
  if (pane_commands_->chosen()) return pane_commands_->run(*client, json_style(), io);
  if (plugin_run_->chosen()) return plugin_run_->run(*client, socket_path, io);
  if (command == nullptr) return stream_events(*client, events_->params(), io.out, io.err);
  return run_method(*command, *client, io);
}

int Cli::run_method(const CommandBinding& command, Client& client, const CliIo& io) {
  auto params = pane_commands_->params_for(command, io);
  if (params.ok()) params = agent_context_->complete(command, std::move(*params), io);
  if (!params.ok()) {
    const int status = fail(io.err, params.error());
    return params.error().code == ErrorCode::BadParams ? kExitUsage : status;
  }
  auto result = client.call(command.spec().method, *params);
  if (!result.ok()) return fail(io.err, result.error());
  if (json_ || pretty_) {
    render_json(*result, pretty_ ? JsonStyle::Pretty : JsonStyle::OneLine, io.out);
  } else if (agent_context_->quiet_stdout(command)) {
    if (auto verdict = AgentContext::verdict_of(*result)) io.out << *verdict << '\n';
    render_human(command.spec().method, *result, io.err);
  } else {
    render_human(command.spec().method, *result, io.out);
  }
  io.out.flush();
  return kExitOk;
}

int run_cli(int argc, const char* const argv[], const CliIo& io) {
  Cli cli;
  if (auto status = cli.parse(argc, argv, io.out, io.err)) return *status;
  return cli.execute(io);
}

}  // namespace signaltty::cli
