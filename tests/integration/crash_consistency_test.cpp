// tests/integration/crash_consistency_test.cpp: seeded rounds of "several
// clients stream mutations, the broker is SIGKILLed at a random moment, it
// starts again on the same dirs". The mutations are workspace create,
// rename and close, tab create and close, and pane spawn (into an empty
// tab, a program that runs until it is closed), rename and close. After
// every kill:
//  - the journal: every event whose request was answered ok is in it, every
//    event a subscriber received is in it under its seq, its seqs strictly
//    increase, and no seq is ever issued twice across rounds (docs/rules.md,
//    Event journal and Sequence reservation);
//  - the restored model, read through the socket once the broker is up
//    again: every workspace, tab and pane change answered ok is in it, a
//    change that was never answered is in it whole or not at all, and
//    nothing else changed (decision 25; docs/persistence.md, "Nothing
//    acknowledged is lost"). A closed workspace or tab takes its panes
//    with it, and server.status counts what the lists show;
//  - the panes' processes: a pane nobody asked to close is live with the
//    same program, ptyhost and process_instance, both still running (its
//    ptyhost outlived the kill and was adopted, decision 1); a pane nobody
//    heard of comes from a spawn that was never answered, and runs in the
//    tab that spawn asked for (its ptyhost had the pane's record with the
//    spawn, decision 2); and a ptyhost of this test that no pane names is
//    gone within a step's deadline (a closed pane's, or one whose spawn
//    never reached it: it holds no program, and is closed at adoption).
// A second test fills the journal past two rotations while no snapshot can
// be saved: the journal must keep what no snapshot holds.
// Runs in: the integration test binary.
// Never: signals a process this test did not start (the fixture removes
// only the ptyhosts and pane programs of this test's own broker).
//
// The kill moment is counted in answered requests, never in wall time, so a
// seed draws the same schedule of requests on any machine (which of them
// were answered at the kill still depends on timing). Rounds build on each
// other's state. Seeds come from kDefaultSeeds; SIGNALTTY_CRASH_ROUNDS=N
// runs N rounds (kDefaultSeeds, then kExtraSeedBase + 1, + 2 …), and
// SIGNALTTY_CRASH_SEEDS="7,8,9" runs exactly those. A failing round prints
// the seed list that replays it.
#include <poll.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr std::array<std::uint32_t, 20> kDefaultSeeds{
    11, 23, 37, 41, 53, 67, 79, 83, 97, 101, 113, 127, 131, 149, 157, 163, 179, 191, 211, 229};
// Seeds past the defaults, for SIGNALTTY_CRASH_ROUNDS above their count.
constexpr std::uint32_t kExtraSeedBase = 1000;
constexpr std::size_t kWorkers = 3;
// Requests each worker keeps in flight, so some are unanswered at the kill.
constexpr std::size_t kInFlightPerWorker = 3;
// The kill comes after this many answered requests, drawn uniformly.
constexpr int kKillAfterMin = 1;
constexpr int kKillAfterMax = 60;
// Below this many open workspaces creates outnumber closes, above it closes
// do, so a long run's model stays about this size.
constexpr std::size_t kWorkspacesAimed = 12;
// The same for panes: each is a ptyhost and a program, so a handful.
constexpr std::size_t kPanesAimed = 6;
// What every pane runs: cheap, quiet, alive until its close's SIGTERM.
const std::vector<std::string> kPaneArgv{"cat"};
// This share of rounds (percent) stops sending halfway and waits until
// snapshot.json holds everything answered so far: their restore is the
// snapshot plus the journal after its journal_seq, the others' the journal
// over a snapshot of some earlier round (or over none).
constexpr int kSnapshotRoundsPercent = 25;
// How long one round may take to reach its kill moment.
constexpr std::chrono::seconds kRoundTimeout{30};

std::vector<std::uint32_t> parse_seeds(const std::string& list) {
  std::vector<std::uint32_t> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(static_cast<std::uint32_t>(std::stoul(item)));
  return out;
}

std::vector<std::uint32_t> seeds() {
  if (const char* env = std::getenv("SIGNALTTY_CRASH_SEEDS"); env && *env) return parse_seeds(env);
  std::vector<std::uint32_t> out(kDefaultSeeds.begin(), kDefaultSeeds.end());
  if (const char* env = std::getenv("SIGNALTTY_CRASH_ROUNDS"); env && *env) {
    const std::size_t rounds = std::stoul(env);
    out.resize(std::min(rounds, out.size()));
    for (std::uint32_t extra = 1; out.size() < rounds; ++extra)
      out.push_back(kExtraSeedBase + extra);
  }
  return out;
}

std::string seed_list(const std::vector<std::uint32_t>& seeds, std::size_t through) {
  std::string out;
  for (std::size_t i = 0; i <= through; ++i) out += (i ? "," : "") + std::to_string(seeds[i]);
  return out;
}

// What an ok answer promises the journal holds: an event name and a key
// drawn from its payload (see journal_key).
using Promise = std::pair<std::string, std::string>;

