// broker/store_agents.cpp: the store's two agent axes (docs/rules.md
// "Lifecycle axis", "Attention axis", "Wait baseline", "Attention order"):
// lifecycle changes with their source, the per-pane transition numbers a
// `wait` baseline is measured against, the `wait` check itself, and the
// attention ranking of attention.pending and focus.next_unread.
// Runs in: broker (io thread). Never: classifies hooks or screens (the
// callers decide the state); never waits (broker/methods/agent_wait.cpp does).
#include <algorithm>
#include <cstdio>
#include <ctime>

#include "broker/store.hpp"
#include "common/protocol/events.hpp"

namespace signaltty::broker {

namespace ev = protocol::ev;
using protocol::Attention;
using protocol::Lifecycle;
using protocol::Pane;
using protocol::WaitBaseline;
using protocol::WaitResult;

namespace {

// docs/rules.md "Wait baseline": names that stand for attention `none`.
constexpr std::string_view kSeenState = "seen";
constexpr std::string_view kAttentionClearedState = "attention_cleared";
constexpr std::string_view kExitedLiveState = "exited";

// The enum value the wire spells `name` (the codec's own table).
template <class E>
std::optional<E> enum_named(const std::string& name) {
  auto value = protocol::decode<E>(protocol::Json(name));
  if (!value.ok()) return std::nullopt;
  return *value;
}

template <class E>
std::string name_of(E value) {
  return protocol::encode(value).template get<std::string>();
}

// Seconds since the epoch of an RFC 3339 UTC time as the store's clock
// writes it (`YYYY-MM-DDTHH:MM:SS[.fff]Z`); nullopt for anything else.
std::optional<double> epoch_seconds(const std::string& rfc3339) {
  std::tm tm{};
  double seconds = 0;
  if (std::sscanf(rfc3339.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &seconds) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_sec = 0;
  return static_cast<double>(timegm(&tm)) + seconds;
}

Error baseline_error(std::string message) {
  Error e = bad_params("after: " + std::move(message));
  e.details = {{"field", "after"}};
  return e;
}

// One `until` name resolved to its axis and the state it stands for.
struct UntilState {
  std::string name;
  std::optional<Lifecycle> lifecycle;  // else an attention state
  Attention attention = Attention::None;
};

Result<UntilState> resolve_until(const std::string& name) {
  if (auto l = enum_named<Lifecycle>(name)) return UntilState{name, l, Attention::None};
  if (auto a = enum_named<Attention>(name)) return UntilState{name, std::nullopt, *a};
  if (name == kSeenState || name == kAttentionClearedState)
    return UntilState{name, std::nullopt, Attention::None};
  Error e = bad_params("until: unknown state '" + name + "'");
  e.details = {{"field", "until"}, {"state", name}};
  return e;
}

// docs/rules.md "Wait baseline": identity first, then a baseline that is
// ahead of the pane is malformed.
Status check_baseline(const Pane& pane, const PaneTransitions& t, const WaitBaseline& after) {
  if (after.pane_id != pane.id) return baseline_error("a baseline of another pane");
  if (after.process_instance != pane.process_instance) {
    Error e{ErrorCode::IdentityChanged, "the pane's process was replaced since the baseline"};
    e.details = {{"pane_id", pane.id}, {"process_instance", pane.process_instance}};
    return e;
  }
  if (after.session_generation > pane.session_generation || after.lifecycle_seq > t.lifecycle_seq ||
      after.attention_seq > t.attention_seq)
    return baseline_error("ahead of the pane");
  const bool had_session = after.agent_session_id.has_value();
  const bool first_discovery =
      !had_session && after.session_generation + 1 >= pane.session_generation;
  const bool same_session = had_session && after.session_generation == pane.session_generation &&
                            pane.agent.agent_session_id == *after.agent_session_id;
  if (!first_discovery && !same_session) {
    Error e{ErrorCode::IdentityChanged, "the pane's agent session was replaced since the baseline"};
    e.details = {{"pane_id", pane.id}, {"session_generation", pane.session_generation}};
    return e;
  }
  return {};
}

bool matches_now(const Pane& pane, const UntilState& s) {
  if (!s.lifecycle) return pane.attention == s.attention;
  if (*s.lifecycle == Lifecycle::Exited)
    return pane.lifecycle == Lifecycle::Exited || pane.live.state == kExitedLiveState;
  return pane.lifecycle == *s.lifecycle;
}

std::uint64_t last_into(const PaneTransitions& t, const UntilState& s) {
  const std::string key = s.lifecycle ? s.name : name_of(s.attention);
  auto it = t.last_into.find(key);
  return it == t.last_into.end() ? 0 : it->second;
}

}  // namespace

std::string_view source_name(LifecycleSource source) {
  switch (source) {
    case LifecycleSource::Hook: return "hook";
    case LifecycleSource::Screen: return "screen";
    case LifecycleSource::Osc: return "osc";
    case LifecycleSource::Exit: return "exit";
    case LifecycleSource::Process: return "process";
    case LifecycleSource::User: break;
  }
  return "user";
}

void Store::record_transition(const std::string& pane_id, Axis axis, std::string_view state) {
  PaneTransitions& t = transitions_[pane_id];
  t.pane_id = pane_id;
  ++t.counter;
  (axis == Axis::Lifecycle ? t.lifecycle_seq : t.attention_seq) = t.counter;
  t.last_into.insert_or_assign(std::string(state), t.counter);
}

bool Store::apply_lifecycle(Pane& pane, Lifecycle next, const std::string& now) {
  const Lifecycle prev = pane.lifecycle;
  if (next == prev) return false;
  if (prev == Lifecycle::Working && pane.lifecycle_since) {
    const auto began = epoch_seconds(*pane.lifecycle_since);
    const auto ended = epoch_seconds(now);
    if (began && ended) pane.last_run_secs = std::max(0.0, *ended - *began);
  }
  pane.last_lifecycle = prev;
  pane.lifecycle = next;
  pane.lifecycle_since = now;
  record_transition(pane.id, Axis::Lifecycle, name_of(next));
  return true;
}

Result<Pane> Store::set_pane_lifecycle(Txn& txn, std::string_view pane_id, Lifecycle lifecycle,
                                       LifecycleSource source) {
  SIGNALTTY_TRY(const Pane* found, find_pane(pane_id));
  Pane& pane = pane_at(found->id);
  const Lifecycle prev = pane.lifecycle;
  if (!apply_lifecycle(pane, lifecycle, clock_())) return pane;
  const protocol::LifecyclePayload payload{pane.id, lifecycle, prev,
                                           std::string(source_name(source))};
  switch (lifecycle) {
    case Lifecycle::Unknown: txn.emit<ev::AgentUnknown>(payload); break;
    case Lifecycle::Working: txn.emit<ev::AgentWorking>(payload); break;
    case Lifecycle::Blocked: txn.emit<ev::AgentBlocked>(payload); break;
    case Lifecycle::Done: txn.emit<ev::AgentDone>(payload); break;
    case Lifecycle::Idle: txn.emit<ev::AgentIdle>(payload); break;
    case Lifecycle::Failed: txn.emit<ev::AgentFailed>(payload); break;
    case Lifecycle::Exited: txn.emit<ev::AgentExited>(protocol::encode(payload)); break;
  }
  changed();
  return pane;
}

PaneTransitions Store::transitions_of(std::string_view pane_id) const {
  auto it = transitions_.find(pane_id);
  if (it != transitions_.end()) return it->second;
  PaneTransitions none;
  none.pane_id = std::string(pane_id);
  return none;
}

Result<WaitBaseline> Store::wait_baseline(std::string_view pane_id) const {
  SIGNALTTY_TRY(const Pane* pane, find_pane(pane_id));
  const PaneTransitions t = transitions_of(pane->id);
  WaitBaseline b;
  b.pane_id = pane->id;
  b.process_instance = pane->process_instance;
  if (pane->agent.agent_session_id) b.agent_session_id = *pane->agent.agent_session_id;
  b.session_generation = pane->session_generation;
  b.lifecycle_seq = t.lifecycle_seq;
  b.attention_seq = t.attention_seq;
  return b;
}

Result<std::optional<WaitResult>> Store::check_wait(
    std::string_view pane_id, const protocol::UntilSpec& until,
    const std::optional<WaitBaseline>& after) const {
  SIGNALTTY_TRY(const Pane* pane, find_pane(pane_id));
  if (until.states.empty()) return bad_params("until: empty");
  std::vector<UntilState> wanted;
  for (const std::string& name : until.states) {
    SIGNALTTY_TRY(UntilState s, resolve_until(name));
    wanted.push_back(std::move(s));
  }
  const PaneTransitions t = transitions_of(pane->id);
  if (after) SIGNALTTY_RETURN_IF_ERROR(check_baseline(*pane, t, *after));
  for (const UntilState& s : wanted) {
    const std::uint64_t seq = last_into(t, s);
    const bool hit = after ? seq > (s.lifecycle ? after->lifecycle_seq : after->attention_seq)
                           : matches_now(*pane, s);
    if (hit) return std::optional<WaitResult>(WaitResult{true, s.name, seq, pane->lifecycle,
                                                         pane->attention});
  }
  return std::optional<WaitResult>{};
}

std::vector<protocol::AttentionPendingPane> Store::pending_attention(std::size_t limit) const {
  std::vector<const Pane*> raised;
  for (const auto& [id, pane] : panes_)
    if (pane.attention != Attention::None) raised.push_back(&pane);
  std::sort(raised.begin(), raised.end(), [](const Pane* a, const Pane* b) {
    if (a->attention != b->attention) return a->attention > b->attention;
    if (a->last_activity_at != b->last_activity_at) return a->last_activity_at > b->last_activity_at;
    return a->id < b->id;
  });
  if (raised.size() > limit) raised.resize(limit);
  std::vector<protocol::AttentionPendingPane> out;
  for (const Pane* p : raised)
    out.push_back({p->id, p->workspace_id, p->tab_id, p->label, p->task_id, p->lifecycle,
                   p->attention, p->last_message, p->attention_since});
  return out;
}

void Store::mark_notifications_read(const std::string& pane_id, const std::string& now) {
  for (protocol::Json& n : notifications_)
    if (n.value("pane_id", std::string()) == pane_id && !n.contains("read_at")) n["read_at"] = now;
}

void Store::restore_transitions(std::vector<PaneTransitions> saved) {
  for (PaneTransitions& t : saved)
    if (panes_.contains(t.pane_id)) transitions_.insert_or_assign(t.pane_id, std::move(t));
}

}  // namespace signaltty::broker
