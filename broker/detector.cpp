// broker/detector.cpp: screen rules on live unhooked panes, the live process
// refresh, agents.list/reload and pane.explain (docs/rules.md "Detection
// without hooks"). Runs in: broker (io thread).
#include "broker/detector.hpp"

#include <algorithm>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "broker/agents/detect.hpp"
#include "broker/agents/process_scan.hpp"
#include "broker/event_pipeline.hpp"
#include "broker/ptyhost_text.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

using protocol::AgentKind;
using protocol::Attention;
using protocol::Lifecycle;
using protocol::Pane;
using protocol::ScreenRuleState;
using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kLiveState = "live";
// attention.cleared reasons for an input_required a screen rule raised.
constexpr std::string_view kScreenClearReason = "screen";
constexpr std::string_view kHookClearReason = "hook";

bool is_live(const Pane& pane) { return pane.live.state == kLiveState && pane.pid.has_value(); }


}  // namespace

agents::ScreenText bounded_screen(const wire::ScreenReply& reply) {
  agents::ScreenText screen;
  screen.title = clean_text(reply.title, limits::kTitleMaxChars);
  const std::size_t rows = std::min(reply.rows.size(), kScreenRowsMax);
  screen.rows.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i)
    screen.rows.emplace_back(utf8_prefix(reply.rows[i], kScreenRowBytesMax));
  return screen;
}

Detector::Detector(boost::asio::io_context& io, Store& store, Supervisor& supervisor,
                   EventPipeline& pipeline, SnapshotScheduler& snapshots, std::string agents_dir)
    : io_(io),
      store_(store),
      supervisor_(supervisor),
      pipeline_(pipeline),
      snapshots_(snapshots),
      agents_dir_(std::move(agents_dir)),
      manifests_(agents::ManifestSet::bundled_only()),
      tick_timer_(io),
      refresh_timer_(io) {}

Detector::~Detector() { stop(); }

void Detector::start() {
  if (auto loaded = agents::ManifestSet::load(agents_dir_); loaded.ok()) {
    manifests_ = std::move(loaded).value();
  } else {
    log::warn("agent manifests: " + loaded.error().message + "; only the bundled rules apply");
  }
  for (const auto& failure : manifests_->describe().failures)
    log::warn("agent manifest " + failure.file + " skipped: " + failure.error);
  std::weak_ptr<int> alive = alive_;
  supervisor_.set_screen_observer(
      [this, alive](const std::string& pane_id, Supervisor::ScreenNotice notice) {
        if (!alive.expired()) on_screen_notice(pane_id, notice);
      });
  stopped_ = false;
  refresh_processes();
  arm_refresh(kProcessRefreshInterval);
  want_tick();
}

void Detector::stop() {
  stopped_ = true;
  tick_armed_ = false;
  tick_timer_.cancel();
  refresh_timer_.cancel();
}

// ---- manifests ---------------------------------------------------------------

protocol::AgentsListResult Detector::list() const { return manifests_->describe(); }

Result<protocol::AgentsListResult> Detector::reload() {
  SIGNALTTY_TRY(auto loaded, agents::ManifestSet::load(agents_dir_));
  manifests_ = std::move(loaded);
  for (const auto& failure : manifests_->describe().failures)
    log::warn("agent manifest " + failure.file + " skipped: " + failure.error);
  want_tick();  // a screen that changed under no rules may have some now
  return manifests_->describe();
}

std::optional<AgentKind> Detector::overlay_kind(std::string_view program) const {
  return manifests_->kind_of_program(program);
}

// ---- per pane ------------------------------------------------------------------

Detector::PaneWatch& Detector::watch(const Pane& pane) {
  PaneWatch& w = watches_[pane.id];
  if (w.process_instance != pane.process_instance) {
    w = PaneWatch{};
    w.process_instance = pane.process_instance;
  }
  return w;
}

