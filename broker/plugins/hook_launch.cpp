// broker/plugins/hook_launch.cpp: loading, checking and starting one hook
// in the launcher; the hook's supervisor; the status line it writes.
// Runs in: the launcher, the supervisor, the hook-to-be; the codecs and
// hook_outcome also in the broker.
#include "broker/plugins/hook_launch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>

#include "broker/launcher_process.hpp"
#include "broker/plugins/plugin_registry.hpp"
#include "common/child_signals.hpp"
#include "common/fs.hpp"
#include "common/protocol/events.hpp"

extern char** environ;

namespace signaltty::broker::plugins {
namespace {

// Where the supervisor keeps the hook's pipes: fds 0-2 are /dev/null.
constexpr int kSupStdin = 3;
constexpr int kSupStdout = 4;
constexpr int kSupStderr = 5;
constexpr int kSupStatus = 6;
constexpr int kExitExecFailed = 127;

// Steps of the hook-to-be that can fail before exec, as reported.
enum class Step : int { Chdir = 1, Execve = 2 };

// A declared event's name (not a glob).
bool is_event_name(std::string_view name) {
  return name.find('*') == std::string_view::npos && protocol::is_event_selector(name);
}

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

Error spawn_error(std::string message) { return Error{ErrorCode::SpawnFailed, std::move(message)}; }

// What the supervisor and the hook-to-be need, all prepared before the
// fork: nothing after it allocates for a decision.
struct PreparedHook {
  std::string exe;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string dir;
  std::uint32_t timeout_secs = 0;
  UserProcessDefaults defaults;
};

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// In the hook-to-be, forked by the supervisor: its own session and
// process group, the user's umask and core limit, the pipes on 0-2, the
// failure report on 3 (closed by exec), nothing else.
[[noreturn]] void exec_hook(PreparedHook& hook, int failure_fd) {
  ::setsid();
  reset_signals_in_child();
  ::umask(hook.defaults.umask);
  ::setrlimit(RLIMIT_CORE, &hook.defaults.core_limit);
  ::dup2(kSupStdin, STDIN_FILENO);
  ::dup2(kSupStdout, STDOUT_FILENO);
  ::dup2(kSupStderr, STDERR_FILENO);
  ::dup3(failure_fd, 3, O_CLOEXEC);
  close_fds_from(4);
  auto report = [](Step step) {
    const int failure[2] = {static_cast<int>(step), errno};
    if (::write(3, failure, sizeof failure) != sizeof failure) ::_exit(kExitExecFailed);
    ::_exit(kExitExecFailed);
  };
  if (::chdir(hook.dir.c_str()) != 0) report(Step::Chdir);
  std::vector<char*> argv = pointers(hook.argv);
  std::vector<char*> envp = pointers(hook.env);
  ::execve(hook.exe.c_str(), argv.data(), envp.data());
  report(Step::Execve);
  ::_exit(kExitExecFailed);
}

// Waits for `child` until `deadline`; past it kills its whole group.
HookEnd await_hook(pid_t child, std::uint32_t timeout_secs) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_secs);
  const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, child, 0)));
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(child, &status, WNOHANG);
    if (r == child) break;
    if (r < 0 && errno != EINTR) return {HookEnd::Kind::SpawnFailed, errno, "waitpid"};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      ::kill(-child, SIGKILL);  // the group: whatever the hook started too
      ::kill(child, SIGKILL);   // in case it had not made its group yet
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      return {HookEnd::Kind::TimedOut, static_cast<int>(timeout_secs), {}};
    }
    pollfd p{pidfd.get(), POLLIN, 0};
    // Without a pidfd (an old kernel), look again every 50 ms.
    const int wait_ms = pidfd ? static_cast<int>(left.count()) : std::min<int>(50, left.count());
    ::poll(pidfd ? &p : nullptr, pidfd ? 1 : 0, wait_ms);
  }
  if (WIFSIGNALED(status)) return {HookEnd::Kind::Signaled, WTERMSIG(status), {}};
  return {HookEnd::Kind::Exited, WEXITSTATUS(status), {}};
}

