// tests/fuzz/fuzz_path_rules.cpp: libFuzzer target for the checks on paths
// and names a client, a plugin or a repository supplies: a file diff's
// literal path (gitworker), the broker's clean absolute paths and cleaned
// text, its "within a directory" test, a plugin's names, event globs and
// argv[0], and the discovery of a checkout from its `.git` file and
// `commondir` (written into a scratch dir from the input). Each check is
// held to what its header promises, with a plain restatement here.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp,
// with its scratch dir under /dev/shm (fsync there is cheap) or $TMPDIR.
// Never: expects a path to be accepted; it looks for crashes, sanitizer
// reports and a check that accepts what its rules refuse.
//
// Input layout: byte 0 picks the check (see run()); the rest, split at the
// first NUL byte, gives the one or two strings the check takes.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "broker/git/repo_paths.hpp"
#include "broker/plugins/plugin_manifest.hpp"
#include "broker/ptyhost_text.hpp"
#include "common/fs.hpp"
#include "common/limits.hpp"
#include "gitworker/file_diff.hpp"

namespace {

namespace git = signaltty::broker::git;
namespace plugins = signaltty::broker::plugins;
namespace gitworker = signaltty::gitworker;
namespace broker = signaltty::broker;
namespace stdfs = std::filesystem;

bool valid_utf8(std::string_view text) {
  bool replaced = false;
  (void)gitworker::repair_utf8(text, replaced);
  return !replaced;
}

bool is_dot_git(std::string_view name) {
  if (name.size() != 4 || name[0] != '.') return false;
  for (std::size_t i = 1; i < 4; ++i)
    if ((name[i] | 0x20) != "git"[i - 1]) return false;
  return true;
}

// check_literal_path's rules (gitworker/file_diff.hpp), restated.
bool literal_path_ok(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos ||
      !valid_utf8(path))
    return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = path.find('/', start);
    const std::string_view name = path.substr(start, end - start);
    if (name.empty() || name == "." || name == ".." || is_dot_git(name)) return false;
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

void literal_path(std::string_view path) {
  if (gitworker::check_literal_path(path).ok() != literal_path_ok(path)) std::abort();
  bool replaced = false;
  const std::string repaired = gitworker::repair_utf8(path, replaced);
  if (!valid_utf8(repaired) || replaced == (repaired == path)) std::abort();
  (void)gitworker::hunk_heading(path);
}

void clean_paths(std::string_view text, std::string_view dir) {
  if (broker::is_clean_absolute_path(text)) {
    if (text.empty() || text.front() != '/' || text.size() > signaltty::limits::kPathMaxBytes ||
        !valid_utf8(text))
      std::abort();
    for (const char c : text)
      if (static_cast<unsigned char>(c) < 0x20) std::abort();
  }
  const std::string cleaned = broker::clean_text(text, 64);
  if (!valid_utf8(cleaned)) std::abort();
  for (const char c : cleaned)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') std::abort();
  const std::string_view prefix = broker::utf8_prefix(text, dir.size());
  if (prefix.size() > dir.size() || text.substr(0, prefix.size()) != prefix) std::abort();
  // path_within compares whole components.
  if (git::path_within(text, dir)) {
    const bool whole = dir == "/" ? text.starts_with('/')
                                  : text == dir || (text.starts_with(dir) && text.size() > dir.size() &&
                                                    text[dir.size()] == '/');
    if (!whole) std::abort();
  }
  (void)signaltty::fs::join(dir, text);
  (void)signaltty::fs::dirname(std::string(text));
}

void plugin_names(std::string_view name, std::string_view event) {
  if (plugins::is_plugin_name(name)) {
    if (name.empty() || name.size() > 64) std::abort();
    for (const char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) std::abort();
  }
  if (plugins::is_event_glob(name) && plugins::event_matches(name, event)) {
    if (name != "*" && !name.ends_with(".*") && name != event) std::abort();
    if (name.ends_with(".*") && !event.starts_with(name.substr(0, name.size() - 1))) std::abort();
  }
  const std::string argv0 = plugins::resolve_argv0(name, "/plugins/fuzz");
  if (!name.empty() && name.front() == '/' && argv0 != name) std::abort();
}

// A scratch checkout: <root>/work/sub inside <root>/work, whose .git is a
// file with the input's text; <root>/gitdir holds a `commondir` file.
const std::string& scratch() {
  // Never freed: the exit-time cleanup below still reads it.
  static const std::string& root = *new std::string([] {
    const std::string base =
        stdfs::exists("/dev/shm") ? "/dev/shm" : stdfs::temp_directory_path().string();
    std::string templ = base + "/signaltty-fuzz-paths-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    std::error_code ec;
    stdfs::create_directories(templ + "/work/sub", ec);
    stdfs::create_directories(templ + "/gitdir", ec);
    stdfs::create_directories(templ + "/common", ec);
    return templ;
  }());
  return root;
}

struct RemoveAtExit {
  ~RemoveAtExit() {
    std::error_code ec;
    stdfs::remove_all(scratch(), ec);
  }
} remove_at_exit;

void repo_pointer(std::string_view dot_git, std::string_view commondir) {
  const std::string& root = scratch();
  if (!signaltty::fs::write_file_atomic(root + "/work/.git", dot_git).ok() ||
      !signaltty::fs::write_file_atomic(root + "/gitdir/commondir", commondir).ok())
    std::abort();
  auto found = git::find_repo(root + "/work/sub");
  if (!found.ok() || !*found) return;
  const git::RepoPaths& paths = **found;
  if (paths.root.empty() || paths.git_dir.empty() || paths.common_dir.empty()) std::abort();
  if (paths.root != git::canonical(root + "/work")) std::abort();  // where the .git is
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t nul = input.find('\0');
  const std::string_view first = input.substr(0, nul);
  const std::string_view second = nul == std::string_view::npos ? "" : input.substr(nul + 1);
  switch (data[0] % 4) {
    case 0:
      literal_path(input);  // NUL bytes included: the check must refuse them
      break;
    case 1:
      clean_paths(first, second);
      break;
    case 2:
      plugin_names(first, second);
      break;
    default:
      repo_pointer(first, second);
      break;
  }
  return 0;
}