// A string member of `object`; "" when it is absent or null (a pane
// without a name).
std::string text_of(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string journal_key(const std::string& event, const Json& payload) {
  if (event == "workspace.created" || event == "workspace.updated")
    return text_of(payload["workspace"], "id") + "/" + text_of(payload["workspace"], "name");
  if (event == "workspace.closed") return text_of(payload, "workspace_id");
  if (event == "tab.created") return text_of(payload["tab"], "id");
  if (event == "tab.closed") return text_of(payload, "tab_id");
  if (event == "pane.created") return text_of(payload["pane"], "id");
  if (event == "pane.updated")
    return text_of(payload["pane"], "id") + "/" + text_of(payload["pane"], "name");
  if (event == "pane.closed") return text_of(payload, "pane_id");
  return "";
}

// ---- the model as the socket shows it ----------------------------------------

struct TabFacts {
  std::string workspace_id;
  std::string title;
};

// What a restart must keep of a pane, and what tells its process apart.
struct PaneFacts {
  std::string workspace_id;
  std::string tab_id;
  std::string name;  // "" without one
  Json argv;
  std::string live_state;     // live.state: "live" or "exited"
  std::string restore_state;  // "LIVE" for a running or adopted pane
  Json pid;           // the program's, or null
  Json ptyhost_pid;
  std::string process_instance;

  static PaneFacts of(const Json& pane) {
    return PaneFacts{pane["workspace_id"],
                     pane["tab_id"],
                     text_of(pane, "name"),
                     pane.value("argv", Json()),
                     text_of(pane.value("live", Json::object()), "state"),
                     text_of(pane, "restore_state"),
                     pane.value("pid", Json()),
                     pane.value("ptyhost_pid", Json()),
                     text_of(pane, "process_instance")};
  }
  bool live() const { return live_state == "live" && restore_state == "LIVE"; }
};

struct ModelView {
  std::map<std::string, std::string> workspace_names;  // by id
  std::map<std::string, TabFacts> tabs;                // by id
  std::map<std::string, PaneFacts> panes;              // by id
};

// The pane ids of a layout tree's leaves (none for null).
void collect_leaves(const Json& layout, std::vector<std::string>& out) {
  if (!layout.is_object()) return;
  if (layout.value("type", "") == "pane") out.push_back(text_of(layout, "pane_id"));
  collect_leaves(layout.value("first", Json()), out);
  collect_leaves(layout.value("second", Json()), out);
}

// The panes of one workspace.get: each names this workspace and one of its
// tabs, and each tab's layout holds exactly the panes that name it.
void read_panes(const Json& got, ModelView& view, std::vector<std::string>& problems) {
  const std::string id = got["workspace"]["id"];
  std::map<std::string, std::multiset<std::string>> by_tab;
  for (const Json& tab : got["tabs"]) by_tab[tab["id"]];
  for (const Json& pane : got["panes"]) {
    const std::string pane_id = pane["id"];
    view.panes[pane_id] = PaneFacts::of(pane);
    if (pane["workspace_id"] != id || !by_tab.contains(pane["tab_id"]))
      problems.push_back("pane " + pane_id + " listed under workspace " + id + " names " +
                         pane["workspace_id"].dump() + " / tab " + pane["tab_id"].dump());
    else
      by_tab[pane["tab_id"]].insert(pane_id);
  }
  for (const Json& tab : got["tabs"]) {
    std::vector<std::string> leaves;
    collect_leaves(tab.value("layout", Json()), leaves);
    const std::multiset<std::string> in_layout(leaves.begin(), leaves.end());
    if (in_layout != by_tab[tab["id"]])
      problems.push_back("tab " + tab["id"].get<std::string>() + " lays out " +
                         Json(leaves).dump() + " but holds " + Json(by_tab[tab["id"]]).dump());
  }
}

// One workspace of workspace.list, checked against its workspace.get: the
// tab list and the tab objects agree, each tab names this workspace, the
// active tab is one of them.
void read_workspace(Client& client, const Json& listed, ModelView& view,
                    std::vector<std::string>& problems) {
  const std::string id = listed["id"];
  view.workspace_names[id] = listed["name"];
  const Json got = client.call("workspace.get", {{"workspace_id", id}});
  std::vector<std::string> tab_ids;
  for (const Json& tab : got["tabs"]) {
    tab_ids.push_back(tab["id"]);
    view.tabs[tab["id"]] = TabFacts{tab["workspace_id"], tab["title"]};
    if (tab["workspace_id"] != id)
      problems.push_back("tab " + tab["id"].get<std::string>() + " listed under workspace " + id +
                         " names workspace " + tab["workspace_id"].get<std::string>());
  }
  if (listed.value("tabs", Json::array()) != Json(tab_ids))
    problems.push_back("workspace " + id + " lists tabs " + listed.value("tabs", Json()).dump() +
                       " but holds " + Json(tab_ids).dump());
  const Json active = got["workspace"].value("active_tab_id", Json());
  if (!active.is_null() && std::find(tab_ids.begin(), tab_ids.end(), active) == tab_ids.end())
    problems.push_back("workspace " + id + " has active tab " + active.dump() +
                       " it does not hold");
  read_panes(got, view, problems);
}

// The whole model, and whatever in it does not hang together; the counts
// of server.status catch a tab or pane no workspace lists.
ModelView read_model(Client& client, std::vector<std::string>& problems) {
  ModelView view;
  const Json listed = client.call("workspace.list");
  for (const Json& ws : listed["workspaces"]) read_workspace(client, ws, view, problems);
  const Json status = client.call("server.status");
  const auto live = std::count_if(view.panes.begin(), view.panes.end(),
                                  [](const auto& p) { return p.second.live_state == "live"; });
  const Json listed_counts = {view.workspace_names.size(), view.tabs.size(), view.panes.size(),
                              live};
  const Json counted = {status["workspaces"], status["tabs"], status["panes"],
                        status["live_panes"]};
  if (counted != listed_counts)
    problems.push_back("server.status counts " + counted.dump() +
                       " workspaces, tabs, panes and live panes; the lists hold " +
                       listed_counts.dump());
  return view;
}

// ---- what the clients sent and heard ------------------------------------------

// One request of a round. Ticks order sends and answers as the test saw
// them: a request sent after another's answer arrived was applied after it.
struct Sent {
  std::string method;
  Json params;
  std::uint64_t sent_tick = 0;
  std::optional<std::uint64_t> answered_tick;
  bool ok = false;
  Json result;

  bool acked() const { return answered_tick && ok; }
  bool unanswered() const { return !answered_tick; }
  // Whether it may be in the restored model at all.
  bool may_apply() const { return !answered_tick || ok; }
  std::string param(const char* key) const { return params.value(key, ""); }
};

struct Worker {
  Client client;
  std::map<std::string, std::size_t> pending;  // request id -> index in the ledger
};

// One round: the requests, the kill, and what the clients saw.
class CrashRound {
 public:
  CrashRound(std::uint32_t seed, const std::string& socket_path, const ModelView& before)
      : rng_(seed), seed_(seed) {
    kill_after_ = std::uniform_int_distribution<int>(kKillAfterMin, kKillAfterMax)(rng_);
    if (std::uniform_int_distribution<int>(0, 99)(rng_) < kSnapshotRoundsPercent)
      snapshot_at_ = kill_after_ / 2;
    for (const auto& [id, name] : before.workspace_names) workspaces_.push_back(id);
    for (const auto& [id, tab] : before.tabs) tabs_.push_back({id, tab.workspace_id});
    for (const auto& [id, pane] : before.panes)
      panes_.push_back({id, pane.tab_id, pane.workspace_id});
    for (std::size_t i = 0; i < kWorkers; ++i) workers_.push_back(Worker{Client(socket_path), {}});
  }

  // Streams requests until kill_after_ have been answered, then returns.
  // In a snapshot round, once snapshot_at_ are answered, lets the requests
  // in flight finish and calls `await_snapshot` before going on.
  void run_until_kill_moment(const std::function<void()>& await_snapshot) {
    const Deadline deadline = deadline_after(kRoundTimeout);
    fill_streams();
    while (answered_ < kill_after_) {
      read_answers(deadline);
      if (!waiting_for_snapshot()) continue;
      while (in_flight() > 0) read_answers(deadline);
      await_snapshot();
      snapshot_waited_ = true;
      fill_streams();
    }
  }

  // After the kill: takes every answer that was already on its way.
  void drain_after_kill() {
    for (auto& w : workers_)
      while (auto line = w.client.read_line(deadline_after())) on_response(w, *line);
  }

  const std::vector<Sent>& ledger() const { return ledger_; }
  bool snapshot_waited() const { return snapshot_waited_; }
  const std::set<Promise>& promises() const { return promises_; }
  int kill_after() const { return kill_after_; }
  int answered() const { return answered_; }

 private:
  struct OpenTab {
    std::string id;
    std::string workspace_id;
  };
  struct OpenPane {
    std::string id;
    std::string tab_id;
    std::string workspace_id;
  };

  bool waiting_for_snapshot() const {
    return snapshot_at_ > 0 && !snapshot_waited_ && answered_ >= snapshot_at_;
  }
  bool sending() const { return answered_ < kill_after_ && !waiting_for_snapshot(); }

  std::size_t in_flight() const {
    std::size_t n = 0;
    for (const auto& w : workers_) n += w.pending.size();
    return n;
  }

  void fill_streams() {
    for (auto& w : workers_)
      while (sending() && w.pending.size() < kInFlightPerWorker) send_next(w);
  }

  void read_answers(Deadline deadline) {
    if (Clock::now() >= deadline) throw HarnessError("round did not reach its kill moment");
    wait_readable(deadline);
    for (auto& w : workers_)
      for (const std::string& line : w.client.read_available()) on_response(w, line);
  }

  void wait_readable(Deadline deadline) {
    std::vector<pollfd> fds;
    for (auto& w : workers_) fds.push_back({w.client.fd(), POLLIN, 0});
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(ms.count(), 0)));
  }

  template <class T>
  const T& pick(const std::vector<T>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng_)];
  }

  // A tab a spawn may go to: known to exist, holding no pane as far as the
  // answers tell, and no spawn of this round sent to it (so a pane found
  // in it after the restart names the one spawn that can have made it).
  std::optional<OpenTab> free_tab() {
    std::vector<OpenTab> free;
    for (const OpenTab& tab : tabs_)
      if (!spawned_into_.contains(tab.id) &&
          std::none_of(panes_.begin(), panes_.end(),
                       [&](const OpenPane& p) { return p.tab_id == tab.id; }))
        free.push_back(tab);
    if (free.empty()) return std::nullopt;
    return pick(free);
  }

  // A pane.spawn into a free tab, else a tab.create that makes one.
  std::pair<std::string, Json> spawn_or_tab(const std::string& name) {
    std::optional<OpenTab> tab = free_tab();
    if (!tab) return {"tab.create", {{"workspace_id", pick(workspaces_)}, {"title", name}}};
    spawned_into_.insert(tab->id);
    return {"pane.spawn",
            {{"workspace_id", tab->workspace_id}, {"tab_id", tab->id}, {"argv", kPaneArgv}}};
  }

  std::pair<std::string, Json> next_request() {
    const int roll = std::uniform_int_distribution<int>(0, 99)(rng_);
    // Unique across rounds too, so a name found after a restart tells which
    // request set it; and renaming to the current name would emit nothing.
    // A pane name must start with a letter and hold no capitals: "n…" does.
    const std::string name = "n" + std::to_string(seed_) + "-" + std::to_string(serial_++);
    // Shares in percent: workspace.close takes 10, pane.close 10 (and both
    // tab and workspace closes take panes with them).
    const int create_share = workspaces_.size() < kWorkspacesAimed ? 20 : 5;
    const int spawn_share = panes_.size() < kPanesAimed ? 20 : 4;
    if (workspaces_.empty() || roll < create_share) return {"workspace.create", {{"name", name}}};
    if (roll < 25)
      return {"workspace.rename", {{"workspace_id", pick(workspaces_)}, {"name", name}}};
    if (roll < 38) return {"tab.create", {{"workspace_id", pick(workspaces_)}, {"title", name}}};
    if (roll < 48 && !tabs_.empty()) return {"tab.close", {{"tab_id", pick(tabs_).id}}};
    if (roll < 58) return {"workspace.close", {{"workspace_id", pick(workspaces_)}}};
    if (roll < 58 + spawn_share || panes_.empty()) return spawn_or_tab(name);
    if (roll < 90) return {"pane.rename", {{"pane_id", pick(panes_).id}, {"name", name}}};
    return {"pane.close", {{"pane_id", pick(panes_).id}}};
  }

  void send_next(Worker& w) {
    auto [method, params] = next_request();
    Json id = w.client.send_request(method, params);
    w.pending[id.get<std::string>()] = ledger_.size();
    ledger_.push_back(Sent{method, std::move(params), ++tick_, std::nullopt, false, Json()});
  }

  void on_response(Worker& w, const std::string& line) {
    Json response = Json::parse(line, nullptr, false);
    if (!response.is_object() || !response.contains("id")) return;
    auto it = w.pending.find(response["id"].is_string() ? response["id"].get<std::string>() : "");
    if (it == w.pending.end()) return;
    ++answered_;
    Sent& sent = ledger_[it->second];
    sent.answered_tick = ++tick_;
    sent.ok = is_ok(response);
    if (sent.ok) {
      sent.result = response["result"];
      record_ok(sent);
    }
    w.pending.erase(it);
    if (sending()) send_next(w);
  }

  void record_ok(const Sent& s) {
    if (s.method == "workspace.create") {
      promises_.insert({"workspace.created", journal_key("workspace.created", s.result)});
      workspaces_.push_back(s.result["workspace"]["id"]);
    } else if (s.method == "workspace.rename") {
      promises_.insert({"workspace.updated", journal_key("workspace.updated", s.result)});
    } else if (s.method == "tab.create") {
      promises_.insert({"tab.created", journal_key("tab.created", s.result)});
      tabs_.push_back({s.result["tab"]["id"], s.result["tab"]["workspace_id"]});
    } else if (s.method == "tab.close") {
      promises_.insert({"tab.closed", s.param("tab_id")});
      std::erase_if(tabs_, [&](const OpenTab& t) { return t.id == s.param("tab_id"); });
      forget_panes([&](const OpenPane& p) { return p.tab_id == s.param("tab_id"); });
    } else if (s.method == "workspace.close") {
      promises_.insert({"workspace.closed", s.param("workspace_id")});
      std::erase(workspaces_, s.param("workspace_id"));
      std::erase_if(tabs_,
                    [&](const OpenTab& t) { return t.workspace_id == s.param("workspace_id"); });
      forget_panes([&](const OpenPane& p) { return p.workspace_id == s.param("workspace_id"); });
    } else {
      record_pane_ok(s);
    }
  }

  void record_pane_ok(const Sent& s) {
    if (s.method == "pane.spawn") {
      const Json& pane = s.result["pane"];
      promises_.insert({"pane.created", journal_key("pane.created", s.result)});
      panes_.push_back({pane["id"], pane["tab_id"], pane["workspace_id"]});
    } else if (s.method == "pane.rename") {
      promises_.insert({"pane.updated", journal_key("pane.updated", s.result)});
    } else if (s.method == "pane.close") {
      forget_panes([&](const OpenPane& p) { return p.id == s.param("pane_id"); });
    }
  }

  // Each pane a close answered ok took with it was closed on the journal.
  void forget_panes(const std::function<bool(const OpenPane&)>& closed) {
    for (const OpenPane& p : panes_)
      if (closed(p)) promises_.insert({"pane.closed", p.id});
    std::erase_if(panes_, closed);
  }

  std::mt19937 rng_;
  std::uint32_t seed_ = 0;
  int kill_after_ = 0;
  int snapshot_at_ = 0;  // 0: not a snapshot round
  bool snapshot_waited_ = false;
  int answered_ = 0;
  std::uint64_t serial_ = 0;
  std::uint64_t tick_ = 0;
  std::vector<std::string> workspaces_;  // open as far as the answers tell
  std::vector<OpenTab> tabs_;
  std::vector<OpenPane> panes_;
  std::set<std::string> spawned_into_;  // tabs a spawn of this round went to
  std::vector<Worker> workers_;
  std::vector<Sent> ledger_;
  std::set<Promise> promises_;
};

