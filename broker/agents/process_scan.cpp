// broker/agents/process_scan.cpp: the /proc reads and the walk of
// process_scan.hpp. Each process's files are read through one open
// /proc/<pid> directory, so they all describe the same process: once it is
// reaped, reads under that directory fail even if the pid is reused.
// Runs in: broker (the live process refresh).
// Never: opens a file with a symlink as its last component, or holds more
// than one capped buffer per read.
#include "broker/agents/process_scan.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <memory>
#include <span>
#include <utility>

#include "broker/agents/detect.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker::agents {
namespace {

// Fields of a stat line after the comm, counted from the state (field 3).
constexpr std::size_t kStateField = 0;
constexpr std::size_t kPpidField = 1;
constexpr std::size_t kPgidField = 2;
constexpr std::size_t kTtyPgidField = 5;
constexpr std::size_t kStartTimeField = 19;
constexpr std::size_t kStatFieldsNeeded = kStartTimeField + 1;

constexpr std::string_view kDeletedSuffix = " (deleted)";

template <typename Number>
std::optional<Number> parse_number(std::string_view text) {
  Number value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Splits the space-separated fields after the comm, at most `count` of them.
std::vector<std::string_view> leading_fields(std::string_view rest, std::size_t count) {
  std::vector<std::string_view> fields;
  while (fields.size() < count) {
    auto start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    auto end = std::min(rest.find_first_of(" \n"), rest.size());
    fields.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  return fields;
}

std::string_view basename_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// program_name(argv), with a login shell's leading '-' ("-bash") dropped.
std::string program_of(std::vector<std::string> argv) {
  if (!argv.empty() && argv.front().starts_with('-')) argv.front().erase(0, 1);
  return program_name(argv);
}

bool is_one_of(std::string_view name, std::span<const std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

constexpr std::array<std::string_view, 17> kShells{
    "sh",   "ash",  "dash", "bash", "rbash", "zsh",   "ksh",    "mksh", "oksh",
    "yash", "fish", "tcsh", "csh",  "nu",    "xonsh", "elvish", "pwsh"};
constexpr std::array<std::string_view, 18> kWrappers{
    "env",    "nohup", "nice", "ionice", "chrt",    "taskset", "timeout", "time", "stdbuf",
    "setsid", "sudo",  "doas", "su",     "runuser", "npx",     "pnpx",    "bunx", "uvx"};
constexpr std::array<std::string_view, 3> kPackageManagers{"npm", "pnpm", "yarn"};
constexpr std::array<std::string_view, 3> kRunSubcommands{"exec", "x", "dlx"};

// The first operand after the one that names `program`: `npm exec`'s
// "exec", also when npm runs as `node /usr/bin/npm exec`.
std::optional<std::string_view> subcommand_of(const std::vector<std::string>& argv,
                                              std::string_view program) {
  bool named = basename_of(argv.front()) == program;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg.empty() || arg.front() == '-') continue;
    if (named) return arg;
    named = true;
  }
  return std::nullopt;
}

// Reads `name` under `dir_fd` into `buffer`, never through a symlink.
// nullopt when it cannot be opened or read; a result as long as the buffer
// means the file may go on.
std::optional<std::string_view> read_into(int dir_fd, const char* name, std::span<char> buffer) {
  UniqueFd fd(::openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return std::nullopt;
  std::size_t got = 0;
  while (got < buffer.size()) {
    ssize_t n = ::read(fd.get(), buffer.data() + got, buffer.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return std::string_view(buffer.data(), got);
}

UniqueFd open_directory(const std::filesystem::path& path) {
  return UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

UniqueFd open_pid_dir(int root_fd, pid_t pid) {
  return UniqueFd(::openat(root_fd, std::to_string(pid).c_str(),
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

std::optional<ProcessStat> read_stat(int pid_dir_fd, pid_t pid) {
  std::array<char, kStatMaxBytes + 1> buffer;
  auto text = read_into(pid_dir_fd, "stat", buffer);
  if (!text || text->size() > kStatMaxBytes) return std::nullopt;
  auto stat = parse_stat(*text);
  if (!stat || stat->pid != pid) return std::nullopt;
  return stat;
}

// argv from NUL-separated cmdline bytes. Cut past kCmdlineMaxBytes, the
// unterminated last argument is dropped rather than kept half.
std::vector<std::string> split_cmdline(std::string_view bytes) {
  const bool cut = bytes.size() > kCmdlineMaxBytes;
  if (cut) bytes = bytes.substr(0, kCmdlineMaxBytes);
  std::vector<std::string> argv;
  while (!bytes.empty() && argv.size() < kCmdlineMaxArgs) {
    auto nul = bytes.find('\0');
    if (nul == std::string_view::npos && cut) break;
    argv.emplace_back(bytes.substr(0, nul));
    bytes.remove_prefix(nul == std::string_view::npos ? bytes.size() : nul + 1);
  }
  return argv;
}

std::optional<std::vector<std::string>> read_argv(int pid_dir_fd) {
  std::array<char, kCmdlineMaxBytes + 1> buffer;
  auto bytes = read_into(pid_dir_fd, "cmdline", buffer);
  if (!bytes) return std::nullopt;
  return split_cmdline(*bytes);
}

std::optional<std::string> read_cwd(int pid_dir_fd) {
  std::array<char, PATH_MAX> buffer;
  ssize_t n = ::readlinkat(pid_dir_fd, "cwd", buffer.data(), buffer.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= buffer.size()) return std::nullopt;
  std::string_view target(buffer.data(), static_cast<std::size_t>(n));
  if (target.front() != '/' || target.ends_with(kDeletedSuffix)) return std::nullopt;
  return std::string(target);
}

std::optional<ProcessInfo> read_process_at(int root_fd, pid_t pid) {
  UniqueFd dir = open_pid_dir(root_fd, pid);
  if (!dir) return std::nullopt;
  auto stat = read_stat(dir.get(), pid);
  if (!stat) return std::nullopt;
  auto argv = read_argv(dir.get());
  if (!argv) return std::nullopt;  // reaped since the stat read
  ProcessInfo info{.pid = pid, .start_time = stat->start_time, .argv = std::move(*argv)};
  info.program = info.argv.empty() ? std::string() : program_of(info.argv);
  if (info.program.empty()) info.program = stat->comm;
  info.cwd = read_cwd(dir.get());
  return info;
}

std::optional<pid_t> pid_of_entry(std::string_view name) {
  auto pid = parse_number<pid_t>(name);
  if (!pid || *pid <= 0) return std::nullopt;
  return pid;
}

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

// The child the walk passes to from `parent`, see foreground_program.
std::optional<pid_t> next_in_walk(const ProcessTable& table, const ProcessStat& parent,
                                  pid_t fg_pgid, Transparency parent_is) {
  std::optional<pid_t> newest;
  std::optional<pid_t> newest_in_foreground;
  for (pid_t pid : table.children_of(parent.pid)) {
    const ProcessStat* child = table.find(pid);
    if (child == nullptr || child->exited() || child->pid == parent.pid ||
        child->start_time < parent.start_time)
      continue;
    newest = pid;
    if (fg_pgid > 0 && child->pgid == fg_pgid) newest_in_foreground = pid;
  }
  if (newest_in_foreground) return newest_in_foreground;
  const bool shell_at_prompt =
      fg_pgid > 0 && parent_is == Transparency::Shell && parent.pgid == fg_pgid;
  return shell_at_prompt ? std::nullopt : newest;
}

}  // namespace

std::optional<ProcessStat> parse_stat(std::string_view line) {
  const auto open = line.find(" (");
  const auto close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open + 2)
    return std::nullopt;
  auto fields = leading_fields(line.substr(close + 1), kStatFieldsNeeded);
  if (fields.size() < kStatFieldsNeeded || fields[kStateField].size() != 1) return std::nullopt;
  auto pid = parse_number<pid_t>(line.substr(0, open));
  auto ppid = parse_number<pid_t>(fields[kPpidField]);
  auto pgid = parse_number<pid_t>(fields[kPgidField]);
  auto tty_pgid = parse_number<pid_t>(fields[kTtyPgidField]);
  auto start_time = parse_number<std::uint64_t>(fields[kStartTimeField]);
  if (!pid || !ppid || !pgid || !tty_pgid || !start_time || *pid <= 0 || *ppid < 0 || *pgid < 0)
    return std::nullopt;
  std::string_view comm = line.substr(open + 2, close - open - 2);
  return ProcessStat{.pid = *pid,
                     .ppid = *ppid,
                     .pgid = *pgid,
                     .tty_pgid = *tty_pgid,
                     .state = fields[kStateField].front(),
                     .start_time = *start_time,
                     .comm = std::string(comm.substr(0, kCommMaxBytes))};
}

ProcessTable::ProcessTable(std::vector<ProcessStat> entries, std::filesystem::path proc_root)
    : by_pid_(std::move(entries)), proc_root_(std::move(proc_root)) {
  std::ranges::sort(by_pid_, {}, &ProcessStat::pid);
  auto duplicates = std::ranges::unique(by_pid_, {}, &ProcessStat::pid);
  by_pid_.erase(duplicates.begin(), duplicates.end());
  by_parent_.reserve(by_pid_.size());
  for (const auto& entry : by_pid_) by_parent_.push_back({entry.ppid, entry.start_time, entry.pid});
  std::ranges::sort(by_parent_);
}

ProcessTable ProcessTable::read(const std::filesystem::path& proc_root) {
  std::vector<ProcessStat> entries;
  std::unique_ptr<DIR, DirCloser> dir(::opendir(proc_root.c_str()));
  if (!dir) return ProcessTable({}, proc_root);
  const int root_fd = ::dirfd(dir.get());
  while (entries.size() < kProcessTableMaxEntries) {
    const dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) break;
    auto pid = pid_of_entry(entry->d_name);
    if (!pid) continue;
    UniqueFd pid_dir = open_pid_dir(root_fd, *pid);
    if (!pid_dir) continue;  // gone since readdir
    if (auto stat = read_stat(pid_dir.get(), *pid)) entries.push_back(std::move(*stat));
  }
  return ProcessTable(std::move(entries), proc_root);
}

const ProcessStat* ProcessTable::find(pid_t pid) const {
  auto it = std::ranges::lower_bound(by_pid_, pid, {}, &ProcessStat::pid);
  return it != by_pid_.end() && it->pid == pid ? &*it : nullptr;
}

std::vector<pid_t> ProcessTable::children_of(pid_t pid) const {
  auto children = std::ranges::equal_range(by_parent_, pid, {}, &ChildKey::ppid);
  std::vector<pid_t> pids;
  pids.reserve(children.size());
  for (const auto& child : children) pids.push_back(child.pid);
  return pids;
}

Transparency transparency_of(const std::vector<std::string>& argv) {
  if (argv.empty()) return Transparency::Program;
  const std::string program = program_of(argv);
  if (is_one_of(program, kShells)) return Transparency::Shell;
  if (program == "busybox" && argv.size() > 1 && is_one_of(basename_of(argv[1]), kShells))
    return Transparency::Shell;
  if (is_one_of(program, kWrappers)) return Transparency::Wrapper;
  if (is_one_of(program, kPackageManagers)) {
    auto subcommand = subcommand_of(argv, program);
    if (subcommand && is_one_of(*subcommand, kRunSubcommands)) return Transparency::Wrapper;
  }
  return Transparency::Program;
}

std::optional<ProcessInfo> read_process(pid_t pid, const std::filesystem::path& proc_root) {
  UniqueFd root = open_directory(proc_root);
  if (!root || pid <= 0) return std::nullopt;
  return read_process_at(root.get(), pid);
}

std::optional<ProcessInfo> foreground_program(const ProcessTable& table, pid_t root,
                                              pid_t fg_pgid) {
  UniqueFd proc = open_directory(table.proc_root());
  const ProcessStat* stat = table.find(root);
  if (!proc || stat == nullptr || stat->exited()) return std::nullopt;
  auto shown = read_process_at(proc.get(), root);
  if (!shown || shown->start_time != stat->start_time) return std::nullopt;
  for (int depth = 0; depth < kMaxProcessWalkDepth; ++depth) {
    const Transparency kind = transparency_of(shown->argv);
    if (kind == Transparency::Program) break;
    auto next = next_in_walk(table, *stat, fg_pgid, kind);
    if (!next) break;
    const ProcessStat* next_stat = table.find(*next);
    auto next_info = read_process_at(proc.get(), *next);
    if (!next_info || next_info->start_time != next_stat->start_time) break;  // gone or reused
    stat = next_stat;
    shown = std::move(next_info);
  }
  return shown;
}

}  // namespace signaltty::broker::agents
