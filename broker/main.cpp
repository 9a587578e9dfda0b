// broker/main.cpp: signaltty-broker's command line (docs/rules.md, Broker
// process contract). Runs in: broker. Never: does work of its own.
#include <CLI/CLI.hpp>

#include <iostream>

#include "broker/paths.hpp"
#include "broker/server.hpp"
#include "common/io_fault.hpp"
#include "common/log.hpp"
#include "common/protocol/schema.hpp"
#include "common/tsan_options.hpp"
#include "common/version.hpp"

using namespace signaltty;

int main(int argc, char** argv) {
  CLI::App app{"signaltty-broker: the signaltty daemon (runs in the foreground, logs to stderr)"};
  broker::PathOverrides overrides;
  std::string level_name = "info";
  bool no_group_commit = false;
  std::size_t queue_cap = limits::kClientQueueCapBytes;
  app.add_option("--socket", overrides.socket_path, "socket path (default $XDG_RUNTIME_DIR/signaltty/signaltty.sock)");
  app.add_option("--state-dir", overrides.state_dir, "state directory (default $XDG_STATE_HOME/signaltty)");
  app.add_option("--config-dir", overrides.config_dir, "config directory (default $XDG_CONFIG_HOME/signaltty)");
  app.add_option("--agents-dir", overrides.agents_dir, "agent manifests (default $SIGNALTTY_AGENTS_DIR, else <config-dir>/agents)");
  app.add_option("--plugin-dir", overrides.plugin_dir, "executable plugins (default $SIGNALTTY_PLUGIN_DIR, else <config-dir>/plugins)");
  app.add_option("--log-level", level_name, "debug|info|warn|error")->check(CLI::IsMember({"debug", "info", "warn", "error"}));
  app.add_flag("--no-group-commit", no_group_commit, "one fsync per event (for measuring group commit)");
  app.add_option("--client-queue-cap-bytes", queue_cap, "bytes queued to a client before it is dropped")->check(CLI::Range(std::size_t{4096}, std::size_t{1} << 34));
  app.set_version_flag("--version", version_line("signaltty-broker"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : broker::kExitUsage;
  }

  broker::Config config;
  config.log_level = *log::parse_level(level_name);
  log::init("signaltty-broker", config.log_level);
  // Before any thread and any child: the seam is read once and unset.
  if (auto armed = io_fault::arm_from_environment(); !armed.ok()) {
    log::error("refusing to start: " + armed.error().message);
    return broker::kExitRefusedToStart;
  }
  auto paths = broker::resolve_paths(overrides);
  if (!paths.ok()) {
    log::error("refusing to start: " + paths.error().message);
    return broker::kExitRefusedToStart;
  }
  config.socket_path = paths->socket_path;
  config.runtime_dir = paths->runtime_dir;
  config.state_dir = paths->state_dir;
  config.config_dir = paths->config_dir;
  config.agents_dir = paths->agents_dir;
  config.plugin_dir = paths->plugin_dir;
  config.group_commit = no_group_commit ? broker::GroupCommit::Off : broker::GroupCommit::On;
  config.client_queue_cap_bytes = queue_cap;

  auto server = broker::Server::create(config);
  if (!server.ok()) {
    log::error("refusing to start: " + server.error().message);
    return broker::kExitRefusedToStart;
  }
  return (*server)->run();
}