// ---- what the restored model must hold ---------------------------------------

// Whether a pane's program runs under its ptyhost: both pids name live
// processes, the ptyhost the program's parent (it spawned it, decision 3).
bool program_runs(const PaneFacts& pane) {
  if (!pane.pid.is_number_integer() || !pane.ptyhost_pid.is_number_integer()) return false;
  const pid_t pid = pane.pid.get<pid_t>();
  const pid_t host = pane.ptyhost_pid.get<pid_t>();
  return pid_alive(pid) && pid_alive(host) && proc_status(pid, "PPid") == std::to_string(host);
}

// Checks the model restored after a round against the model before it and
// the round's ledger. Every entity that existed or was created with an ok
// answer is present unless its close was sent (absent if that close was
// answered ok); a workspace's or pane's name comes from a request that no
// later ok rename superseded; a pane nobody asked to close runs the same
// process as before; an entity the clients never heard of comes whole from
// a create that was never answered (a pane, running, in the tab its spawn
// asked for).
class RestoreCheck {
 public:
  RestoreCheck(const ModelView& before, const std::vector<Sent>& ledger, const ModelView& after)
      : before_(before), ledger_(ledger), after_(after) {}

  std::vector<std::string> problems() {
    check_known_workspaces();
    check_known_tabs();
    check_unknown_workspaces();
    check_unknown_tabs();
    check_known_panes();
    check_unknown_panes();
    return std::move(problems_);
  }

