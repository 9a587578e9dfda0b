// tests/integration/crash_consistency_test.cpp: seeded rounds of "several
// clients stream mutations, the broker is SIGKILLed at a random moment, it
// starts again on the same dirs". After every kill:
//  - the journal: every event whose request was answered ok is in it, every
//    event a subscriber received is in it under its seq, its seqs strictly
//    increase, and no seq is ever issued twice across rounds (docs/rules.md,
//    Event journal and Sequence reservation);
//  - the restored model, read through the socket once the broker is up
//    again: every workspace and tab create, rename and close answered ok is
//    in it, a change that was never answered is in it whole or not at all,
//    and nothing else changed (decision 25; docs/persistence.md, "Nothing
//    acknowledged is lost").
// A second test fills the journal past two rotations while no snapshot can
// be saved: the journal must keep what no snapshot holds.
// Runs in: the integration test binary.
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

std::string journal_key(const std::string& event, const Json& payload) {
  if (event == "workspace.created" || event == "workspace.updated")
    return payload["workspace"].value("id", "") + "/" + payload["workspace"].value("name", "");
  if (event == "workspace.closed") return payload.value("workspace_id", "");
  if (event == "tab.created") return payload["tab"].value("id", "");
  if (event == "tab.closed") return payload.value("tab_id", "");
  return "";
}

// ---- the model as the socket shows it ----------------------------------------

struct TabFacts {
  std::string workspace_id;
  std::string title;
};

struct ModelView {
  std::map<std::string, std::string> workspace_names;  // by id
  std::map<std::string, TabFacts> tabs;                // by id
};

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
}

// The whole model, and whatever in it does not hang together; the counts
// of server.status catch a tab no workspace lists.
ModelView read_model(Client& client, std::vector<std::string>& problems) {
  ModelView view;
  const Json listed = client.call("workspace.list");
  for (const Json& ws : listed["workspaces"]) read_workspace(client, ws, view, problems);
  const Json status = client.call("server.status");
  if (status["workspaces"] != view.workspace_names.size() || status["tabs"] != view.tabs.size())
    problems.push_back("server.status counts " + status["workspaces"].dump() + " workspaces and " +
                       status["tabs"].dump() + " tabs; the lists hold " +
                       std::to_string(view.workspace_names.size()) + " and " +
                       std::to_string(view.tabs.size()));
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

  std::pair<std::string, Json> next_request() {
    const int roll = std::uniform_int_distribution<int>(0, 99)(rng_);
    // Unique across rounds too, so a name found after a restart tells which
    // request set it; and renaming to the current name would emit nothing.
    const std::string name = "n" + std::to_string(seed_) + "-" + std::to_string(serial_++);
    const int create_share = workspaces_.size() < kWorkspacesAimed ? 30 : 10;
    if (workspaces_.empty() || roll < create_share) return {"workspace.create", {{"name", name}}};
    if (roll < 45)
      return {"workspace.rename", {{"workspace_id", pick(workspaces_)}, {"name", name}}};
    if (roll < 70) return {"tab.create", {{"workspace_id", pick(workspaces_)}, {"title", name}}};
    if (roll < 85 && !tabs_.empty()) return {"tab.close", {{"tab_id", pick(tabs_).id}}};
    return {"workspace.close", {{"workspace_id", pick(workspaces_)}}};
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
    } else if (s.method == "workspace.close") {
      promises_.insert({"workspace.closed", s.param("workspace_id")});
      std::erase(workspaces_, s.param("workspace_id"));
      std::erase_if(tabs_,
                    [&](const OpenTab& t) { return t.workspace_id == s.param("workspace_id"); });
    }
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
  std::vector<Worker> workers_;
  std::vector<Sent> ledger_;
  std::set<Promise> promises_;
};

// ---- what the restored model must hold ---------------------------------------

// Checks the model restored after a round against the model before it and
// the round's ledger. Every entity that existed or was created with an ok
// answer is present unless its close was sent (absent if that close was
// answered ok); a workspace's name comes from a request that no later ok
// rename superseded; an entity the clients never heard of comes whole from
// a create that was never answered.
class RestoreCheck {
 public:
  RestoreCheck(const ModelView& before, const std::vector<Sent>& ledger, const ModelView& after)
      : before_(before), ledger_(ledger), after_(after) {}

  std::vector<std::string> problems() {
    check_known_workspaces();
    check_known_tabs();
    check_unknown_workspaces();
    check_unknown_tabs();
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

  // The names a restored workspace may carry: each naming that no ok
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

  const ModelView& before_;
  const std::vector<Sent>& ledger_;
  const ModelView& after_;
  std::set<const Sent*> claimed_;
  std::vector<std::string> problems_;
};

class BrokerCrashConsistency : public BrokerTest {
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
    std::cout << "[ INFO     ] seed " << seed << ": "
              << (round.snapshot_waited() ? "snapshot saved halfway, " : "")
              << "killed after " << round.kill_after()
              << " answers (" << round.answered() << " seen), " << round.promises().size()
              << " ok mutations, " << received.size() << " events received, highest seq "
              << highest_seq_ << "; restored " << after.workspace_names.size() << " workspaces, "
              << after.tabs.size() << " tabs\n";
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