// What generic rules are scoped to: the refreshed program, else the
// spawn argv's.
std::string Detector::program_of(const Pane& pane) {
  PaneWatch& w = watch(pane);
  return w.program.empty() ? agents::program_name(pane.argv) : w.program;
}

bool Detector::classifies(const Pane& pane, const agents::RuleSelection& rules) {
  return is_live(pane) && !watch(pane).hooked && !rules.rules.empty();
}

void Detector::note_hook(Txn& txn, const std::string& pane_id) {
  auto found = store_.find_pane(pane_id);
  if (!found.ok()) return;
  const Pane& pane = **found;
  PaneWatch& w = watch(pane);
  if (!w.hooked) {
    w.hooked = true;
    w.hooked_process.reset();  // the next refresh names it
    w.pending.reset();
  }
  if (w.raised_input_required && pane.attention == Attention::InputRequired) {
    if (auto r = store_.clear_pane_attention(txn, pane.id, kHookClearReason); !r.ok())
      log::warn("hook on " + pane.id + ": " + r.error().message);
  }
  w.raised_input_required = false;
}

// ---- screen rules ----------------------------------------------------------------

void Detector::on_screen_notice(const std::string& pane_id, Supervisor::ScreenNotice notice) {
  if (notice == Supervisor::ScreenNotice::Foreground) {
    const auto now = SteadyClock::now();
    const auto due = std::max(now + kForegroundRefreshDelay, refreshed_at_ + kForegroundRefreshMinGap);
    if (!stopped_ && due < refresh_due_)
      arm_refresh(std::chrono::duration_cast<std::chrono::milliseconds>(due - now));
    return;
  }
  auto found = store_.find_pane(pane_id);
  if (!found.ok()) return;
  watch(**found).dirty = true;
  want_tick();
}

// The tick runs only while a screen waits to be read: at most one per
// kScreenRuleTick, and none while every pane is quiet.
void Detector::want_tick() {
  if (stopped_ || tick_armed_) return;
  tick_armed_ = true;
  tick_timer_.expires_at(std::max(SteadyClock::now(), ticked_at_ + kScreenRuleTick));
  std::weak_ptr<int> alive = alive_;
  tick_timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || alive.expired() || stopped_) return;
    tick_armed_ = false;
    tick_screens();
  });
}

// A screen that is not read now (no rules, hooked, not live, no screen
// watch) waits for what changes that: a notice, a refresh, a reload. One
// whose read is in flight is looked at again when the reply comes.
void Detector::tick_screens() {
  ticked_at_ = SteadyClock::now();
  const std::vector<Pane> panes = store_.list_panes();
  std::set<std::string_view> ids;
  for (const Pane& pane : panes) ids.insert(pane.id);
  std::erase_if(watches_, [&ids](const auto& entry) { return !ids.contains(entry.first); });
  for (const Pane& pane : panes) {
    PaneWatch& w = watch(pane);
    const agents::RuleSelection rules = manifests_->rules_for(pane.agent.kind, program_of(pane));
    const bool wanted = w.dirty || w.pending.has_value();
    if (wanted && !w.in_flight && classifies(pane, rules) && supervisor_.watches_screen(pane.id)) {
      w.dirty = false;
      w.in_flight = true;
      std::weak_ptr<int> alive = alive_;
      supervisor_.screen(pane.id, true,
                         [this, alive, id = pane.id](Result<wire::ScreenReply> reply) {
                           if (!alive.expired()) on_screen(id, std::move(reply));
                         });
    }
  }
}

void Detector::on_screen(const std::string& pane_id, Result<wire::ScreenReply> reply) {
  auto found = store_.find_pane(pane_id);
  if (!found.ok()) return;
  const Pane& pane = **found;
  PaneWatch& w = watch(pane);
  w.in_flight = false;
  if (!reply.ok()) w.dirty = true;  // try again on a later tick, if the pane still runs
  else read_screen(pane, w, *reply);
  if (w.dirty || w.pending) want_tick();
}

