// tests/integration/durability_test.cpp: what survives the broker: the
// snapshot across a clean restart, the audit journal and sequence
// reservation across SIGKILL, replay from the journal and its refusals, and
// the startup verdicts on damaged files (docs/rules.md: Persistence, decision 4).
// Runs in: the integration test binary.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// The broker's exit statuses (interface contract).
constexpr int kExitRefused = 1;
constexpr int kExitJournalFailed = 70;
// Replay refuses more matching events than this (docs/rules.md, Replay).
constexpr std::size_t kReplayMaxEvents = 4096;
// audit.jsonl rotates past this size (docs/rules.md, Event journal).
constexpr std::uint64_t kJournalRotateBytes = 8u << 20;

using BrokerDurability = BrokerTest;

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::uint64_t file_size(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

bool seqs_strictly_increase(const std::vector<Json>& records) {
  for (std::size_t i = 1; i < records.size(); ++i)
    if (records[i]["seq"].get<std::uint64_t>() <= records[i - 1]["seq"].get<std::uint64_t>()) return false;
  return true;
}

// Journal records by seq.
std::map<std::uint64_t, Json> by_seq(const std::vector<Json>& records) {
  std::map<std::uint64_t, Json> out;
  for (const Json& r : records) out[r["seq"].get<std::uint64_t>()] = r;
  return out;
}

// Reads events from `subscriber` until `count` of them named `name` came.
std::vector<Json> collect_events(Client& subscriber, const std::string& name, std::size_t count) {
  std::vector<Json> events;
  std::size_t seen = 0;
  const Deadline deadline = deadline_after();
  while (seen < count) {
    auto ev = subscriber.next_event(deadline);
    if (!ev) throw HarnessError("only " + std::to_string(seen) + " " + name + " events arrived");
    if (ev->value("event", "") == name) ++seen;
    events.push_back(std::move(*ev));
  }
  return events;
}

// A subscriber for every event; throws unless subscribed.
Client subscribe_all(const std::string& socket_path) {
  Client subscriber(socket_path);
  Json result = subscriber.call("subscribe", {{"events", {"*"}}});
  if (result.value("subscribed", false) != true) throw HarnessError("subscribe: " + result.dump());
  return subscriber;
}

std::vector<Json> rename_params(const Json& workspace_id, std::size_t count, std::size_t name_bytes) {
  std::vector<Json> params;
  for (std::size_t i = 0; i < count; ++i) {
    std::string name = std::to_string(i) + "-";
    name.resize(std::max(name.size(), name_bytes), 'n');
    params.push_back({{"workspace_id", workspace_id}, {"name", name}});
  }
  return params;
}

void expect_all_ok(const std::vector<Json>& responses) {
  for (const Json& r : responses) ASSERT_TRUE(is_ok(r)) << r.dump();
}

TEST_F(BrokerDurability, RestartRestoresWorkspacesAndTabsExactly) {
  start();
  Client client = connect();
  Json a = client.call("workspace.create", {{"name", "Alpha Project"}})["workspace"];
  Json b = client.call("workspace.create", {{"name", "beta"}})["workspace"];
  client.call("tab.create", {{"workspace_id", a["id"]}, {"title", "one"}});
  client.call("tab.create", {{"workspace_id", a["id"]}, {"title", "two"}});
  client.call("tab.create", {{"workspace_id", b["id"]}});
  client.call("workspace.rename", {{"workspace_id", b["id"]}, {"name", "Beta Renamed"}});
  const Json list = client.call("workspace.list");
  const Json got_a = client.call("workspace.get", {{"workspace_id", a["id"]}});
  const Json got_b = client.call("workspace.get", {{"workspace_id", b["id"]}});

  restart();
  Client after = connect();
  EXPECT_EQ(after.call("workspace.list"), list);
  EXPECT_EQ(after.call("workspace.get", {{"workspace_id", a["id"]}}), got_a);
  EXPECT_EQ(after.call("workspace.get", {{"workspace_id", "beta"}}), got_b) << "handles survive too";
  Json status = after.call("server.status");
  EXPECT_EQ(status["workspaces"], 2);
  EXPECT_EQ(status["tabs"], 3);
}

TEST_F(BrokerDurability, SigkillAndRestartNeverReuseASeq) {
  start();
  Client subscriber = subscribe_all(broker().socket_path());
  Client client = connect();
  for (int i = 0; i < 3; ++i) client.call("workspace.create", {{"name", "w" + std::to_string(i)}});
  std::uint64_t highest = client.call("server.status")["seq"];
  for (const Json& ev : collect_events(subscriber, "workspace.created", 3))
    highest = std::max(highest, ev["seq"].get<std::uint64_t>());
  broker().sigkill();
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());

  start();
  Client subscriber2 = subscribe_all(broker().socket_path());
  connect().call("workspace.create", {{"name", "after"}});
  auto events = collect_events(subscriber2, "workspace.created", 1);
  for (const Json& ev : events) EXPECT_GT(ev["seq"].get<std::uint64_t>(), highest) << ev.dump();
}

