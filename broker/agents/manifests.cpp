// broker/agents/manifests.cpp: reads, parses and validates agent manifests
// (toml++), and answers which manifests and rules apply to a pane.
// Runs in: broker. Never: lets a toml++ exception or a bad file escape a
// load, reads past a file's bound, or opens a manifest that is not a
// regular file for more than an fstat.
#include "broker/agents/manifests.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

#include "broker/config_dir.hpp"
#include "common/check.hpp"
#include "common/limits.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker::agents {
namespace {

using protocol::AgentKind;

// ---- small parsing helpers --------------------------------------------------

template <class E>
std::optional<E> enum_named(std::string_view name) {
  for (const auto& [value, spelled] : protocol::EnumNames<E>::names)
    if (spelled == name) return value;
  return std::nullopt;
}

template <class E>
std::string enum_choices(std::optional<E> except = std::nullopt) {
  std::string out;
  for (const auto& [value, spelled] : protocol::EnumNames<E>::names) {
    if (except && value == *except) continue;
    if (!out.empty()) out += ", ";
    out += spelled;
  }
  return out;
}

std::string in_quotes(std::string_view s) { return "'" + excerpt(s) + "'"; }

// Keys a table may hold; any other is an error naming it.
Status only_keys(const toml::table& table, std::string_view where,
                 std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    return bad_params(std::string(where) + "unknown key " + in_quotes(key.str()));
  }
  return {};
}

Result<const toml::table*> table_at(const toml::node& node, std::string_view where) {
  if (const toml::table* table = node.as_table()) return table;
  return bad_params(std::string(where) + ": expected a table");
}

Result<std::string> string_at(const toml::node& node, std::string_view where) {
  if (const auto* value = node.as_string()) return value->get();
  return bad_params(std::string(where) + ": expected a string");
}

Result<std::vector<std::string>> strings_at(const toml::node& node, std::string_view where,
                                            std::size_t max_entries) {
  const toml::array* array = node.as_array();
  if (array == nullptr) return bad_params(std::string(where) + ": expected an array of strings");
  if (array->size() > max_entries)
    return bad_params(std::string(where) + ": more than " + std::to_string(max_entries) +
                      " entries");
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    const auto* value = item.as_string();
    if (value == nullptr) return bad_params(std::string(where) + ": expected an array of strings");
    out.push_back(value->get());
  }
  return out;
}

template <class E>
Result<E> enum_at(const toml::node& node, std::string_view where,
                  std::optional<E> except = std::nullopt) {
  SIGNALTTY_TRY(std::string name, string_at(node, where));
  std::optional<E> value = enum_named<E>(name);
  if (!value || (except && *value == *except))
    return bad_params(std::string(where) + ": " + in_quotes(name) + " is not one of " +
                      enum_choices<E>(except));
  return *value;
}

// ---- [agent], [session], [lifecycle.<Hook>] ---------------------------------

Status parse_binaries(const toml::node& node, Manifest& manifest) {
  SIGNALTTY_TRY(manifest.binaries, strings_at(node, "agent.binaries", kManifestMaxListEntries));
  for (const std::string& entry : manifest.binaries)
    if (entry.empty() || entry == "*")
      return bad_params("agent.binaries: " + in_quotes(entry) + " names no program");
  return {};
}

Status parse_agent(const toml::node& node, Manifest& manifest) {
  SIGNALTTY_TRY(const toml::table* agent, table_at(node, "agent"));
  SIGNALTTY_RETURN_IF_ERROR(only_keys(*agent, "agent: ", {"kind", "display_name", "binaries"}));
  const toml::node* kind = agent->get("kind");
  if (kind == nullptr) return bad_params("agent.kind: missing");
  SIGNALTTY_TRY(manifest.kind, enum_at<AgentKind>(*kind, "agent.kind", AgentKind::None));
  if (const toml::node* name = agent->get("display_name")) {
    SIGNALTTY_TRY(manifest.display_name, string_at(*name, "agent.display_name"));
  }
  if (const toml::node* binaries = agent->get("binaries"))
    SIGNALTTY_RETURN_IF_ERROR(parse_binaries(*binaries, manifest));
  return {};
}

