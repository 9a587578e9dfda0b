// tests/integration/acknowledged_state_test.cpp: decision 25, nothing
// acknowledged is lost: every change a client got `ok` for is in the state
// a broker restores after SIGKILL, whether snapshot.json is older than the
// changes or gone, and a journal holding a line that is no record, a torn
// tail or a record that does not fit still starts, applying the rest
// (docs/rules.md (Persistence), "Journal replay").
// Runs in: the integration test binary.
#include <algorithm>
#include <filesystem>
#include <optional>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

// What the model says of a pane that a restore must bring back.
Json pane_facts(Client& client, const std::string& id) {
  Json got = client.call("pane.get", {{"pane_id", id}});
  const Json& p = got["pane"];
  Json facts;
  for (const char* key : {"id", "name", "tab_id", "attention", "last_message", "last_seen_at",
                          "lifecycle", "live", "exit_code", "restore_state", "process_instance"})
    facts[key] = p.value(key, Json());
  for (const char* key : {"lifecycle_seq", "attention_seq", "process_instance"})
    facts["wait_baseline"][key] = got["wait_baseline"][key];
  return facts;
}

// The workspace, its tabs (layouts included) and its panes' facts.
Json model_facts(Client& client, const std::string& ws_id) {
  Json got = client.call("workspace.get", {{"workspace_id", ws_id}});
  Json facts{{"name", got["workspace"]["name"]},
             {"tabs", got["workspace"]["tabs"]},
             {"active_tab_id", got["workspace"].value("active_tab_id", Json())},
             {"tab_objects", got["tabs"]}};
  for (const Json& p : got["panes"]) facts["panes"].push_back(pane_facts(client, p["id"]));
  return facts;
}

class AcknowledgedState : public PaneTest {
 protected:
  // Two live panes, saved in snapshot.json; returns that snapshot's text.
  std::string set_up(Client& client) {
    ws = make_workspace(client, "acked")["id"];
    a = spawn(client, ws, {"cat"})["id"];
    b = client.call("pane.split", {{"pane_id", a}, {"argv", {"cat"}}})["pane"]["id"];
    const std::string path = dirs_.state_file("snapshot.json");
    EXPECT_TRUE(wait_until([&] {
      const Json doc = Json::parse(read_text_file(path), nullptr, false);
      return doc.is_object() && doc.contains("panes") && doc["panes"].size() == 2;
    })) << "the set-up never reached snapshot.json";
    return read_text_file(path);
  }

  // From here on no snapshot save can land: snapshot.json is a non-empty
  // directory, which a rename cannot replace.
  void freeze_snapshot() {
    const std::string path = dirs_.state_file("snapshot.json");
    std::filesystem::remove(path);
    std::filesystem::create_directory(path);
    write_text_file(path + "/occupied", "x");
  }
  void thaw_snapshot(const std::optional<std::string>& text) {
    const std::string path = dirs_.state_file("snapshot.json");
    std::filesystem::remove_all(path);
    if (text) write_text_file(path, *text);
  }

  // Every kind of acknowledged change; returns the model they left.
  Json change_everything(Client& client) {
    c = client.call("pane.split", {{"pane_id", a}, {"argv", {"/bin/sh", "-c", "exit 3"}}})["pane"]["id"];
    EXPECT_TRUE(wait_until([&] { return get_pane(client, c)["live"]["state"] == "exited"; }));
    client.call("workspace.rename", {{"workspace_id", ws}, {"name", "renamed"}});
    client.call("pane.rename", {{"pane_id", a}, {"name", "alpha"}});
    client.call("notify", {{"pane_id", a}, {"title", "build"}, {"body", "finished"}});
    client.call("notify", {{"pane_id", a}, {"title", "build"}, {"body", "broke"}, {"severity", "error"}});
    client.call("pane.mark_seen", {{"pane_id", b}});
    const std::string tab = get_pane(client, a)["tab_id"];
    client.call("tab.set_ratio", {{"tab_id", tab}, {"path", Json::array()}, {"ratio", 0.3}});
    client.call("tab.create", {{"workspace_id", ws}, {"title", "extra"}});
    return model_facts(client, ws);
  }