// The supervisor, in a grandchild of the launcher: reports its pid on
// `report_fd`, starts the hook, waits, writes how it ended, exits.
[[noreturn]] void supervise(PreparedHook& hook, HookPipes& pipes, int report_fd) {
  ::setsid();
  reset_signals_in_child();
  ::signal(SIGPIPE, SIG_IGN);  // a broker gone: the status write fails, no more
  ::prctl(PR_SET_NAME, "sigtty-hook", 0, 0, 0);
  const pid_t self = ::getpid();
  if (::write(report_fd, &self, sizeof self) != sizeof self) ::_exit(1);
  // The pipes to 3..6 through copies above them (they may sit anywhere,
  // 3..6 included); then nothing else stays open, the launcher's channel
  // least of all.
  std::array<int, kHookPipeCount> high{};
  for (std::size_t i = 0; i < kHookPipeCount; ++i) {
    high[i] = ::fcntl(pipes[i].get(), F_DUPFD_CLOEXEC, 64);
    if (high[i] < 0) ::_exit(1);
  }
  for (std::size_t i = 0; i < kHookPipeCount; ++i)
    if (::dup3(high[i], kSupStdin + static_cast<int>(i), O_CLOEXEC) < 0) ::_exit(1);
  for (auto& pipe : pipes) (void)pipe.release();  // closed below, by number
  close_fds_from(kSupStatus + 1);
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0)
    for (int fd = 0; fd <= 2; ++fd) ::dup2(devnull, fd);
  if (devnull > kSupStatus) ::close(devnull);

  int failure[2];
  if (::pipe2(failure, O_CLOEXEC) != 0) {
    const HookEnd failed{HookEnd::Kind::SpawnFailed, errno, "pipe2"};
    (void)fs::write_all(kSupStatus, encode_hook_end(failed), "the status pipe");
    ::_exit(0);
  }
  const pid_t child = ::fork();
  if (child == 0) exec_hook(hook, failure[1]);
  ::close(failure[1]);
  // The hook holds its stdio now; ours would keep the broker from seeing EOF.
  ::close(kSupStdin);
  ::close(kSupStdout);
  ::close(kSupStderr);
  HookEnd end;
  if (child < 0) {
    end = {HookEnd::Kind::SpawnFailed, errno, "fork"};
  } else {
    int report[2] = {0, 0};
    ssize_t n;
    while ((n = ::read(failure[0], report, sizeof report)) < 0 && errno == EINTR) {
    }
    if (n == sizeof report) {
      int ignored = 0;
      while (::waitpid(child, &ignored, 0) < 0 && errno == EINTR) {
      }
      const bool chdir_failed = report[0] == static_cast<int>(Step::Chdir);
      end = {HookEnd::Kind::SpawnFailed, report[1],
             chdir_failed ? "chdir " + hook.dir : "execve " + hook.exe};
    } else {
      end = await_hook(child, hook.timeout_secs);
    }
  }
  (void)fs::write_all(kSupStatus, encode_hook_end(end), "the status pipe");
  ::_exit(0);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::uint64_t hook_fingerprint(const PluginHook& hook) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  auto field = [&hash](std::string_view bytes) {
    hash = fnv1a(hash, bytes);
    hash = fnv1a(hash, std::string_view("\0", 1));
  };
  for (const auto& event : hook.events) field(event);
  field("\x1e");
  for (const auto& arg : hook.command) field(arg);
  field("\x1e");
  field(std::to_string(hook.timeout_secs));
  for (const auto& [name, value] : hook.env) {
    field(name);
    field(value);
  }
  return hash;
}

std::string encode_hook_launch(const HookLaunch& launch) {
  char hex[17];
  auto [end, ec] = std::to_chars(hex, hex + sizeof hex, launch.fingerprint, 16);
  (void)ec;
  return launch.plugin + " " + std::to_string(launch.hook_index) + " " + std::string(hex, end) +
         " " + launch.event;
}

std::optional<HookLaunch> decode_hook_launch(std::string_view text) {
  HookLaunch out;
  out.plugin = std::string(take_word(text));
  if (!is_plugin_name(out.plugin)) return std::nullopt;
  if (!parse_word(take_word(text), out.hook_index) || out.hook_index >= kPluginMaxHooks)
    return std::nullopt;
  if (!parse_word(take_word(text), out.fingerprint, 16)) return std::nullopt;
  if (!is_event_name(text)) return std::nullopt;
  out.event = std::string(text);
  return out;
}

std::vector<std::string> hook_environment(std::span<const std::string> base, const Plugin& plugin,
                                          const PluginHook& hook, std::string_view socket_path,
                                          std::string_view event) {
  std::map<std::string, std::string, std::less<>> vars;
  std::vector<std::string> order;  // the base's order, then new names as set
  auto set = [&](std::string_view name, std::string_view value) {
    auto [it, fresh] = vars.try_emplace(std::string(name));
    if (fresh) order.push_back(it->first);
    it->second = value;
  };
  for (const std::string& entry : base) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    set(std::string_view(entry).substr(0, eq), std::string_view(entry).substr(eq + 1));
  }
  set("SIGNALTTY_SOCKET", socket_path);
  set("SIGNALTTY_EVENT", event);
  set("SIGNALTTY_PLUGIN_DIR", plugin.dir);
  set("SIGNALTTY_PLUGIN_NAME", plugin.name);
  for (const auto& [name, value] : hook.env) set(name, value);
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const std::string& name : order) out.push_back(name + "=" + vars.find(name)->second);
  return out;
}