Status parse_session(const toml::node& node, Manifest& manifest) {
  SIGNALTTY_TRY(const toml::table* session, table_at(node, "session"));
  SIGNALTTY_RETURN_IF_ERROR(only_keys(*session, "session: ", {"key", "resume"}));
  if (const toml::node* key = session->get("key")) {
    SIGNALTTY_TRY(manifest.session_key, string_at(*key, "session.key"));
  }
  if (const toml::node* resume = session->get("resume")) {
    SIGNALTTY_TRY(manifest.resume, strings_at(*resume, "session.resume", limits::kArgvMaxArgs));
    if (manifest.resume->empty() || manifest.resume->front().empty())
      return bad_params("session.resume: needs a command");
  }
  return {};
}

Result<LifecycleOverlay> parse_overlay(const toml::node& node, const std::string& where) {
  SIGNALTTY_TRY(const toml::table* hook, table_at(node, where));
  SIGNALTTY_RETURN_IF_ERROR(only_keys(*hook, where + ": ", {"lifecycle", "attention", "message"}));
  LifecycleOverlay overlay;
  if (const toml::node* lifecycle = hook->get("lifecycle")) {
    SIGNALTTY_TRY(overlay.lifecycle,
                  enum_at<protocol::Lifecycle>(*lifecycle, where + ".lifecycle"));
  }
  if (const toml::node* attention = hook->get("attention")) {
    SIGNALTTY_TRY(overlay.attention,
                  enum_at<protocol::Attention>(*attention, where + ".attention"));
  }
  if (const toml::node* message = hook->get("message")) {
    SIGNALTTY_TRY(overlay.message, string_at(*message, where + ".message"));
  }
  return overlay;
}

Status parse_lifecycle(const toml::node& node, Manifest& manifest) {
  SIGNALTTY_TRY(const toml::table* hooks, table_at(node, "lifecycle"));
  for (const auto& [hook, value] : *hooks) {
    SIGNALTTY_TRY(LifecycleOverlay overlay,
                  parse_overlay(value, "lifecycle." + excerpt(hook.str())));
    manifest.lifecycle.emplace(std::string(hook.str()), std::move(overlay));
  }
  return {};
}

// ---- [[screen]] -------------------------------------------------------------

// Patterns a manifest may still compile.
struct PatternBudget {
  std::size_t left = kManifestMaxPatterns;
};

Result<std::vector<Pattern>> patterns_at(const toml::node& node, const std::string& where,
                                         PatternBudget& budget) {
  SIGNALTTY_TRY(std::vector<std::string> sources, strings_at(node, where, kManifestMaxListEntries));
  if (sources.size() > budget.left)
    return bad_params(where + ": more than " + std::to_string(kManifestMaxPatterns) +
                      " patterns in the manifest");
  budget.left -= sources.size();
  std::vector<Pattern> out;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    auto compiled = compile_pattern(sources[i]);
    if (!compiled.ok())
      return bad_params(where + "[" + std::to_string(i) + "] " + in_quotes(sources[i]) + ": " +
                        compiled.error().message);
    out.push_back(std::move(*compiled));
  }
  return out;
}

Status parse_region(const toml::table& table, const std::string& where, ScreenRule& rule) {
  if (const toml::node* region = table.get("region")) {
    SIGNALTTY_TRY(std::string name, string_at(*region, where + "region"));
    std::optional<Region> parsed = region_from_name(name);
    if (!parsed) return bad_params(where + "region: " + in_quotes(name) + " is not a region");
    rule.region = *parsed;
  }
  if (const toml::node* lines = table.get("lines")) {
    const auto* count = lines->as_integer();
    if (count == nullptr) return bad_params(where + "lines: expected an integer");
    if (count->get() < 1 || count->get() > kRegionLinesMax)
      return bad_params(where + "lines: " + std::to_string(count->get()) +
                        " is outside 1..=" + std::to_string(kRegionLinesMax));
    rule.lines = static_cast<int>(count->get());
  }
  return {};
}

Status parse_matchers(const toml::table& table, const std::string& where, ScreenRule& rule,
                      PatternBudget& budget) {
  if (const toml::node* any = table.get("regex")) {
    SIGNALTTY_TRY(rule.any, patterns_at(*any, where + "regex", budget));
  }
  if (const toml::node* all = table.get("all")) {
    SIGNALTTY_TRY(rule.all, patterns_at(*all, where + "all", budget));
  }
  if (const toml::node* none = table.get("not")) {
    SIGNALTTY_TRY(rule.none, patterns_at(*none, where + "not", budget));
  }
  if (rule.any.empty() && rule.all.empty())
    return bad_params(where + "needs a `regex` or `all` pattern");
  return {};
}

