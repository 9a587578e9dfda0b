// broker/git/git_launch.cpp: the gitworker request's codec, and starting
// the worker in the launcher.
// Runs in: the launcher; the codec also in the broker.
#include "broker/git/git_launch.hpp"

#include "broker/launcher.hpp"
#include "broker/launcher_process.hpp"
#include "common/protocol/gitworker_wire.hpp"

namespace signaltty::broker::git {

bool is_passable_dir(std::string_view dir) {
  return !dir.empty() && dir.front() == '/' && dir.size() <= kGitMaxPath &&
         dir.find('\n') == std::string_view::npos && dir.find('\0') == std::string_view::npos;
}

std::string encode_git_launch(const GitLaunch& launch) {
  std::string out = std::to_string(launch.deadline.count()) + "\n";
  for (const auto& dir : launch.read_dirs) out += "r " + dir + "\n";
  for (const auto& dir : launch.write_dirs) out += "w " + dir + "\n";
  return out;
}

std::optional<GitLaunch> decode_git_launch(std::string_view text) {
  GitLaunch out;
  auto line = [&text]() -> std::optional<std::string_view> {
    const auto newline = text.find('\n');
    if (newline == std::string_view::npos) return std::nullopt;
    std::string_view l = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    return l;
  };
  const auto first = line();
  std::int64_t ms = 0;
  if (!first || !parse_word(*first, ms) || ms <= 0) return std::nullopt;
  out.deadline = std::chrono::milliseconds(ms);
  while (!text.empty()) {
    const auto l = line();
    if (!l || l->size() < 3 || (*l)[1] != ' ') return std::nullopt;
    const std::string_view dir = l->substr(2);
    if (!is_passable_dir(dir)) return std::nullopt;
    if ((*l)[0] == 'r')
      out.read_dirs.emplace_back(dir);
    else if ((*l)[0] == 'w')
      out.write_dirs.emplace_back(dir);
    else
      return std::nullopt;
    if (out.read_dirs.size() + out.write_dirs.size() > kGitMaxDirs) return std::nullopt;
  }
  return out;
}

Result<pid_t> start_gitworker(const LauncherConfig& config, const GitLaunch& launch,
                              ChildPipes pipes) {
  namespace gw = protocol::gitworker;
  if (config.gitworker_path.empty())
    return Error{ErrorCode::SpawnFailed, "no gitworker path"};
  ChildSpec spec;
  spec.exe = config.gitworker_path;
  spec.argv = {"signaltty-gitworker"};
  for (const auto& dir : launch.read_dirs) {
    spec.argv.emplace_back(gw::kArgRead);
    spec.argv.push_back(dir);
  }
  for (const auto& dir : launch.write_dirs) {
    spec.argv.emplace_back(gw::kArgWrite);
    spec.argv.push_back(dir);
  }
  spec.dir = "/";
  spec.deadline = launch.deadline + kGitSupervisorGrace;
  spec.defaults = config.user_defaults;  // a new checkout's files get the user's umask
  spec.supervisor_name = "sigtty-git";
  spec.report_pid = true;
  return start_supervised(std::move(spec), std::move(pipes));
}

}  // namespace signaltty::broker::git
