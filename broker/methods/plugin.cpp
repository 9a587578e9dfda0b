// broker/methods/plugin.cpp: plugin.list and plugin.reload (docs/plugins.md).
// Runs in: broker (io thread). Never: runs a hook; a reload scans the plugin
// dir again and resets every statistic, and a running hook finishes with
// the set it started from.
#include "broker/handlers.hpp"
#include "broker/plugins/hook_runner.hpp"

namespace signaltty::broker {

Result<p::PluginListResult> handle(p::PluginList, Ctx& ctx, p::Empty&&) {
  return ctx.services.hooks.registry().describe();
}

Result<p::PluginListResult> handle(p::PluginReload, Ctx& ctx, p::Empty&&) {
  return ctx.services.hooks.reload();
}

}  // namespace signaltty::broker