// "[[screen]] rule 'id': ", or the rule's position while its id is unknown.
std::string rule_label(const toml::table& table, std::size_t index) {
  if (const toml::node* id = table.get("id"))
    if (const auto* name = id->as_string(); name != nullptr && !name->get().empty())
      return "[[screen]] rule " + in_quotes(name->get()) + ": ";
  return "[[screen]] #" + std::to_string(index + 1) + ": ";
}

Result<ScreenRule> parse_rule(const toml::node& node, std::size_t index, PatternBudget& budget) {
  const toml::table* table = node.as_table();
  if (table == nullptr)
    return bad_params("[[screen]] #" + std::to_string(index + 1) + ": expected a table");
  const std::string where = rule_label(*table, index);
  SIGNALTTY_RETURN_IF_ERROR(only_keys(
      *table, where, {"id", "state", "region", "lines", "regex", "all", "not", "priority"}));
  ScreenRule rule;
  const toml::node* id = table->get("id");
  if (id == nullptr) return bad_params(where + "id: missing");
  SIGNALTTY_TRY(rule.id, string_at(*id, where + "id"));
  if (rule.id.empty()) return bad_params(where + "id: empty");
  const toml::node* state = table->get("state");
  if (state == nullptr) return bad_params(where + "state: missing");
  SIGNALTTY_TRY(rule.state, enum_at<protocol::ScreenRuleState>(*state, where + "state"));
  SIGNALTTY_RETURN_IF_ERROR(parse_region(*table, where, rule));
  if (const toml::node* priority = table->get("priority")) {
    const auto* value = priority->as_integer();
    if (value == nullptr) return bad_params(where + "priority: expected an integer");
    rule.priority = value->get();
  }
  SIGNALTTY_RETURN_IF_ERROR(parse_matchers(*table, where, rule, budget));
  return rule;
}

Status parse_screen(const toml::node& node, Manifest& manifest) {
  const toml::array* rules = node.as_array();
  if (rules == nullptr) return bad_params("screen: expected [[screen]] tables");
  if (rules->size() > kManifestMaxScreenRules)
    return bad_params("[[screen]]: " + std::to_string(rules->size()) + " rules, more than " +
                      std::to_string(kManifestMaxScreenRules));
  PatternBudget budget;
  manifest.screen.reserve(rules->size());
  for (std::size_t i = 0; i < rules->size(); ++i) {
    SIGNALTTY_TRY(ScreenRule rule, parse_rule(*rules->get(i), i, budget));
    manifest.screen.push_back(std::move(rule));
  }
  return {};
}

Result<Manifest> parse_document(const toml::table& root) {
  SIGNALTTY_RETURN_IF_ERROR(only_keys(root, "", {"agent", "session", "lifecycle", "screen"}));
  Manifest manifest;
  const toml::node* agent = root.get("agent");
  if (agent == nullptr) return bad_params("[agent]: missing");
  SIGNALTTY_RETURN_IF_ERROR(parse_agent(*agent, manifest));
  if (const toml::node* session = root.get("session"))
    SIGNALTTY_RETURN_IF_ERROR(parse_session(*session, manifest));
  if (const toml::node* lifecycle = root.get("lifecycle"))
    SIGNALTTY_RETURN_IF_ERROR(parse_lifecycle(*lifecycle, manifest));
  if (const toml::node* screen = root.get("screen"))
    SIGNALTTY_RETURN_IF_ERROR(parse_screen(*screen, manifest));
  return manifest;
}

// ---- the agents dir ---------------------------------------------------------

bool is_manifest_name(std::string_view name) {
  constexpr std::string_view kSuffix = ".toml";
  return name.size() > kSuffix.size() && name.ends_with(kSuffix) && name.front() != '.';
}

// One manifest's bytes (broker/config_dir.hpp); one that vanished since the
// listing is an error of its own like any other.
Result<std::string> read_manifest_text(int dir_fd, const std::string& name) {
  SIGNALTTY_TRY(std::optional<std::string> text, read_config_file(dir_fd, name, kManifestMaxBytes));
  if (!text) return Error{ErrorCode::IoError, "removed while being read"};
  return std::move(*text);
}

protocol::AgentManifestFailure failure_of(const std::string& file, const Error& error) {
  // parse_manifest's messages name the file already; read errors do not.
  const bool named = error.message.starts_with(file + ": ");
  return {file, named ? error.message : file + ": " + error.message};
}