 private:
  // A request that set a workspace's name: the state before the round
  // counts as one answered ok before anything was sent.
  struct Naming {
    std::string name;
    std::uint64_t sent_tick = 0;
    std::optional<std::uint64_t> answered_tick;
    bool acked = false;
  };

  struct KnownPane {
    PaneFacts facts;  // as before the round, or as its spawn was answered
    std::vector<Naming> namings;
  };

  // Whether some `method` request whose `key` param is `id` is in `state`.
  bool any(const std::string& method, const char* key, const std::string& id,
           bool (Sent::*state)() const) const {
    return std::any_of(ledger_.begin(), ledger_.end(), [&](const Sent& s) {
      return s.method == method && s.param(key) == id && (s.*state)();
    });
  }

  // Which ids the clients know, with what they know of them.
  std::map<std::string, std::vector<Naming>> known_workspaces() const {
    std::map<std::string, std::vector<Naming>> out;
    for (const auto& [id, name] : before_.workspace_names) out[id].push_back({name, 0, 0, true});
    for (const Sent& s : ledger_)
      if (s.method == "workspace.create" && s.acked())
        out[s.result["workspace"]["id"]].push_back(
            {s.param("name"), s.sent_tick, s.answered_tick, true});
    for (const Sent& s : ledger_)
      if (s.method == "workspace.rename" && s.may_apply() && out.contains(s.param("workspace_id")))
        out[s.param("workspace_id")].push_back(
            {s.param("name"), s.sent_tick, s.answered_tick, s.acked()});
    return out;
  }

