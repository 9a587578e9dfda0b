// broker/agents/detect.cpp: agent kind from spawn argv and each adapter's
// resume command (docs/rules.md "Agent detection and resume").
// Runs in: broker. Never: touches the file system.
#include "broker/agents/detect.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "common/limits.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::broker::agents {
namespace {

std::string_view basename_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_runtime(std::string_view program) {
  constexpr std::array<std::string_view, 6> kRuntimes{"node", "nodejs", "bun", "deno", "python",
                                                      "python3"};
  return std::find(kRuntimes.begin(), kRuntimes.end(), program) != kRuntimes.end();
}

std::string_view without_script_suffix(std::string_view name) {
  for (std::string_view suffix : {".js", ".mjs", ".cjs", ".ts", ".py"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix))
      return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

// The script a runtime runs: its first argument that is not an option
// (deno's `run` subcommand skipped).
std::optional<std::string_view> runtime_script(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg.empty() || arg.front() == '-' || arg == "run") continue;
    return arg;
  }
  return std::nullopt;
}

struct Adapter {
  AgentKind kind;
  std::string_view program;
  std::string_view resume_flag;  // before the session id
};
// The official resume commands (docs/rules.md "Agent detection and resume").
constexpr std::array<Adapter, 5> kAdapters{{
    {AgentKind::Codex, "codex", "resume"},
    {AgentKind::Claude, "claude", "--resume"},
    {AgentKind::Opencode, "opencode", "--session"},
    {AgentKind::Cursor, "cursor-agent", "--resume"},
    {AgentKind::Pi, "pi", "--session"},
}};

const Adapter* adapter_of(AgentKind kind) {
  for (const auto& adapter : kAdapters)
    if (adapter.kind == kind) return &adapter;
  return nullptr;
}

bool usable_session_id(std::string_view id) {
  if (id.empty() || id.size() > limits::kRecordStringMaxChars || id.front() == '-') return false;
  return std::none_of(id.begin(), id.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
}

}  // namespace

std::string program_name(const std::vector<std::string>& argv) {
  if (argv.empty()) return {};
  std::string_view program = basename_of(argv.front());
  if (!is_runtime(program)) return std::string(program);
  auto script = runtime_script(argv);
  if (!script) return std::string(program);
  return std::string(without_script_suffix(basename_of(*script)));
}

AgentKind kind_of_program(std::string_view program) {
  for (const auto& adapter : kAdapters)
    if (adapter.program == program) return adapter.kind;
  return AgentKind::Generic;
}

AgentKind detect_agent_kind(const std::vector<std::string>& argv,
                            const std::optional<std::string>& agent_hint) {
  if (agent_hint) {
    auto hinted = protocol::Codec<AgentKind>::decode(protocol::Json(*agent_hint), "agent_hint");
    return hinted.ok() ? *hinted : AgentKind::None;
  }
  return kind_of_program(program_name(argv));
}

std::optional<std::vector<std::string>> resume_argv(AgentKind kind, std::string_view session_id,
                                                    std::string_view launched) {
  const Adapter* adapter = adapter_of(kind);
  if (adapter == nullptr || !usable_session_id(session_id)) return std::nullopt;
  const bool keep_path =
      launched.find('/') != std::string_view::npos && basename_of(launched) == adapter->program;
  std::string command(keep_path ? launched : adapter->program);
  return std::vector<std::string>{std::move(command), std::string(adapter->resume_flag),
                                  std::string(session_id)};
}

}  // namespace signaltty::broker::agents