  void kill_broker() {
    broker().sigkill();
    ASSERT_TRUE(broker().wait_exit(deadline_after()).has_value());
  }

  std::string ws, a, b, c;
};

// audit.jsonl with `line` inserted before its last record.
void insert_before_last_record(const std::string& path, const std::string& line) {
  std::string text = read_text_file(path);
  const auto last = text.rfind('\n', text.size() - 2);
  text.insert(last == std::string::npos ? 0 : last + 1, line + "\n");
  write_text_file(path, text);
}

std::uint64_t highest_seq(const std::string& state_dir) {
  std::uint64_t seq = 0;
  for (const Json& r : read_journal(state_dir).records) seq = std::max(seq, r["seq"].get<std::uint64_t>());
  return seq;
}

TEST_F(AcknowledgedState, ChangesNewerThanTheSnapshotAreRestoredAfterSigkill) {
  start();
  Client client = connect();
  const std::string saved = set_up(client);
  freeze_snapshot();
  const Json before = change_everything(client);
  kill_broker();
  thaw_snapshot(saved);

  start();
  client = connect();
  EXPECT_EQ(model_facts(client, ws), before);
  EXPECT_EQ(client.call("workspace.list")["workspaces"].size(), 1u) << "nothing was recovered";
}

TEST_F(AcknowledgedState, WithoutASnapshotTheJournalAndTheLivePtyhostsRestoreEverything) {
  start();
  Client client = connect();
  set_up(client);
  freeze_snapshot();
  const Json before = change_everything(client);
  kill_broker();
  thaw_snapshot(std::nullopt);

  start();
  client = connect();
  EXPECT_EQ(model_facts(client, ws), before);
  EXPECT_EQ(client.call("workspace.list")["workspaces"].size(), 1u) << "nothing was recovered";
}

TEST_F(AcknowledgedState, LinesThatAreNoRecordsAndATornTailAreSkippedAndTheRestApplied) {
  start();
  Client client = connect();
  const std::string saved = set_up(client);
  freeze_snapshot();
  const Json before = change_everything(client);
  kill_broker();
  thaw_snapshot(saved);
  const std::string journal = dirs_.state_file("audit.jsonl");
  insert_before_last_record(journal, "this line is no record");
  write_text_file(journal, read_text_file(journal) + R"({"seq":999999,"event":"pane.upd)");

  start();
  client = connect();
  EXPECT_EQ(model_facts(client, ws), before);
  EXPECT_NE(broker().stderr_text().find("no records; skipped"), std::string::npos)
      << broker().stderr_text();
}

TEST_F(AcknowledgedState, ARecordThatDoesNotFitIsLoggedWithItsSeqAndSkipped) {
  start();
  Client client = connect();
  const std::string saved = set_up(client);
  freeze_snapshot();
  const Json before = change_everything(client);
  kill_broker();
  thaw_snapshot(saved);
  const std::uint64_t seq = highest_seq(dirs_.state_dir()) + 1;
  Json pane = before["panes"][0];
  Json stray = {{"seq", seq},
                {"event", "pane.updated"},
                {"payload", {{"pane_id", "pane_nowhere"}}},
                {"at", "2026-12-01T00:00:00.000Z"},
                {"state", {{"removed_tabs", Json::array({pane["tab_id"]})}}}};
  const std::string journal = dirs_.state_file("audit.jsonl");
  write_text_file(journal, read_text_file(journal) + stray.dump() + "\n");

  start();
  client = connect();
  EXPECT_EQ(model_facts(client, ws), before);
  EXPECT_NE(broker().stderr_text().find("record " + std::to_string(seq) + " (pane.updated) skipped"),
            std::string::npos)
      << broker().stderr_text();
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
