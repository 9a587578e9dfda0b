// broker/agents/process_scan.hpp: the /proc side of the 10 s live process
// refresh: one snapshot of the process table, one process's argv, program
// and cwd, and the program a pane shows, which is the first process below
// the pane's child that is not a shell or a transparent wrapper
// (docs/rules.md "Agent detection and resume" names runtimes after their script).
// Runs in: broker (the refresh; a few small reads per process, each capped).
// Never: follows a symlink (readlink of /proc/<pid>/cwd is the one link
// read), reads past kStatMaxBytes / kCmdlineMaxBytes, keeps more than
// kProcessTableMaxEntries processes, walks deeper than kMaxProcessWalkDepth,
// descends into the children of a process that is neither a shell nor a
// wrapper (claude running `bash -c 'npm test'` is still claude), or shells out.
//
// Usage:
//   ProcessTable table = ProcessTable::read();            // once per refresh tick
//   const ProcessStat* child = table.find(pane.pid);
//   std::optional<ProcessInfo> shown =
//       foreground_program(table, pane.pid, child ? child->tty_pgid : 0);
//   if (shown) { … shown->program, shown->cwd … }        // nullopt: the pane's child is gone
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace signaltty::broker::agents {

// Our bounds (not in docs/rules.md). A stat line is about 300 bytes; a
// longer one is malformed and the process is left out.
inline constexpr std::size_t kStatMaxBytes = 4096;
// The kernel's comm is at most 15 bytes (64 for kernel workers); longer is cut.
inline constexpr std::size_t kCommMaxBytes = 64;
// argv beyond these is cut: the program name needs argv[0] and the script.
inline constexpr std::size_t kCmdlineMaxBytes = 8 * 1024;
inline constexpr std::size_t kCmdlineMaxArgs = 64;
// Processes beyond this (the kernel allows up to 4M pids) are left out of a
// snapshot, which keeps it under about 100 MiB on the largest machine.
inline constexpr std::size_t kProcessTableMaxEntries = 1u << 20;
// Shell-in-shell chains deeper than this are not followed; it also ends a
// walk through a parent cycle that pid reuse could fake.
inline constexpr int kMaxProcessWalkDepth = 32;

// One line of /proc/<pid>/stat, the fields the walk needs.
struct ProcessStat {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  // tpgid (field 8): the foreground process group of the process's
  // controlling terminal, -1 when it has none.
  pid_t tty_pgid = -1;
  char state = '?';              // R, S, D, Z (zombie), X (dead), …
  std::uint64_t start_time = 0;  // field 22, clock ticks after boot
  std::string comm;              // at most kCommMaxBytes

  bool exited() const { return state == 'Z' || state == 'X'; }
};

// `<pid> (<comm>) <state> <ppid> …`: comm may hold spaces and ')', so the
// fields are read after the last ')'. nullopt for anything malformed.
std::optional<ProcessStat> parse_stat(std::string_view line);

struct ProcessInfo {
  pid_t pid = 0;
  std::uint64_t start_time = 0;   // with pid, identifies the process
  std::vector<std::string> argv;  // /proc/<pid>/cmdline, cut at the caps
  // program_name(argv) (a runtime is named after its script; a login
  // shell's leading '-' is dropped); comm when the cmdline is empty.
  std::string program;
  // readlink of /proc/<pid>/cwd when absolute; nullopt when unreadable
  // (another user's process: EACCES), gone or "(deleted)".
  std::optional<std::string> cwd;
};

// One snapshot of the process table, read once from /proc/*/stat. A
// process that vanishes mid-scan, or whose stat is malformed, is left out.
class ProcessTable {
 public:
  // An unreadable `proc_root` gives an empty table.
  static ProcessTable read(const std::filesystem::path& proc_root = "/proc");

  // nullptr when `pid` was not in the snapshot.
  const ProcessStat* find(pid_t pid) const;
  // Every child of `pid`, exited ones included, oldest first: by
  // start_time, then pid.
  std::vector<pid_t> children_of(pid_t pid) const;
  std::size_t size() const { return by_pid_.size(); }
  const std::filesystem::path& proc_root() const { return proc_root_; }

 private:
  struct ChildKey {
    pid_t ppid;
    std::uint64_t start_time;
    pid_t pid;
    auto operator<=>(const ChildKey&) const = default;
  };
  ProcessTable(std::vector<ProcessStat> entries, std::filesystem::path proc_root);

  std::vector<ProcessStat> by_pid_;  // sorted by pid
  std::vector<ChildKey> by_parent_;  // sorted: children_of is one equal range
  std::filesystem::path proc_root_;
};

// How the walk treats a process, from its argv: a shell or a wrapper
// passes the walk to its child; anything else is the pane's program.
//   Shell: sh, ash, dash, bash, rbash, zsh, ksh, mksh, oksh, yash, fish,
//     tcsh, csh, nu, xonsh, elvish, pwsh; a login shell ("-bash"); busybox sh.
//   Wrapper: env, nohup, nice, ionice, chrt, taskset, timeout, time, stdbuf,
//     setsid, sudo, doas, su, runuser; the package runners npx, pnpx,
//     bunx, uvx and `npm|pnpm|yarn exec|x|dlx`, which only fetch and start
//     another program. `npm run` / `npm test` are programs: they name what
//     the person ran.
enum class Transparency { Program, Shell, Wrapper };
Transparency transparency_of(const std::vector<std::string>& argv);

// Reads one process's details. nullopt when it is gone; a zombie still
// reads, with no argv (named by comm) and no cwd.
std::optional<ProcessInfo> read_process(pid_t pid,
                                        const std::filesystem::path& proc_root = "/proc");

// The pane's program as a person would name it. From `root` (the pane's
// child) the walk passes from each shell or wrapper to one live child:
// the newest child in the terminal's foreground group `fg_pgid` when given
// (> 0), else the newest child — except that a shell that is itself in the
// foreground group with no child there sits at its prompt (its children
// are background jobs) and is returned. It stops at the first process that
// is neither (not descending into an agent's own children), at a shell or
// wrapper without a live child, at a child that vanished or started before
// its parent (pid reuse), or after kMaxProcessWalkDepth steps.
// nullopt when `root` is gone or has exited. Details are read from
// table.proc_root().
std::optional<ProcessInfo> foreground_program(const ProcessTable& table, pid_t root,
                                              pid_t fg_pgid = 0);

}  // namespace signaltty::broker::agents