void load_user_manifests(ConfigDirListing& listing, std::vector<Manifest>& manifests,
                         std::vector<protocol::AgentManifestFailure>& failures) {
  for (const std::string& name : listing.names) {
    auto text = read_manifest_text(listing.fd(), name);
    auto manifest = text.ok() ? parse_manifest(name, *text) : Result<Manifest>(text.error());
    if (manifest.ok())
      manifests.push_back(std::move(*manifest));
    else
      failures.push_back(failure_of(name, manifest.error()));
  }
  if (listing.skipped > 0)
    failures.push_back(
        {listing.first_skipped, listing.first_skipped + ": skipped with the " +
                                    std::to_string(listing.skipped - 1) +
                                    " manifests after it by name: a dir holds at most " +
                                    std::to_string(kManifestMaxFiles)});
}

// The rules of every manifest `applies` accepts, in order.
template <class Applies>
std::vector<const ScreenRule*> rules_of(std::span<const Manifest> manifests, Applies applies) {
  std::vector<const ScreenRule*> rules;
  for (const Manifest& manifest : manifests) {
    if (!applies(manifest)) continue;
    for (const ScreenRule& rule : manifest.screen) rules.push_back(&rule);
  }
  return rules;
}

}  // namespace

Result<Manifest> parse_manifest(std::string_view file, std::string_view text) {
  const auto named = [&](Error error) {
    error.message = std::string(file) + ": " + error.message;
    return error;
  };
  auto root = parse_toml(text);
  if (!root.ok()) return named(std::move(root).error());
  auto manifest = parse_document(*root);
  if (!manifest.ok()) return named(std::move(manifest).error());
  manifest->file = std::string(file);
  return manifest;
}

bool binary_matches(std::string_view entry, std::string_view program) {
  if (entry.ends_with('*')) return program.starts_with(entry.substr(0, entry.size() - 1));
  return entry == program;
}

bool names_program(const Manifest& manifest, std::string_view program) {
  return std::any_of(manifest.binaries.begin(), manifest.binaries.end(),
                     [&](const std::string& entry) { return binary_matches(entry, program); });
}

std::shared_ptr<const ManifestSet> ManifestSet::bundled_only() {
  static const std::shared_ptr<const ManifestSet> bundled = [] {
    auto set = std::make_shared<ManifestSet>();
    for (const BundledManifestText& bundled_text : bundled_manifest_texts()) {
      auto manifest = parse_manifest(bundled_text.file, bundled_text.text);
      if (check_invariant(manifest, "bundled agent manifest parses"))
        set->bundled_.push_back(std::move(*manifest));
    }
    return std::shared_ptr<const ManifestSet>(std::move(set));
  }();
  return bundled;
}

Result<std::shared_ptr<const ManifestSet>> ManifestSet::load(const std::filesystem::path& dir) {
  auto set = std::make_shared<ManifestSet>();
  set->dir_ = dir.string();
  set->bundled_ = bundled_only()->bundled_;
  SIGNALTTY_TRY(std::optional<ConfigDirListing> listing,
                list_config_dir(set->dir_, kManifestMaxFiles,
                                [](const dirent& entry) { return is_manifest_name(entry.d_name); }));
  if (listing) load_user_manifests(*listing, set->user_, set->failures_);
  return std::shared_ptr<const ManifestSet>(std::move(set));
}

protocol::AgentsListResult ManifestSet::describe() const {
  protocol::AgentsListResult result{dir_, {}, failures_};
  for (const Manifest& manifest : user_)
    result.manifests.push_back({manifest.file, manifest.kind, manifest.binaries,
                                static_cast<std::uint32_t>(manifest.screen.size())});
  return result;
}

RuleSelection ManifestSet::rules_for(AgentKind kind, std::string_view program) const {
  if (kind == AgentKind::None) return {};
  const auto applies = [&](const Manifest& manifest) {
    if (manifest.kind != kind) return false;
    return kind != AgentKind::Generic || manifest.binaries.empty() ||
           names_program(manifest, program);
  };
  if (auto rules = rules_of(user_, applies); !rules.empty())
    return {protocol::RuleSource::User, std::move(rules)};
  if (auto rules = rules_of(bundled_, applies); !rules.empty())
    return {protocol::RuleSource::Bundled, std::move(rules)};
  return {};
}

std::optional<AgentKind> ManifestSet::kind_of_program(std::string_view program) const {
  if (program.empty()) return std::nullopt;
  for (const Manifest& manifest : user_)
    if (names_program(manifest, program)) return manifest.kind;
  return std::nullopt;
}

}  // namespace signaltty::broker::agents
