// broker/launcher_process.hpp: the launcher's side (fork, its request loop,
// the double fork and exec of a ptyhost) and the messages of its channel
// (broker/launcher.hpp gives the format).
// Runs in: broker (fork_launcher, and the message codec for the client) and
// the launcher process, which never returns from its loop.
// Never: runs anything between fork and exec but async-signal-safe calls
// on data prepared before the fork.
#pragma once

#include <sys/types.h>

#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "broker/launcher.hpp"
#include "broker/plugins/hook_launch.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {

// Forks the launcher, which keeps only `channel` (as fd 3) and fds 0-2.
// Every signal is blocked across the fork; the launcher resets them.
Result<pid_t> fork_launcher(const LauncherConfig& config, UniqueFd channel);

// A ptyhost for `pane_id`, or (with `hook`) one plugin hook, whose four
// pipes come with the message as SCM_RIGHTS.
struct LaunchRequest {
  std::uint64_t id = 0;
  std::string pane_id;
  std::optional<plugins::HookLaunch> hook;
  std::optional<git::GitLaunch> git;
};
struct LaunchReply {
  std::uint64_t id = 0;
  Result<pid_t> outcome = Error{ErrorCode::Internal, "unset"};
};

// Runs `grandchild` in a grandchild of the caller, so that nobody has to
// reap it: it must write its pid (a pid_t) on `report_fd`, then exec (the
// pipe closes) or close the pipe itself, or write an errno and exit. Its pid
// once it did, or why not. The caller must be single-threaded.
Result<pid_t> run_detached(const std::function<void(int report_fd)>& grandchild);

// Closes every fd from `first` up.
void close_fds_from(int first);

// The PATH a ptyhost gets, and a hook's when its environment has none.
inline constexpr std::string_view kDefaultPathList = "/usr/local/bin:/usr/bin:/bin";

// The channel's words: the text up to the first space (`rest` moves past
// it), and a whole word as an integer.
std::string_view take_word(std::string_view& rest);
template <class Int>
bool parse_word(std::string_view word, Int& out, int base = 10) {
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out, base);
  return ec == std::errc() && end == word.data() + word.size();
}

std::string encode_launch_request(const LaunchRequest& request);
std::optional<LaunchRequest> decode_launch_request(std::string_view message);
std::string encode_launch_reply(const LaunchReply& reply);
std::optional<LaunchReply> decode_launch_reply(std::string_view message);

}  // namespace signaltty::broker
