// common/io_fault.hpp: the test seam that makes the Nth write, fsync or
// rename of one of the broker's durable files fail with EIO or ENOSPC
// (docs/persistence.md, "I/O faults"). Armed only from the broker's own
// environment at start, parsed strictly; unarmed, every call below is the
// plain syscall.
// Runs in: broker (journal, writer and io threads). Never: is armed by
// anything a client sends; never lets a pane inherit the setting.
//
// Usage:
//   SIGNALTTY_TEST_IO_FAULT=journal:fsync:3:EIO:once signaltty-broker
//   main():     SIGNALTTY_RETURN_IF_ERROR(io_fault::arm_from_environment());
//   file layer: if (io_fault::fsync(fd, path) != 0) return Error::from_errno(...);
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::io_fault {

inline constexpr std::string_view kEnvironmentVariable = "SIGNALTTY_TEST_IO_FAULT";

// The durable files a fault can target, named by their file names.
enum class Target { Journal, Sequence, Snapshot };
enum class Op { Write, Fsync, Rename };
enum class Mode { Once, FromNOn };

struct Fault {
  Target target = Target::Journal;
  Op op = Op::Write;
  std::uint64_t nth = 1;  // 1-based count of `op` calls on `target`'s files
  int error = 0;          // EIO or ENOSPC
  Mode mode = Mode::Once;
};

// "TARGET:OP:N:ERRNO:MODE", e.g. "snapshot:rename:2:ENOSPC:from";
// TARGET journal|sequence|snapshot, OP write|fsync|rename, N >= 1,
// ERRNO EIO|ENOSPC, MODE once|from. Anything else is BAD_PARAMS.
Result<Fault> parse(std::string_view spec);
std::string describe(const Fault& fault);

// Reads kEnvironmentVariable, arms it and removes it from the environment
// so no child inherits it. Call before any thread exists. A value that does
// not parse is an error: the broker refuses to start.
Status arm_from_environment();
// For unit tests; resets the count.
void arm(const Fault& fault);
void disarm();

// Which target a path belongs to: audit.jsonl, audit.jsonl.1 and
// audit-retention.json are the journal's, event-sequence.json the
// reservation's, snapshot.json the snapshot's; nullopt for any other.
std::optional<Target> target_of(std::string_view path);

// The syscalls, counted against `file` (the durable file the call serves,
// e.g. the final name of a temp file being written): -1 with errno set when
// the armed fault says this call fails, and then the syscall is not made.
ssize_t write(int fd, const void* data, std::size_t size, std::string_view file);
ssize_t pwrite(int fd, const void* data, std::size_t size, off_t offset, std::string_view file);
int fsync(int fd, std::string_view file);
int fdatasync(int fd, std::string_view file);
int rename(const char* from, const char* to, std::string_view file);

}  // namespace signaltty::io_fault
