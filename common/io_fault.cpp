// common/io_fault.cpp: the armed fault (at most one) and the counted
// syscall wrappers of common/io_fault.hpp.
// Runs in: broker. Never: changes what a call does when nothing is armed.
#include "common/io_fault.hpp"

#include <stdio.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <utility>
#include <vector>

#include "common/log.hpp"

namespace signaltty::io_fault {
namespace {

constexpr std::array<std::pair<std::string_view, Target>, 3> kTargets{
    {{"journal", Target::Journal}, {"sequence", Target::Sequence}, {"snapshot", Target::Snapshot}}};
constexpr std::array<std::pair<std::string_view, Op>, 3> kOps{
    {{"write", Op::Write}, {"fsync", Op::Fsync}, {"rename", Op::Rename}}};
constexpr std::array<std::pair<std::string_view, int>, 2> kErrors{
    {{"EIO", EIO}, {"ENOSPC", ENOSPC}}};
constexpr std::array<std::pair<std::string_view, Mode>, 2> kModes{
    {{"once", Mode::Once}, {"from", Mode::FromNOn}}};
constexpr std::array<std::pair<std::string_view, Target>, 5> kFiles{
    {{"audit.jsonl", Target::Journal},
     {"audit.jsonl.1", Target::Journal},
     {"audit-retention.json", Target::Journal},
     {"event-sequence.json", Target::Sequence},
     {"snapshot.json", Target::Snapshot}}};
constexpr std::size_t kFields = 5;

// Set before any thread exists (arm_from_environment) or by a unit test;
// only `calls` changes afterwards.
struct Armed {
  std::optional<Fault> fault;
  std::atomic<std::uint64_t> calls{0};
};

Armed& armed() {
  static Armed state;
  return state;
}

template <typename T, std::size_t N>
std::optional<T> lookup(const std::array<std::pair<std::string_view, T>, N>& table,
                        std::string_view key) {
  for (const auto& [name, value] : table)
    if (name == key) return value;
  return std::nullopt;
}

template <typename T, std::size_t N>
std::string_view name_of(const std::array<std::pair<std::string_view, T>, N>& table, T value) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return "?";
}

std::vector<std::string_view> split(std::string_view spec) {
  std::vector<std::string_view> out;
  for (;;) {
    auto colon = spec.find(':');
    out.push_back(spec.substr(0, colon));
    if (colon == std::string_view::npos) return out;
    spec.remove_prefix(colon + 1);
  }
}

std::optional<std::uint64_t> positive(std::string_view text) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n == 0)
    return std::nullopt;
  return n;
}

// True when this call is the one (or one of those) the armed fault fails.
bool fires(Op op, std::string_view file) {
  Armed& state = armed();
  if (!state.fault || state.fault->op != op || target_of(file) != state.fault->target) return false;
  const std::uint64_t n = ++state.calls;
  const Fault& f = *state.fault;
  if (f.mode == Mode::Once ? n != f.nth : n < f.nth) return false;
  log::warn("test I/O fault: " + std::string(name_of(kOps, op)) + " #" + std::to_string(n) +
            " of " + std::string(file) + " fails with " + std::string(name_of(kErrors, f.error)));
  errno = f.error;
  return true;
}

}  // namespace

Result<Fault> parse(std::string_view spec) {
  const auto fields = split(spec);
  auto bad = [spec](std::string_view why) {
    std::string message(kEnvironmentVariable);
    message.append("=\"").append(spec).append("\": ").append(why);
    message.append(" (want TARGET:OP:N:ERRNO:once|from)");
    return Error{ErrorCode::BadParams, std::move(message)};
  };
  if (fields.size() != kFields) return bad("not five fields");
  auto target = lookup(kTargets, fields[0]);
  auto op = lookup(kOps, fields[1]);
  auto nth = positive(fields[2]);
  auto error = lookup(kErrors, fields[3]);
  auto mode = lookup(kModes, fields[4]);
  if (!target) return bad("TARGET is journal, sequence or snapshot");
  if (!op) return bad("OP is write, fsync or rename");
  if (!nth) return bad("N is a decimal count from 1");
  if (!error) return bad("ERRNO is EIO or ENOSPC");
  if (!mode) return bad("the mode is once or from");
  return Fault{*target, *op, *nth, *error, *mode};
}

std::string describe(const Fault& f) {
  return std::string(name_of(kOps, f.op)) + " #" + std::to_string(f.nth) +
         (f.mode == Mode::Once ? "" : " and every later one") + " of the " +
         std::string(name_of(kTargets, f.target)) + " files fails with " +
         std::string(name_of(kErrors, f.error));
}

Status arm_from_environment() {
  const char* value = std::getenv(kEnvironmentVariable.data());
  if (value == nullptr) return {};
  const std::string spec(value);
  ::unsetenv(kEnvironmentVariable.data());
  SIGNALTTY_TRY(Fault fault, parse(spec));
  arm(fault);
  log::warn("TEST I/O FAULT ARMED (" + std::string(kEnvironmentVariable) + "): " + describe(fault));
  return {};
}

void arm(const Fault& fault) {
  armed().fault = fault;
  armed().calls = 0;
}

void disarm() {
  armed().fault.reset();
  armed().calls = 0;
}

std::optional<Target> target_of(std::string_view path) {
  const auto slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return lookup(kFiles, name);
}

ssize_t write(int fd, const void* data, std::size_t size, std::string_view file) {
  if (fires(Op::Write, file)) return -1;
  return ::write(fd, data, size);
}

ssize_t pwrite(int fd, const void* data, std::size_t size, off_t offset, std::string_view file) {
  if (fires(Op::Write, file)) return -1;
  return ::pwrite(fd, data, size, offset);
}

int fsync(int fd, std::string_view file) {
  if (fires(Op::Fsync, file)) return -1;
  return ::fsync(fd);
}

int fdatasync(int fd, std::string_view file) {
  if (fires(Op::Fsync, file)) return -1;
  return ::fdatasync(fd);
}

int rename(const char* from, const char* to, std::string_view file) {
  if (fires(Op::Rename, file)) return -1;
  return ::rename(from, to);
}

}  // namespace signaltty::io_fault