void Detector::read_screen(const Pane& pane, PaneWatch& w, const wire::ScreenReply& reply) {
  const agents::RuleSelection rules = manifests_->rules_for(pane.agent.kind, program_of(pane));
  if (!classifies(pane, rules)) return;
  const agents::ScreenText screen = bounded_screen(reply);
  const agents::RuleTrace trace = agents::evaluate(rules.rules, screen);
  std::optional<ScreenRuleState> state;
  // A title is a terminal signal (OSC 0/2): a rule on it moves the pane
  // with the source `osc`, any other with `screen`.
  LifecycleSource source = LifecycleSource::Screen;
  if (trace.winner) {
    state = rules.rules[*trace.winner]->state;
    if (rules.rules[*trace.winner]->region == agents::Region::Title) source = LifecycleSource::Osc;
  }
  if (!state || *state == ScreenRuleState::Hold || !would_change(*state, pane)) {
    w.pending.reset();
    return;
  }
  if (w.pending != state) {
    w.pending = state;  // the next tick reads again and confirms
    return;
  }
  w.pending.reset();
  apply(std::string(pane.id), *state, source);  // a copy: apply changes the store
}

// Whether `state` would move the pane (docs/rules.md "Detection without
// hooks"): a state it already has needs no confirming read.
bool Detector::would_change(ScreenRuleState state, const Pane& pane) const {
  switch (state) {
    case ScreenRuleState::Working: return pane.lifecycle != Lifecycle::Working;
    case ScreenRuleState::Blocked:
      return pane.lifecycle != Lifecycle::Blocked || pane.attention < Attention::InputRequired;
    case ScreenRuleState::Idle:
      return pane.lifecycle == Lifecycle::Working || pane.lifecycle == Lifecycle::Blocked;
    case ScreenRuleState::Hold: return false;
  }
  return false;
}

void Detector::withdraw_input_required(Txn& txn, const Pane& pane, PaneWatch& w) {
  if (w.raised_input_required && pane.attention == Attention::InputRequired) {
    if (auto r = store_.clear_pane_attention(txn, pane.id, kScreenClearReason); !r.ok())
      log::warn("screen rule on " + pane.id + ": " + r.error().message);
  }
  w.raised_input_required = false;
}

// working → working; blocked → blocked + input_required; idle after
// working → done + unread, after blocked → idle.
void Detector::apply(const std::string& pane_id, ScreenRuleState state, LifecycleSource source) {
  auto found = store_.find_pane(pane_id);
  if (!found.ok()) return;
  const Pane pane = **found;
  PaneWatch& w = watch(pane);
  Txn txn;
  auto move_to = [&](Lifecycle lifecycle) {
    if (auto r = store_.set_pane_lifecycle(txn, pane.id, lifecycle, source);
        !r.ok())
      log::warn("screen rule on " + pane.id + ": " + r.error().message);
  };
  auto raise = [&](Attention attention) {
    if (auto r = store_.raise_pane_attention(txn, pane.id, attention, std::nullopt); !r.ok())
      log::warn("screen rule on " + pane.id + ": " + r.error().message);
  };
  switch (state) {
    case ScreenRuleState::Working:
      if (pane.lifecycle == Lifecycle::Blocked) withdraw_input_required(txn, pane, w);
      move_to(Lifecycle::Working);
      break;
    case ScreenRuleState::Blocked:
      move_to(Lifecycle::Blocked);
      if (pane.attention < Attention::InputRequired) {
        raise(Attention::InputRequired);
        w.raised_input_required = true;
      }
      break;
    case ScreenRuleState::Idle:
      if (pane.lifecycle == Lifecycle::Working) {
        move_to(Lifecycle::Done);
        raise(Attention::Unread);
      } else if (pane.lifecycle == Lifecycle::Blocked) {
        withdraw_input_required(txn, pane, w);
        move_to(Lifecycle::Idle);
      }
      break;
    case ScreenRuleState::Hold: break;
  }
  commit(txn);
}