  std::map<std::string, TabFacts> known_tabs() const {
    std::map<std::string, TabFacts> out = before_.tabs;
    for (const Sent& s : ledger_)
      if (s.method == "tab.create" && s.acked())
        out[s.result["tab"]["id"]] = TabFacts{s.result["tab"]["workspace_id"], s.param("title")};
    return out;
  }

  std::map<std::string, KnownPane> known_panes() const {
    std::map<std::string, KnownPane> out;
    for (const auto& [id, pane] : before_.panes) out[id] = {pane, {{pane.name, 0, 0, true}}};
    for (const Sent& s : ledger_)
      if (s.method == "pane.spawn" && s.acked()) {
        const PaneFacts pane = PaneFacts::of(s.result["pane"]);
        out[s.result["pane"]["id"]] = {pane, {{pane.name, s.sent_tick, s.answered_tick, true}}};
      }
    for (const Sent& s : ledger_)
      if (s.method == "pane.rename" && s.may_apply() && out.contains(s.param("pane_id")))
        out[s.param("pane_id")].namings.push_back(
            {s.param("name"), s.sent_tick, s.answered_tick, s.acked()});
    return out;
  }

  // Whether a close of the pane, its tab or its workspace is in `state`.
  bool pane_close(const std::string& id, const PaneFacts& pane,
                  bool (Sent::*state)() const) const {
    return any("pane.close", "pane_id", id, state) ||
           any("tab.close", "tab_id", pane.tab_id, state) ||
           any("workspace.close", "workspace_id", pane.workspace_id, state);
  }

  // The names a restored workspace or pane may carry: each naming that no ok
  // naming sent after its answer superseded.
  static std::set<std::string> allowed_names(const std::vector<Naming>& namings) {
    std::uint64_t last_acked_send = 0;
    for (const Naming& n : namings)
      if (n.acked) last_acked_send = std::max(last_acked_send, n.sent_tick);
    std::set<std::string> out;
    for (const Naming& n : namings)
      if (!n.answered_tick || *n.answered_tick >= last_acked_send) out.insert(n.name);
    return out;
  }