Result<std::string> find_executable(std::string_view argv0, std::string_view path_list,
                                    const std::string& cwd) {
  if (argv0.find('/') != std::string_view::npos) return std::string(argv0);
  for (;;) {
    const auto colon = path_list.find(':');
    std::string dir(path_list.substr(0, colon));
    if (dir.empty()) dir = cwd;
    const std::string candidate = dir + "/" + std::string(argv0);
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    path_list.remove_prefix(colon + 1);
  }
  return spawn_error(std::string(argv0) + ": command not found in PATH");
}

Result<pid_t> start_hook(const LauncherConfig& config, const HookLaunch& launch, HookPipes pipes) {
  for (const auto& pipe : pipes)
    if (!pipe) return spawn_error("the request came without its four pipes");
  if (config.plugin_dir.empty()) return spawn_error("no plugin dir");
  auto loaded = load_plugin(config.plugin_dir, launch.plugin);
  if (!loaded.ok()) return spawn_error("plugin " + launch.plugin + ": " + loaded.error().message);
  const Plugin& plugin = *loaded;
  if (launch.hook_index >= plugin.hooks.size() ||
      hook_fingerprint(plugin.hooks[launch.hook_index]) != launch.fingerprint)
    return spawn_error("plugin " + launch.plugin +
                       ": plugin.toml changed since it was loaded; run `signaltty plugin reload`");
  const PluginHook& hook = plugin.hooks[launch.hook_index];

  std::vector<std::string> base;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
    base.emplace_back(*entry);
  PreparedHook prepared;
  prepared.env = hook_environment(base, plugin, hook, config.broker_socket, launch.event);
  std::string_view path_list = kDefaultPathList;
  for (const std::string& entry : prepared.env)
    if (std::string_view(entry).starts_with("PATH=")) path_list = std::string_view(entry).substr(5);
  SIGNALTTY_TRY(prepared.exe, find_executable(hook.command.front(), path_list, plugin.dir));
  prepared.argv = hook.command;
  prepared.dir = plugin.dir;
  prepared.timeout_secs = hook.timeout_secs;
  prepared.defaults = config.user_defaults;
  return run_detached([&prepared, &pipes](int report_fd) { supervise(prepared, pipes, report_fd); });
}

std::string encode_hook_end(const HookEnd& end) {
  switch (end.kind) {
    case HookEnd::Kind::Exited: return "exit " + std::to_string(end.value);
    case HookEnd::Kind::Signaled: return "signal " + std::to_string(end.value);
    case HookEnd::Kind::TimedOut: return "timeout " + std::to_string(end.value);
    case HookEnd::Kind::SpawnFailed:
      return "spawn " + std::to_string(end.value) + " " + end.what;
  }
  return "spawn 0 unknown";
}

std::optional<HookEnd> decode_hook_end(std::string_view text) {
  HookEnd out;
  const std::string_view kind = take_word(text);
  if (kind == "spawn") {
    out.kind = HookEnd::Kind::SpawnFailed;
    if (!parse_word(take_word(text), out.value)) return std::nullopt;
    out.what = std::string(text);
    return out;
  }
  if (kind == "exit")
    out.kind = HookEnd::Kind::Exited;
  else if (kind == "signal")
    out.kind = HookEnd::Kind::Signaled;
  else if (kind == "timeout")
    out.kind = HookEnd::Kind::TimedOut;
  else
    return std::nullopt;
  if (!parse_word(text, out.value) || out.value < 0) return std::nullopt;
  return out;
}

Status hook_outcome(const HookEnd& end, std::uint32_t timeout_secs, std::string_view stderr_text) {
  std::string err(stderr_text);
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ' || err.back() == '\r'))
    err.pop_back();
  const std::string quoted = err.empty() ? "" : ": " + err;
  switch (end.kind) {
    case HookEnd::Kind::Exited:
      if (end.value == 0) return {};
      return Error{ErrorCode::IoError, "exit " + std::to_string(end.value) + quoted};
    case HookEnd::Kind::Signaled:
      return Error{ErrorCode::IoError, "signal " + std::to_string(end.value) + quoted};
    case HookEnd::Kind::TimedOut:
      return Error{ErrorCode::Timeout, "timed out after " + std::to_string(timeout_secs) + "s"};
    case HookEnd::Kind::SpawnFailed:
      return Error::from_errno(ErrorCode::SpawnFailed, end.what, end.value);
  }
  return Error{ErrorCode::Internal, "unknown hook end"};
}

}  // namespace signaltty::broker::plugins
