// tests/integration/crash_consistency_test.cpp: seeded rounds of "several
// clients stream mutations, the broker is SIGKILLed at a random moment, it
// starts again on the same dirs". After every kill: the broker starts (the
// snapshot loads), every event whose request was answered ok is in the
// journal, every event a subscriber received is in the journal under its
// seq, the journal's seqs strictly increase, and no seq is ever issued twice
// across rounds (docs/rules.md, Event journal and Sequence reservation).
// Runs in: the integration test binary.
//
// The kill moment is counted in answered requests, never in wall time, so a
// seed replays the same schedule of requests on any machine. Seeds come from
// kDefaultSeeds, or from SIGNALTTY_CRASH_SEEDS="7,8,9" to chase one.
#include <poll.h>

#include <array>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "tests/integration/harness.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr std::array<std::uint32_t, 20> kDefaultSeeds{
    11, 23, 37, 41, 53, 67, 79, 83, 97, 101, 113, 127, 131, 149, 157, 163, 179, 191, 211, 229};
constexpr std::size_t kWorkers = 3;
// Requests each worker keeps in flight, so some are unanswered at the kill.
constexpr std::size_t kInFlightPerWorker = 3;
// The kill comes after this many answered requests, drawn uniformly.
constexpr int kKillAfterMin = 1;
constexpr int kKillAfterMax = 60;
// How long one round may take to reach its kill moment.
constexpr std::chrono::seconds kRoundTimeout{30};