void Detector::commit(Txn& txn) {
  snapshots_.mark_if_changed();
  if (!txn.empty()) pipeline_.commit(std::move(txn), [] {});
}

// ---- pane.explain -------------------------------------------------------------------

void Detector::explain(const std::string& pane_id,
                       std::function<void(Result<protocol::PaneExplainResult>)> done) {
  auto found = store_.find_pane(pane_id);
  if (!found.ok()) return done(std::move(found).error());
  const Pane pane = **found;
  auto trace = [this, pane, done = std::move(done)](std::optional<agents::ScreenText> screen) {
    protocol::PaneExplainResult r;
    r.pane_id = pane.id;
    r.kind = pane.agent.kind;
    const std::string program = program_of(pane);
    if (!program.empty()) r.process = program;
    r.live = is_live(pane);
    r.hooked = watch(pane).hooked;
    const agents::RuleSelection rules = manifests_->rules_for(pane.agent.kind, program);
    r.source = rules.source;
    r.classifies = classifies(pane, rules);
    agents::RuleTrace t;
    if (screen) t = agents::evaluate(rules.rules, *screen);
    r.rules = agents::explain_rules(rules.rules, t);
    r.matched = agents::explain_winner(rules.rules, t);
    done(std::move(r));
  };
  if (!is_live(pane) || !supervisor_.watches_screen(pane.id)) return trace(std::nullopt);
  std::weak_ptr<int> alive = alive_;
  supervisor_.screen(pane.id, false,
                     [alive, trace = std::move(trace)](Result<wire::ScreenReply> reply) {
                       if (alive.expired()) return;
                       if (!reply.ok()) return trace(std::nullopt);
                       trace(bounded_screen(*reply));
                     });
}

// ---- the live process refresh ---------------------------------------------------------

void Detector::arm_refresh(std::chrono::milliseconds after) {
  if (stopped_) return;
  refresh_due_ = SteadyClock::now() + after;
  refresh_timer_.expires_at(refresh_due_);
  std::weak_ptr<int> alive = alive_;
  refresh_timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || alive.expired() || stopped_) return;
    refresh_processes();
    arm_refresh(kProcessRefreshInterval);
  });
}

// Every live pane's program and cwd from /proc: the program names the
// generic rules' scope and promotes a generic pane; a different process
// than the hooked one ends the hook's hold; one pane.updated per change.
void Detector::refresh_processes() {
  refreshed_at_ = SteadyClock::now();
  const agents::ProcessTable table = agents::ProcessTable::read();
  Txn txn;
  bool reread = false;
  for (const Pane& pane : store_.list_panes()) {
    if (!is_live(pane)) continue;
    PaneWatch& w = watch(pane);
    const pid_t root = static_cast<pid_t>(*pane.pid);
    const agents::ProcessStat* stat = table.find(root);
    auto program = agents::foreground_program(table, root, stat ? stat->tty_pgid : 0);
    if (!program) continue;
    const ProcessKey key{program->pid, program->start_time};
    if (w.program != program->program) reread = w.dirty = true;  // other rules may apply now
    w.program = program->program;
    if (w.hooked && !w.hooked_process) {
      w.hooked_process = key;
    } else if (w.hooked && *w.hooked_process != key) {
      w.hooked = false;  // the process that sent hooks is no longer the pane's program
      w.hooked_process.reset();
      reread = w.dirty = true;
    }
    std::optional<AgentKind> kind = manifests_->kind_of_program(program->program);
    if (!kind) kind = agents::kind_of_program(program->program);
    if (auto r = store_.refresh_pane_process(txn, pane.id, kind, program->cwd); !r.ok())
      log::warn("process refresh of " + pane.id + ": " + r.error().message);
  }
  commit(txn);
  if (reread) want_tick();
}

}  // namespace signaltty::broker