TEST_F(BrokerDurability, JournalHoldsEveryAnsweredEventAfterSigkill) {
  start();
  Client subscriber = subscribe_all(broker().socket_path());
  Client client = connect();
  std::vector<Json> workspaces, tabs;
  for (int i = 0; i < 4; ++i) {
    workspaces.push_back(client.call("workspace.create", {{"name", "j" + std::to_string(i)}})["workspace"]);
    tabs.push_back(client.call("tab.create", {{"workspace_id", workspaces.back()["id"]}})["tab"]);
  }
  client.call("workspace.rename", {{"workspace_id", workspaces[0]["id"]}, {"name", "last words"}});
  broker().sigkill();  // right after the last answer
  ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());

  JournalScan journal = read_journal(dirs_.state_dir());
  EXPECT_TRUE(journal.unparsable.empty()) << journal.unparsable.front();
  EXPECT_TRUE(seqs_strictly_increase(journal.records));
  auto records = by_seq(journal.records);
  auto in_journal = [&](const std::string& event, auto pred) {
    return std::any_of(journal.records.begin(), journal.records.end(), [&](const Json& r) {
      return r.value("event", "") == event && pred(r["payload"]);
    });
  };
  for (const Json& ws : workspaces)
    EXPECT_TRUE(in_journal("workspace.created", [&](const Json& p) { return p["workspace"] == ws; })) << ws["id"];
  for (const Json& tab : tabs)
    EXPECT_TRUE(in_journal("tab.created", [&](const Json& p) { return p["tab"] == tab; })) << tab["id"];
  EXPECT_TRUE(in_journal("workspace.updated", [&](const Json& p) { return p["workspace"]["name"] == "last words"; }));
  // Whatever reached the subscriber was journaled first, under its seq.
  while (auto ev = subscriber.next_event(Clock::now())) {
    auto it = records.find(ev->at("seq").get<std::uint64_t>());
    ASSERT_NE(it, records.end()) << "published but not journaled: " << ev->dump();
    EXPECT_EQ(it->second["event"], ev->at("event"));
    EXPECT_EQ(it->second["payload"], ev->at("payload"));
  }
}

TEST_F(BrokerDurability, ReplayAfterRestartIsCompleteFromTheJournal) {
  start();
  Client subscriber = subscribe_all(broker().socket_path());
  Client client = connect();
  Json ws = client.call("workspace.create", {{"name", "replayed"}})["workspace"];
  client.call("workspace.rename", {{"workspace_id", ws["id"]}, {"name", "again"}});
  client.call("tab.create", {{"workspace_id", ws["id"]}});
  std::vector<Json> seen = collect_events(subscriber, "tab.created", 1);
  restart();

  Client replayer = connect();
  Json result = replayer.call("subscribe", {{"from_seq", 0}});
  ASSERT_EQ(result["subscribed"], true) << result.dump();
  const Json& replay = result["replay"];
  EXPECT_EQ(replay["status"], "complete") << result.dump();
  EXPECT_EQ(replay["requested_after"], 0);
  EXPECT_GE(replay["through"].get<std::uint64_t>(), seen.back()["seq"].get<std::uint64_t>());
  const std::size_t returned = replay["returned"];
  std::map<std::uint64_t, Json> frames;
  std::uint64_t prev = 0;
  for (std::size_t i = 0; i < returned; ++i) {
    auto ev = replayer.next_event(deadline_after());
    ASSERT_TRUE(ev.has_value()) << "replay frame " << i << " of " << returned << " missing";
    EXPECT_GT(ev->at("seq").get<std::uint64_t>(), prev);
    prev = ev->at("seq");
    frames[prev] = *ev;
  }
  for (const Json& ev : seen) {
    auto it = frames.find(ev["seq"].get<std::uint64_t>());
    ASSERT_NE(it, frames.end()) << "not replayed: " << ev.dump();
    EXPECT_EQ(it->second["event"], ev["event"]);
    EXPECT_EQ(it->second["payload"], ev["payload"]);
  }
}