std::vector<std::uint32_t> seeds() {
  const char* env = std::getenv("SIGNALTTY_CRASH_SEEDS");
  if (!env || !*env) return {kDefaultSeeds.begin(), kDefaultSeeds.end()};
  std::vector<std::uint32_t> out;
  std::stringstream in(env);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(static_cast<std::uint32_t>(std::stoul(item)));
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

struct Pending {
  std::string method;
  Json params;
};

struct Worker {
  Client client;
  std::map<std::string, Pending> pending;  // by request id
};

// One round: the requests, the kill, and what the clients saw.
class CrashRound {
 public:
  CrashRound(std::uint32_t seed, const std::string& socket_path) : rng_(seed), seed_(seed) {
    kill_after_ = std::uniform_int_distribution<int>(kKillAfterMin, kKillAfterMax)(rng_);
    Client lister(socket_path);
    const Json listed = lister.call("workspace.list");
    for (const Json& ws : listed["workspaces"]) {
      workspaces_.push_back(ws["id"]);
      for (const Json& tab : ws.value("tabs", Json::array())) tabs_.push_back(tab);
    }
    for (std::size_t i = 0; i < kWorkers; ++i) workers_.push_back(Worker{Client(socket_path), {}});
  }

  // Streams requests until kill_after_ have been answered, then returns.
  void run_until_kill_moment() {
    for (auto& w : workers_)
      for (std::size_t i = 0; i < kInFlightPerWorker; ++i) send_next(w);
    const Deadline deadline = deadline_after(kRoundTimeout);
    while (answered_ < kill_after_) {
      if (Clock::now() >= deadline) throw HarnessError("round did not reach its kill moment");
      wait_readable(deadline);
      for (auto& w : workers_)
        for (const std::string& line : w.client.read_available()) on_response(w, line, true);
    }
  }

  // After the kill: takes every answer that was already on its way.
  void drain_after_kill() {
    for (auto& w : workers_)
      while (auto line = w.client.read_line(deadline_after())) on_response(w, *line, false);
  }

  const std::set<Promise>& promises() const { return promises_; }
  int kill_after() const { return kill_after_; }
  int answered() const { return answered_; }

 private:
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

  Pending next_request() {
    const int roll = std::uniform_int_distribution<int>(0, 99)(rng_);
    // Unique across rounds too: the restart keeps every answered name
    // (decision 25), and renaming to the current name emits nothing.
    const std::string name = "n" + std::to_string(seed_) + "-" + std::to_string(serial_++);
    if (workspaces_.empty() || roll < 25) return {"workspace.create", {{"name", name}}};
    if (roll < 55) return {"workspace.rename", {{"workspace_id", pick(workspaces_)}, {"name", name}}};
    if (roll < 80) return {"tab.create", {{"workspace_id", pick(workspaces_)}, {"title", name}}};
    if (roll < 95 && !tabs_.empty()) return {"tab.close", {{"tab_id", pick(tabs_)}}};
    return {"workspace.close", {{"workspace_id", pick(workspaces_)}}};
  }

  void send_next(Worker& w) {
    Pending p = next_request();
    Json id = w.client.send_request(p.method, p.params);
    w.pending[id.get<std::string>()] = std::move(p);
  }

  void on_response(Worker& w, const std::string& line, bool keep_going) {
    Json response = Json::parse(line, nullptr, false);
    if (!response.is_object() || !response.contains("id")) return;
    auto it = w.pending.find(response["id"].is_string() ? response["id"].get<std::string>() : "");
    if (it == w.pending.end()) return;
    ++answered_;
    if (is_ok(response)) record_promise(it->second, response["result"]);
    w.pending.erase(it);
    if (keep_going && answered_ < kill_after_) send_next(w);
  }

  void record_promise(const Pending& p, const Json& result) {
    if (p.method == "workspace.create") {
      promises_.insert({"workspace.created", journal_key("workspace.created", result)});
      workspaces_.push_back(result["workspace"]["id"]);
    } else if (p.method == "workspace.rename") {
      promises_.insert({"workspace.updated", journal_key("workspace.updated", result)});
    } else if (p.method == "tab.create") {
      promises_.insert({"tab.created", journal_key("tab.created", result)});
      tabs_.push_back(result["tab"]["id"]);
    } else if (p.method == "tab.close") {
      promises_.insert({"tab.closed", p.params["tab_id"].get<std::string>()});
    } else if (p.method == "workspace.close") {
      promises_.insert({"workspace.closed", p.params["workspace_id"].get<std::string>()});
    }
  }

  std::mt19937 rng_;
  std::uint32_t seed_ = 0;
  int kill_after_ = 0;
  int answered_ = 0;
  std::uint64_t serial_ = 0;
  std::vector<Json> workspaces_;  // ids; closed ones may linger (answers then fail)
  std::vector<Json> tabs_;
  std::vector<Worker> workers_;
  std::set<Promise> promises_;
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

  void run_round(std::uint32_t seed) {
    start();
    Client subscriber(broker().socket_path());
    ASSERT_EQ(subscriber.call("subscribe", {{"events", {"*"}}})["subscribed"], true);
    EXPECT_GE(connect().call("server.status")["seq"].get<std::uint64_t>(), highest_seq_);
    CrashRound round(seed, broker().socket_path());
    round.run_until_kill_moment();
    broker().sigkill();
    auto status = broker().wait_exit(deadline_after());
    ASSERT_TRUE(status.has_value());
    round.drain_after_kill();
    std::vector<Json> received = drain_events(subscriber);
    check_journal(round, received);
    std::cout << "[ INFO     ] seed " << seed << ": killed after " << round.kill_after()
              << " answers (" << round.answered() << " seen), " << round.promises().size()
              << " ok mutations, " << received.size() << " events received, highest seq "
              << highest_seq_ << "\n";
  }

  std::uint64_t highest_seq_ = 0;   // over every earlier round
  std::uint64_t journal_high_ = 0;  // last journal seq checked so far
  std::size_t torn_lines_ = 0;
};

TEST_F(BrokerCrashConsistency, SigkillAtRandomMomentsLosesNoAnsweredEventAndReusesNoSeq) {
  for (std::uint32_t seed : seeds()) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    run_round(seed);
    if (HasFatalFailure()) return;
  }
  start();  // the last round's state loads too
  EXPECT_TRUE(is_ok(connect().request("server.status")));
  RecordProperty("torn_journal_lines", static_cast<int>(torn_lines_));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
