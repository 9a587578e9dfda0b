// common/protocol/methods/plugin.hpp: plugin.list and plugin.reload
// (docs/plugins.md).
// Runs in: every process. Never: runs a plugin; the broker's hook runner does.
#pragma once

#include "common/protocol/method_decl.hpp"

namespace signaltty::protocol {

struct PluginHookInfo {
  std::vector<std::string> events;
  std::vector<std::string> command;
  std::uint32_t timeout_secs = 0;
  std::uint64_t runs = 0;
  std::uint64_t errors = 0;
  Nullable<std::string> last_error;
  Nullable<std::string> last_run;
  static constexpr auto fields() {
    using H = PluginHookInfo;
    return std::tuple{req("events", &H::events, "event names or globs"),
                      req("command", &H::command, "argv"), req("timeout_secs", &H::timeout_secs),
                      req("runs", &H::runs, "finished firings since the last (re)load"),
                      req("errors", &H::errors), opt("last_error", &H::last_error),
                      opt("last_run", &H::last_run, "RFC 3339 time, null before any run")};
  }
};

struct PluginCommandInfo {
  std::string name;
  Nullable<std::string> description;
  std::vector<std::string> run;
  static constexpr auto fields() {
    using C = PluginCommandInfo;
    return std::tuple{req("name", &C::name), opt("description", &C::description),
                      req("run", &C::run, "argv, run by the CLI, not the server")};
  }
};

struct PluginInfo {
  std::string name;
  std::string version;
  Nullable<std::string> description;
  std::string dir;
  std::vector<PluginHookInfo> hooks;
  std::vector<PluginCommandInfo> commands;
  static constexpr auto fields() {
    using P = PluginInfo;
    return std::tuple{req("name", &P::name), req("version", &P::version),
                      opt("description", &P::description), req("dir", &P::dir),
                      req("hooks", &P::hooks), req("commands", &P::commands)};
  }
};

struct PluginFailure {
  std::string dir;
  std::string error;
  static constexpr auto fields() {
    return std::tuple{req("dir", &PluginFailure::dir), req("error", &PluginFailure::error)};
  }
};

struct PluginListResult {
  std::string dir;
  std::vector<PluginInfo> plugins;
  std::vector<PluginFailure> failures;
  static constexpr auto fields() {
    using R = PluginListResult;
    return std::tuple{req("dir", &R::dir), req("plugins", &R::plugins),
                      req("failures", &R::failures, "packages that failed to load, alone")};
  }
};

using PluginList = MethodDecl<"plugin.list", "List plugins, their hooks and run statistics",
                              Empty, PluginListResult, kNoFlags>;
using PluginReload =
    MethodDecl<"plugin.reload", "Re-scan the plugin directory, resetting statistics", Empty,
               PluginListResult, kMutating>;

}  // namespace signaltty::protocol