  void check_known_workspaces() {
    for (const auto& [id, namings] : known_workspaces()) {
      const bool present = after_.workspace_names.contains(id);
      if (present && any("workspace.close", "workspace_id", id, &Sent::acked))
        problems_.push_back("workspace " + id + " is back though its close was answered ok");
      if (!present && !any("workspace.close", "workspace_id", id, &Sent::may_apply))
        problems_.push_back("workspace " + id + " (" + namings.back().name +
                            ") is gone though no close of it was sent");
      if (!present) continue;
      const std::set<std::string> names = allowed_names(namings);
      if (!names.contains(after_.workspace_names.at(id)))
        problems_.push_back("workspace " + id + " is named " + after_.workspace_names.at(id) +
                            ", not one of " + Json(names).dump());
    }
  }

  void check_known_tabs() {
    for (const auto& [id, tab] : known_tabs()) {
      const bool closed = any("tab.close", "tab_id", id, &Sent::acked) ||
                          any("workspace.close", "workspace_id", tab.workspace_id, &Sent::acked);
      const bool may_close =
          any("tab.close", "tab_id", id, &Sent::may_apply) ||
          any("workspace.close", "workspace_id", tab.workspace_id, &Sent::may_apply);
      auto found = after_.tabs.find(id);
      if (found != after_.tabs.end() && closed)
        problems_.push_back("tab " + id + " is back though its close was answered ok");
      if (found == after_.tabs.end() && !may_close)
        problems_.push_back("tab " + id + " (" + tab.title +
                            ") is gone though no close of it was sent");
      if (found != after_.tabs.end() &&
          (found->second.workspace_id != tab.workspace_id || found->second.title != tab.title))
        problems_.push_back("tab " + id + " is " + found->second.title + " in " +
                            found->second.workspace_id + ", not " + tab.title + " in " +
                            tab.workspace_id);
    }
  }

  // The unanswered `method` request whose `key` param is `value` (names are
  // unique); records a problem if there is none or it was claimed before.
  const Sent* unanswered_create(const std::string& method, const char* key,
                                const std::string& value, const std::string& what) {
    const Sent* match = nullptr;
    for (const Sent& s : ledger_)
      if (s.method == method && s.unanswered() && s.param(key) == value) match = &s;
    if (!match) problems_.push_back(what + " comes from no request that went unanswered");
    else if (!claimed_.insert(match).second) problems_.push_back(what + " was created twice");
    return match;
  }

  void check_unknown_workspaces() {
    const auto known = known_workspaces();
    for (const auto& [id, name] : after_.workspace_names)
      if (!known.contains(id))
        unanswered_create("workspace.create", "name", name, "workspace " + id + " (" + name + ")");
  }

  void check_unknown_tabs() {
    const auto known = known_tabs();
    for (const auto& [id, tab] : after_.tabs) {
      if (known.contains(id)) continue;
      const std::string what = "tab " + id + " (" + tab.title + ")";
      const Sent* from = unanswered_create("tab.create", "title", tab.title, what);
      if (from && from->param("workspace_id") != tab.workspace_id)
        problems_.push_back(what + " is in workspace " + tab.workspace_id + ", not " +
                            from->param("workspace_id"));
    }
  }

  void check_known_panes() {
    for (const auto& [id, known] : known_panes()) {
      const PaneFacts& was = known.facts;
      const bool may_close = pane_close(id, was, &Sent::may_apply);
      auto found = after_.panes.find(id);
      if (found != after_.panes.end() && pane_close(id, was, &Sent::acked))
        problems_.push_back("pane " + id + " is back though its close was answered ok");
      if (found == after_.panes.end()) {
        if (!may_close)
          problems_.push_back("pane " + id + " is gone though no close of it was sent");
        continue;
      }
      const PaneFacts& now = found->second;
      const std::string what = "pane " + id + " (" + now.name + ")";
      if (now.workspace_id != was.workspace_id || now.tab_id != was.tab_id)
        problems_.push_back(what + " is in " + now.workspace_id + "/" + now.tab_id + ", not " +
                            was.workspace_id + "/" + was.tab_id);
      if (const auto names = allowed_names(known.namings); !names.contains(now.name))
        problems_.push_back(what + " is not named one of " + Json(names).dump());
      if (!may_close && was.live()) check_same_process(what, was, now);
    }
  }

  // A pane nobody closed keeps its process across the kill (decision 1).
  void check_same_process(const std::string& what, const PaneFacts& was, const PaneFacts& now) {
    if (!now.live() || now.pid != was.pid || now.ptyhost_pid != was.ptyhost_pid ||
        now.process_instance != was.process_instance || now.argv != was.argv)
      problems_.push_back(what + " is " + now.live_state + "/" + now.restore_state + " with pid " +
                          now.pid.dump() + " under ptyhost " + now.ptyhost_pid.dump() + " (" +
                          now.process_instance + "), not live with pid " + was.pid.dump() +
                          " under " + was.ptyhost_pid.dump() + " (" + was.process_instance + ")");
    else if (!program_runs(now))
      problems_.push_back(what + ": its program " + now.pid.dump() + " or ptyhost " +
                          now.ptyhost_pid.dump() + " is not running");
  }