// The reply to a refused replay, after checking the refusal's shape and that
// the broker closed the connection.
Json expect_refused_replay(Client& client, std::uint64_t from_seq, const std::string& status) {
  Json result = client.call("subscribe", {{"from_seq", from_seq}});
  EXPECT_EQ(result["subscribed"], false) << result.dump();
  EXPECT_EQ(result["replay"]["status"], status) << result.dump();
  EXPECT_EQ(result["replay"]["returned"], 0);
  EXPECT_EQ(result["replay"].value("recovery", ""), "snapshot_then_resubscribe");
  auto frame = client.next_event(deadline_after());
  EXPECT_FALSE(frame.has_value()) << "no frames after a refused replay: " << frame->dump();
  EXPECT_TRUE(client.eof()) << "the connection must be closed";
  return result;
}

TEST_F(BrokerDurability, ReplayFromAheadOfTheHeadIsCursorAheadAndCloses) {
  start();
  Client client = connect();
  client.call("workspace.create");
  const std::uint64_t head = client.call("server.status")["seq"];
  Client replayer = connect();
  expect_refused_replay(replayer, head + 1000, "cursor_ahead");
}

TEST_F(BrokerDurability, ReplayWithoutRetentionEvidenceIsUnavailableAndCloses) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  client.call("workspace.rename", {{"workspace_id", ws["id"]}, {"name", "n"}});
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  ASSERT_TRUE(std::filesystem::remove(dirs_.state_file("audit-retention.json")));
  start();
  Client replayer = connect();
  expect_refused_replay(replayer, 0, "unavailable");
}

TEST_F(BrokerDurability, ReplayOfMoreThanTheCapIsTruncatedAndCloses) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  expect_all_ok(client.request_pipelined("workspace.rename", rename_params(ws["id"], kReplayMaxEvents + 8, 8)));
  Client replayer = connect();
  expect_refused_replay(replayer, 0, "truncated");
}

// A directory whose absolute path is close to PATH_MAX, so that every event
// carrying the workspace is about 4 KiB and the journal rotates quickly.
std::string make_long_directory(const std::string& base) {
  std::string path = base;
  const std::string segment(200, 'd');
  while (path.size() + segment.size() + 1 < 3900) {
    path += "/" + segment;
    if (::mkdir(path.c_str(), 0700) != 0) throw HarnessError("mkdir " + path);
  }
  return path;
}

TEST_F(BrokerDurability, ReplayFromBeforeTheRetainedHistoryIsHistoryLost) {
  start();
  Client client = connect();
  const std::string cwd = make_long_directory(dirs_.home());
  Json ws = client.call("workspace.create", {{"cwd", cwd}})["workspace"];
  const std::size_t event_bytes = Json({{"workspace", ws}}).dump().size();
  // Two rotations: the second discards a predecessor, moving retained_after.
  // It waits for a snapshot that reflects that predecessor (docs/persistence.md),
  // so one more rename once a snapshot holds everything lets it happen.
  const std::size_t renames = 2 * kJournalRotateBytes / event_bytes + 256;
  expect_all_ok(client.request_pipelined("workspace.rename", rename_params(ws["id"], renames, 8)));
  ASSERT_TRUE(path_exists(dirs_.state_file("audit.jsonl.1")));
  const std::uint64_t head = client.call("server.status")["seq"];
  ASSERT_TRUE(wait_until([&] {
    const Json doc = Json::parse(read_text_file(dirs_.state_file("snapshot.json")), nullptr, false);
    return doc.is_object() && doc.value("journal_seq", std::uint64_t{0}) >= head;
  })) << "no snapshot reflected seq " << head;
  client.call("workspace.rename", {{"workspace_id", ws["id"]}, {"name", "after-snapshot"}});
  Client replayer = connect();
  Json result = expect_refused_replay(replayer, 1, "history_lost");
  EXPECT_GT(result["replay"]["retained_after"].get<std::uint64_t>(), 1u) << result.dump();
}

