// broker/agents/manifests.hpp: agent manifests, the TOML overlays that
// extend an existing agent kind without recompiling (wrapper binaries,
// session keys, hook maps, [[screen]] rules), and the set the broker holds:
// the bundled manifests built into the binary plus every *.toml directly in
// the agents dir, sorted by file name.
//
// A manifest file is read with O_NOFOLLOW|O_NONBLOCK, must be a regular
// file of at most 1 MiB, and may hold at most 256 [[screen]] rules; a dir
// holds at most 256 manifests. Unknown keys, a missing or unknown kind, a
// bad state, region, line count or pattern reject the whole file with an
// error naming the file (and the rule's id); a rejected file is a failure
// entry, never fatal. User [[screen]] rules replace the bundled ones for the
// panes they apply to: a kind, or for generic panes a program.
// Runs in: broker, at start-up and on agents.reload. Never: follows a
// symlink, blocks on a fifo, reads more than a file's bound, or changes a
// set once loaded (a reload builds a new one and swaps it whole).
//
// Usage:
//   SIGNALTTY_TRY(std::shared_ptr<const ManifestSet> set, ManifestSet::load(dir));
//   active = set;  // swapped whole; live panes keep evaluating the old one
//   RuleSelection selection = active->rules_for(pane.kind, program);
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/agents/screen_rules.hpp"
#include "common/errors.hpp"
#include "common/protocol/methods/agent.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::broker::agents {

// Bounds on what a user's agents dir may hold.
inline constexpr std::size_t kManifestMaxBytes = 1 << 20;
inline constexpr std::size_t kManifestMaxFiles = 256;
inline constexpr std::size_t kManifestMaxScreenRules = 256;
// Patterns across one manifest's rules, and entries of one string list
// (binaries, resume, a rule's regex/all/not).
inline constexpr std::size_t kManifestMaxPatterns = 1024;
inline constexpr std::size_t kManifestMaxListEntries = 64;

// [lifecycle.<Hook>]: what a hook the builtin adapter does not map means.
struct LifecycleOverlay {
  std::optional<protocol::Lifecycle> lifecycle;
  std::optional<protocol::Attention> attention;
  std::optional<std::string> message;
};

struct Manifest {
  std::string file;  // the file name, e.g. "claude.toml"
  protocol::AgentKind kind = protocol::AgentKind::Generic;
  std::optional<std::string> display_name;
  std::vector<std::string> binaries;  // an entry ending in '*' matches a prefix
  std::optional<std::string> session_key;
  std::optional<std::vector<std::string>> resume;     // may hold "{session_id}"
  std::map<std::string, LifecycleOverlay> lifecycle;  // by hook name
  std::vector<ScreenRule> screen;                     // in declaration order
};

// One manifest's text parsed and validated; every error message starts
// with `file` and names the rule's id (or its position) when a rule is bad.
Result<Manifest> parse_manifest(std::string_view file, std::string_view text);

// Whether a `binaries` entry names `program`: equal, or for an entry ending
// in '*' a prefix of it.
bool binary_matches(std::string_view entry, std::string_view program);

// A manifest whose `binaries` name `program`.
bool names_program(const Manifest& manifest, std::string_view program);

// The bundled manifests' TOML as built in from broker/agents/bundled/.
struct BundledManifestText {
  std::string_view file;
  std::string_view text;
};
std::span<const BundledManifestText> bundled_manifest_texts();

// The rules that apply to one pane, and where they came from.
struct RuleSelection {
  protocol::RuleSource source = protocol::RuleSource::None;
  std::vector<const ScreenRule*> rules;  // point into the ManifestSet
};

// Immutable once loaded; shared as std::shared_ptr<const ManifestSet>, so a
// RuleSelection stays valid while its holder keeps the set alive.
class ManifestSet {
 public:
  ManifestSet() = default;  // empty: no manifests, no rules

  // The bundled manifests alone (built once; dir() is empty).
  static std::shared_ptr<const ManifestSet> bundled_only();
  // The bundled manifests and every *.toml directly in `dir`, by file name.
  // A missing dir holds no manifests; a dir that exists but cannot be
  // listed is IO_ERROR. A file that cannot be read or is malformed becomes
  // a failure and is skipped.
  static Result<std::shared_ptr<const ManifestSet>> load(const std::filesystem::path& dir);

  const std::string& dir() const { return dir_; }
  std::span<const Manifest> bundled() const { return bundled_; }
  std::span<const Manifest> user() const { return user_; }
  std::span<const protocol::AgentManifestFailure> failures() const { return failures_; }

  // agents.list: the dir, its manifests (not the bundled ones) and failures.
  protocol::AgentsListResult describe() const;

  // The [[screen]] rules of a pane of `kind` running `program`, in file then
  // declaration order. For a kind, every manifest of it; for a generic pane,
  // every generic manifest without binaries or naming `program`. The user's
  // rules when any apply (source user), else the bundled ones (bundled);
  // `none` kind, or no rules at all, is source none.
  RuleSelection rules_for(protocol::AgentKind kind, std::string_view program) const;

  // Detection overlays: the kind of the first user manifest, by file name,
  // whose `binaries` name `program`.
  std::optional<protocol::AgentKind> kind_of_program(std::string_view program) const;

 private:
  std::string dir_;
  std::vector<Manifest> bundled_;
  std::vector<Manifest> user_;
  std::vector<protocol::AgentManifestFailure> failures_;
};

}  // namespace signaltty::broker::agents