  // Each pane nobody heard of comes from its own unanswered spawn, in the
  // tab that spawn asked for: the ptyhost holds the pane's record from the
  // spawn on, so even one the broker never published goes back there
  // (decision 2). It runs the program asked for, unless a close that may
  // have applied took its tab.
  void check_unknown_panes() {
    const auto known = known_panes();
    for (const auto& [id, pane] : after_.panes) {
      if (known.contains(id)) continue;
      const std::string what = "pane " + id + " in tab " + pane.tab_id;
      const Sent* from = nullptr;
      for (const Sent& s : ledger_)
        if (s.method == "pane.spawn" && s.unanswered() && s.param("tab_id") == pane.tab_id)
          from = &s;
      if (!from) problems_.push_back(what + " comes from no spawn that went unanswered");
      else if (!claimed_.insert(from).second) problems_.push_back(what + " was spawned twice");
      if (pane.argv != Json(kPaneArgv)) problems_.push_back(what + " runs " + pane.argv.dump());
      if (!pane_close("", pane, &Sent::may_apply) && !(pane.live() && program_runs(pane)))
        problems_.push_back(what + " is " + pane.live_state + "/" + pane.restore_state +
                            " with pid " + pane.pid.dump() + " under ptyhost " +
                            pane.ptyhost_pid.dump() + ", not running");
    }
  }

  const ModelView& before_;
  const std::vector<Sent>& ledger_;
  const ModelView& after_;
  std::set<const Sent*> claimed_;
  std::vector<std::string> problems_;
};

// How many panes of `after` neither existed before the round nor were
// answered to a spawn in it.
std::size_t unheard_of_panes(const ModelView& before, const std::vector<Sent>& ledger,
                             const ModelView& after) {
  std::set<std::string> heard;
  for (const Sent& s : ledger)
    if (s.method == "pane.spawn" && s.acked()) heard.insert(s.result["pane"]["id"]);
  return std::count_if(after.panes.begin(), after.panes.end(), [&](const auto& p) {
    return !before.panes.contains(p.first) && !heard.contains(p.first);
  });
}

class BrokerCrashConsistency : public PaneTest {
 protected:
  // Checks one round's journal against what the clients saw; raises
  // highest_seq_ past everything this round issued.
  void check_journal(const CrashRound& round, const std::vector<Json>& received) {
    JournalScan journal = read_journal(dirs_.state_dir());
    std::map<std::uint64_t, Json> by_seq;
    std::set<Promise> journaled;
    std::uint64_t prev = 0;
    for (const Json& r : journal.records) {
      const std::uint64_t seq = r.at("seq");
      EXPECT_GT(seq, prev) << "journal seqs must strictly increase";
      prev = seq;
      by_seq[seq] = r;
      journaled.insert({r.value("event", ""), journal_key(r.value("event", ""), r["payload"])});
      if (seq > journal_high_) {
        EXPECT_GT(seq, highest_seq_) << "seq " << seq << " issued twice";
      }
    }
    for (const Promise& p : round.promises())
      EXPECT_TRUE(journaled.count(p)) << "answered ok but not journaled: " << p.first << " " << p.second;
    for (const Json& ev : received) {
      const std::uint64_t seq = ev.at("seq");
      EXPECT_GT(seq, highest_seq_) << "received a reused seq: " << ev.dump();
      auto it = by_seq.find(seq);
      EXPECT_TRUE(it != by_seq.end() && it->second["event"] == ev["event"] &&
                  it->second["payload"] == ev["payload"])
          << "received but not journaled under its seq: " << ev.dump();
    }
    for (const Json& ev : received) highest_seq_ = std::max<std::uint64_t>(highest_seq_, ev.at("seq"));
    highest_seq_ = std::max(highest_seq_, prev);
    journal_high_ = prev;
    torn_lines_ += journal.unparsable.size();
  }

  std::vector<Json> drain_events(Client& subscriber) {
    std::vector<Json> events;
    while (auto ev = subscriber.next_event(deadline_after())) events.push_back(*ev);
    EXPECT_TRUE(subscriber.eof()) << "the subscriber should see the broker die";
    return events;
  }

  // snapshot.json's journal_seq; 0 while there is none.
  std::uint64_t snapshot_journal_seq() const {
    const std::string path = dirs_.state_file("snapshot.json");
    if (!path_exists(path)) return 0;
    const Json doc = Json::parse(read_text_file(path), nullptr, false);
    return doc.is_object() ? doc.value("journal_seq", std::uint64_t{0}) : 0;
  }

  // Waits until snapshot.json reflects every event issued so far (the
  // broker saves at most every 2 s, docs/persistence.md).
  void await_snapshot() {
    const std::uint64_t seq = connect().call("server.status")["seq"];
    if (!wait_until([&] { return snapshot_journal_seq() >= seq; }, deadline_after()))
      throw HarnessError("no snapshot through seq " + std::to_string(seq) + " was saved");
  }

  // The model of the broker now running; a model that does not hang
  // together fails the round.
  ModelView read_current_model() {
    std::vector<std::string> problems;
    Client client = connect();
    ModelView view = read_model(client, problems);
    for (const std::string& p : problems) ADD_FAILURE() << p;
    return view;
  }

  // The ptyhosts a broker of this test launched, by pane id (their command
  // line, `--pane ID --dir PANES_DIR`, names this test's runtime dir).
  std::map<std::string, pid_t> ptyhosts_by_pane() const {
    std::map<std::string, pid_t> out;
    for (pid_t pid : leftovers()) {
      std::vector<std::string> args;
      std::stringstream cmdline(proc_file(pid, "cmdline"));
      for (std::string arg; std::getline(cmdline, arg, '\0');) args.push_back(arg);
      auto flag = std::find(args.begin(), args.end(), "--pane");
      if (flag != args.end() && flag + 1 != args.end() &&
          args.front().ends_with("signaltty-ptyhost"))
        out[*(flag + 1)] = pid;
    }
    return out;
  }