TEST_F(BrokerDurability, SnapshotOfAnUnknownVersionRefusesToStart) {
  start();
  connect().call("workspace.create", {{"name", "precious"}});
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  const std::string path = dirs_.state_file("snapshot.json");
  Json snapshot = Json::parse(read_text_file(path));
  snapshot["version"] = 2;
  write_text_file(path, snapshot.dump());

  ExitStatus status = start_expecting_exit();
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(lowercase(all_stderr()).find("version"), std::string::npos) << "a clear message";
  EXPECT_EQ(Json::parse(read_text_file(path)), snapshot) << "state it cannot read is never discarded";
}

// The journal then restores what the snapshot held (decision 25).
TEST_F(BrokerDurability, GarbageSnapshotIsSetAsideAndTheJournalRestoresTheModel) {
  start();
  connect().call("workspace.create", {{"name", "lost"}});
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  const std::string garbage = "{\"version\": 1, \"workspaces\": [ this is not json";
  write_text_file(dirs_.state_file("snapshot.json"), garbage);

  start();
  Json workspaces = connect().call("workspace.list")["workspaces"];
  ASSERT_EQ(workspaces.size(), 1u) << workspaces.dump();
  EXPECT_EQ(workspaces[0]["name"], "lost");
  std::vector<std::string> corrupt;
  for (const auto& entry : std::filesystem::directory_iterator(dirs_.state_dir()))
    if (entry.path().filename().string().rfind("snapshot.corrupt-", 0) == 0) corrupt.push_back(entry.path());
  ASSERT_EQ(corrupt.size(), 1u);
  EXPECT_EQ(read_text_file(corrupt.front()), garbage);
}

TEST_F(BrokerDurability, CorruptSequenceReservationRefusesToStart) {
  start();
  connect().call("workspace.create");
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  write_text_file(dirs_.state_file("event-sequence.json"), "{\"oops\":");
  ExitStatus status = start_expecting_exit();
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
  EXPECT_NE(all_stderr().find("event-sequence"), std::string::npos) << "a clear message";
}

TEST_F(BrokerDurability, SequenceReservationBelowTheJournalRefusesToStart) {
  start();
  Client client = connect();
  Json ws = client.call("workspace.create")["workspace"];
  client.call("workspace.rename", {{"workspace_id", ws["id"]}, {"name", "n"}});
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  write_text_file(dirs_.state_file("event-sequence.json"), "1");
  ExitStatus status = start_expecting_exit();
  EXPECT_EQ(status.code, kExitRefused) << status.describe();
}

TEST_F(BrokerDurability, JournalWriteFailureExitsSeventyWithoutAnsweringOk) {
  start();
  {
    Client client = connect();
    Json ws = client.call("workspace.create")["workspace"];
    expect_all_ok(client.request_pipelined("workspace.rename", rename_params(ws["id"], 300, 200)));
  }
  broker().sigterm();
  ASSERT_EQ(broker().wait_exit(deadline_after())->code, 0);
  const std::uint64_t journal_bytes = file_size(dirs_.state_file("audit.jsonl"));
  ASSERT_GT(journal_bytes, 8 * file_size(dirs_.state_file("snapshot.json")));
  // Room for the startup's small files, not for one more journal record.
  start({.file_size_limit_bytes = journal_bytes + 16});

  Client client = connect();
  client.send_request("workspace.create", {{"name", "never"}});
  auto reply = client.read_message(deadline_after());
  if (reply) {
    EXPECT_FALSE(is_ok(*reply)) << "answered ok although the journal failed: " << reply->dump();
  }
  auto status = broker().wait_exit(deadline_after());
  ASSERT_TRUE(status.has_value()) << "still running after the journal write failed";
  EXPECT_EQ(status->code, kExitJournalFailed) << status->describe();
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