  // Every ptyhost that no pane of `model` names goes within a step's
  // deadline: a closed pane's, and one whose spawn was never answered and
  // whose program never started (decision 2 adopts only what runs).
  void check_no_stray_ptyhosts(const ModelView& model) {
    std::map<std::string, pid_t> strays;
    const bool gone = wait_until([&] {
      strays = ptyhosts_by_pane();
      std::erase_if(strays, [&](const auto& s) { return model.panes.contains(s.first); });
      return strays.empty();
    });
    if (gone) return;
    for (const auto& [pane_id, pid] : strays)
      ADD_FAILURE() << "the ptyhost of " << pane_id << " (pid " << pid
                    << ") is in no pane of the restored model and still runs";
  }

  // One round against the running broker, whose model is `before`; ends
  // with the broker started again and returns the model it restored.
  ModelView run_round(std::uint32_t seed, const ModelView& before) {
    Client subscriber(broker().socket_path());
    EXPECT_EQ(subscriber.call("subscribe", {{"events", {"*"}}})["subscribed"], true);
    EXPECT_GE(connect().call("server.status")["seq"].get<std::uint64_t>(), highest_seq_);
    CrashRound round(seed, broker().socket_path(), before);
    round.run_until_kill_moment([this] { await_snapshot(); });
    broker().sigkill();
    EXPECT_TRUE(broker().wait_exit(deadline_after()).has_value()) << "the broker outlived SIGKILL";
    round.drain_after_kill();
    std::vector<Json> received = drain_events(subscriber);
    check_journal(round, received);
    start();
    ModelView after = read_current_model();
    for (const std::string& p : RestoreCheck(before, round.ledger(), after).problems())
      ADD_FAILURE() << "restored model: " << p;
    check_no_stray_ptyhosts(after);
    std::cout << "[ INFO     ] seed " << seed << ": "
              << (round.snapshot_waited() ? "snapshot saved halfway, " : "")
              << "killed after " << round.kill_after()
              << " answers (" << round.answered() << " seen), " << round.promises().size()
              << " ok mutations, " << received.size() << " events received, highest seq "
              << highest_seq_ << "; restored " << after.workspace_names.size() << " workspaces, "
              << after.tabs.size() << " tabs, " << after.panes.size() << " panes ("
              << unheard_of_panes(before, round.ledger(), after) << " nobody heard of)\n";
    return after;
  }

  std::uint64_t highest_seq_ = 0;   // over every earlier round
  std::uint64_t journal_high_ = 0;  // last journal seq checked so far
  std::size_t torn_lines_ = 0;
};

TEST_F(BrokerCrashConsistency, SigkillAtRandomMomentsLosesNothingAnsweredAndReusesNoSeq) {
  const std::vector<std::uint32_t> all = seeds();
  start();
  ModelView model = read_current_model();
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE("seed " + std::to_string(all[i]));
    try {
      model = run_round(all[i], model);
    } catch (const HarnessError& e) {
      ADD_FAILURE() << e.what();
    }
    if (HasFailure()) {
      std::cout << "[ FAILED   ] seed " << all[i] << " failed; replay the rounds up to it with "
                << "SIGNALTTY_CRASH_SEEDS=" << seed_list(all, i) << "\n";
      return;
    }
  }
  RecordProperty("rounds", static_cast<int>(all.size()));
  RecordProperty("torn_journal_lines", static_cast<int>(torn_lines_));
}

// Enough renames to fill the journal's 8 MiB file twice over (a rename's
// record with its state image is about 600 bytes).
constexpr int kRenamesPastTwoRotations = 36000;

// While no snapshot can be saved (snapshot.json is a non-empty directory,
// which a rename cannot replace), the journal is the only copy of every
// change: filling it past two rotations must not discard the oldest.
TEST_F(BrokerCrashConsistency, JournalRotationKeepsChangesNoSnapshotHolds) {
  start();
  Client client = connect();
  const std::string ws = client.call("workspace.create", {{"name", "base"}})["workspace"]["id"];
  await_snapshot();
  const std::string path = dirs_.state_file("snapshot.json");
  const std::string saved = read_text_file(path);
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  write_text_file(path + "/occupied", "x");

  client.call("workspace.rename", {{"workspace_id", ws}, {"name", "acked-early"}});
  const std::string filler =
      client.call("workspace.create", {{"name", "filler"}})["workspace"]["id"];
  std::vector<Json> renames;
  for (int i = 0; i < kRenamesPastTwoRotations; ++i)
    renames.push_back({{"workspace_id", filler}, {"name", "f" + std::to_string(i)}});
  for (const Json& response : client.request_pipelined("workspace.rename", renames))
    ASSERT_TRUE(is_ok(response)) << response.dump();
  EXPECT_NE(broker().stderr_text().find("rotation waits"), std::string::npos);

  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  std::filesystem::remove_all(path);
  write_text_file(path, saved);
  start();
  Client restored = connect();
  EXPECT_EQ(restored.call("workspace.get", {{"workspace_id", ws}})["workspace"]["name"],
            "acked-early");
  EXPECT_EQ(restored.call("workspace.get", {{"workspace_id", filler}})["workspace"]["name"],
            "f" + std::to_string(kRenamesPastTwoRotations - 1));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
