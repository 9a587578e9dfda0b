// tests/integration/io_faults_test.cpp: EIO and ENOSPC at the Nth write,
// fsync or rename of the audit journal, the sequence reservation and the
// snapshot, once or from N on, injected into the real broker through
// SIGNALTTY_TEST_IO_FAULT (docs/persistence.md, "I/O faults"). Each case
// checks that nothing unsynced was published or answered ok; that a
// journal or reservation fault stops the broker (it never syncs again, so
// a single fault stops it as surely as a lasting one) with a log line
// naming the file and the error, a nonzero exit and its panes left
// running, while a snapshot fault is survived; and that after a restart
// `signaltty audit verify` is OK and every acknowledged change is in the
// journal and in the restored state.
// Runs in: the integration test binary.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

constexpr int kExitJournalFailure = 70;  // broker/event_pipeline.hpp
constexpr int kExitRefusedToStart = 1;   // broker/server.hpp

enum class Outcome {
  RefusesToStart,     // the fault hits while the broker opens its state
  StopsWhileServing,  // the fault hits a request: the broker exits 70
  KeepsServing,       // a snapshot fault: logged, retried with a new file
};

struct FaultCase {
  std::string target;  // journal | sequence | snapshot
  std::string op;      // write | fsync | rename
  int nth = 1;
  std::string error;  // EIO | ENOSPC
  std::string mode;   // once | from
  Outcome outcome = Outcome::StopsWhileServing;
  std::size_t renames = 0;  // requests the armed broker is sent at most
  std::size_t window = 1;   // of them in flight at once (1: one group commit each)
};

void PrintTo(const FaultCase& c, std::ostream* os);

std::string spec_of(const FaultCase& c) {
  return c.target + ":" + c.op + ":" + std::to_string(c.nth) + ":" + c.error + ":" + c.mode;
}

void PrintTo(const FaultCase& c, std::ostream* os) { *os << spec_of(c); }

// A launch saves the snapshot at once (docs/persistence.md).
std::string split(Client& client, const Json& pane) {
  return client.call("pane.split", {{"pane_id", pane["id"]}, {"argv", {"cat"}}})["pane"]["id"];
}

std::string error_text(const FaultCase& c) {
  return std::strerror(c.error == "EIO" ? EIO : ENOSPC);
}

// The names a log line about the target's files may use.
std::vector<std::string> file_names(const FaultCase& c) {
  if (c.target == "journal") return {"audit.jsonl", "audit-retention.json"};
  if (c.target == "sequence") return {"event-sequence.json"};
  return {"snapshot.json"};
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string rename_name(std::size_t i) { return "r-" + std::to_string(i); }

std::optional<std::size_t> rename_index(const std::string& name) {
  if (name.rfind("r-", 0) != 0) return std::nullopt;
  return std::stoul(name.substr(2));
}

Client subscribe_all(const std::string& socket_path) {
  Client subscriber(socket_path);
  Json result = subscriber.call("subscribe", {{"events", {"*"}}});
  if (result.value("subscribed", false) != true) throw HarnessError("subscribe: " + result.dump());
  return subscriber;
}

// Every event until the broker closed the connection.
std::vector<Json> drain(Client& subscriber) {
  std::vector<Json> events;
  const Deadline deadline = deadline_after();
  while (auto ev = subscriber.next_event(deadline)) events.push_back(std::move(*ev));
  if (!subscriber.eof()) throw HarnessError("the subscriber was not closed by the broker");
  return events;
}

// Renames sent with up to kWindow in flight until `count` were answered or
// the broker closed the connection.
struct Renames {
  std::size_t sent = 0;
  std::optional<std::size_t> last_acked;
  bool closed = false;
};

Renames send_renames(Client& writer, const std::string& ws, std::size_t count, std::size_t window) {
  Renames r;
  std::vector<Json> ids;
  std::size_t answered = 0;
  try {
    while (answered < count) {
      while (r.sent < count && r.sent - answered < window)
        ids.push_back(writer.send_request("workspace.rename",
                                          {{"workspace_id", ws}, {"name", rename_name(r.sent++)}}));
      Json response = writer.await_response(ids[answered]);
      if (!is_ok(response)) throw HarnessError("rename refused: " + response.dump());
      r.last_acked = answered++;
    }
  } catch (const HarnessError&) {
    if (!writer.wait_closed(deadline_after())) throw;  // a timeout, not a stop
    r.closed = true;
  }
  return r;
}

std::optional<std::uint64_t> committed_head(const std::string& state_dir) {
  Json evidence = Json::parse(read_text_file(state_dir + "/audit-retention.json"), nullptr, false);
  if (!evidence.is_object() || !evidence.contains("head_seq")) return std::nullopt;
  return evidence["head_seq"].get<std::uint64_t>();
}

class IoFaults : public PaneTest, public ::testing::WithParamInterface<FaultCase> {
 protected:
  struct Before {
    std::string workspace_id;
    Json pane;
  };

  // No fault: a workspace and a live pane, saved by an orderly stop.
  Before prepare() {
    start();
    Client client = connect();
    Before b{make_workspace(client)["id"].get<std::string>(), Json()};
    b.pane = spawn(client, b.workspace_id, {"cat"});
    client.call("workspace.rename", {{"workspace_id", b.workspace_id}, {"name", "before"}});
    broker().sigterm();
    auto status = broker().wait_exit(deadline_after());
    if (!status || status->code != 0) throw HarnessError("the unarmed broker did not stop cleanly");
    return b;
  }

  BrokerOptions armed() const {
    return {.env = {"SIGNALTTY_TEST_IO_FAULT=" + spec_of(GetParam())}};
  }

  std::string last_stderr() const { return read_text_file(stderr_paths_.back()); }

  void expect_log_names_file_and_error(const std::string& log) {
    const FaultCase& c = GetParam();
    EXPECT_NE(log.find(error_text(c)), std::string::npos) << log;
    const auto names = file_names(c);
    EXPECT_TRUE(std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return log.find(n) != std::string::npos;
    })) << log;
  }

  void audit_verify_ok() {
    RunResult r = run_program(
        dirs_, {program_path("signaltty"), "audit", "verify", "--state-dir", dirs_.state_dir()},
        base_env(dirs_));
    EXPECT_EQ(r.status.code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.rfind("OK", 0), 0u) << r.out << r.err;
  }

  // Every answered rename and every published state event is in the journal.
  void expect_journaled(const Renames& renames, const std::vector<Json>& published) {
    std::set<std::string> names;
    std::map<std::uint64_t, std::string> seqs;
    for (const Json& rec : read_journal(dirs_.state_dir()).records) {
      seqs[rec["seq"].get<std::uint64_t>()] = rec["event"].get<std::string>();
      if (rec["event"] == "workspace.updated")
        names.insert(rec["payload"]["workspace"]["name"].get<std::string>());
    }
    if (renames.last_acked) {
      for (std::size_t i = 0; i <= *renames.last_acked; ++i)
        EXPECT_TRUE(names.count(rename_name(i))) << rename_name(i) << " was answered ok";
    }
    for (const Json& ev : published) {
      if (ev["event"] == "pty.data") continue;
      auto it = seqs.find(ev["seq"].get<std::uint64_t>());
      ASSERT_NE(it, seqs.end()) << "published but not journaled: " << ev.dump();
      EXPECT_EQ(it->second, ev["event"].get<std::string>());
    }
  }
};

TEST_P(IoFaults, AcknowledgedChangesSurviveAndAJournalFaultStopsTheBroker) {
  const FaultCase& c = GetParam();
  const Before before = prepare();
  const Json& pane = before.pane;
  Renames renames;
  std::vector<Json> published;
  std::vector<std::string> spawned_after;

  if (c.outcome == Outcome::RefusesToStart) {
    const ExitStatus status = start_expecting_exit(armed());
    EXPECT_EQ(status.code, kExitRefusedToStart) << status.describe();
    expect_log_names_file_and_error(last_stderr());
  } else {
    start(armed());
    Client subscriber = subscribe_all(broker().socket_path());
    Client writer = connect();
    if (c.outcome == Outcome::KeepsServing)  // a launch saves the snapshot at once
      spawned_after.push_back(split(writer, pane));
    renames = send_renames(writer, before.workspace_id, c.renames, c.window);
    if (c.outcome == Outcome::StopsWhileServing) {
      EXPECT_TRUE(renames.closed) << "the broker carried on after " << spec_of(c);
      auto status = broker().wait_exit(deadline_after());
      ASSERT_TRUE(status.has_value()) << "the broker did not stop after " << spec_of(c);
      EXPECT_EQ(status->code, kExitJournalFailure) << status->describe();
      expect_log_names_file_and_error(last_stderr());
    } else {
      EXPECT_FALSE(renames.closed);
      spawned_after.push_back(split(writer, pane));
      // The launch's own save comes right after its reply: wait for it.
      if (c.mode == "once") {
        EXPECT_TRUE(wait_until([&] {
          return read_text_file(dirs_.state_file("snapshot.json")).find(spawned_after.back()) !=
                 std::string::npos;
        })) << "a later save, with a fresh temp file, succeeds";
      } else {
        EXPECT_TRUE(wait_until([&] {
          return count_of(last_stderr(), "snapshot: save failed") >= 2;
        })) << "every later save fails too, and the broker carries on";
      }
      const std::string log = last_stderr();
      EXPECT_NE(log.find("snapshot: save failed"), std::string::npos) << log;
      expect_log_names_file_and_error(log);
      broker().sigterm();
      auto status = broker().wait_exit(deadline_after());
      ASSERT_TRUE(status.has_value());
      EXPECT_EQ(status->code, 0) << status->describe();
    }
    published = drain(subscriber);
  }

  // Nothing was published past the last durable sync.
  const auto head = committed_head(dirs_.state_dir());
  ASSERT_TRUE(head.has_value());
  for (const Json& ev : published) {
    if (ev["event"] == "pty.data") continue;
    EXPECT_LE(ev["seq"].get<std::uint64_t>(), *head) << ev.dump();
  }
  // The panes outlive the broker.
  EXPECT_TRUE(pid_alive(pane["pid"].get<pid_t>()));
  EXPECT_TRUE(pid_alive(pane["ptyhost_pid"].get<pid_t>()));

  // Restarted without the fault: everything acknowledged is there.
  start();
  Client client = connect();
  audit_verify_ok();
  expect_journaled(renames, published);
  const std::string name =
      client.call("workspace.get", {{"workspace_id", before.workspace_id}})["workspace"]["name"];
  if (renames.last_acked) {
    auto index = rename_index(name);
    ASSERT_TRUE(index.has_value()) << name;
    EXPECT_GE(*index, *renames.last_acked);
    EXPECT_LT(*index, renames.sent);
  } else {
    EXPECT_TRUE(name == "before" || rename_index(name)) << name;
  }
  Json now = get_pane(client, pane["id"]);
  EXPECT_EQ(now["pid"], pane["pid"]);
  EXPECT_EQ(now["live"]["state"], "live");
  for (const std::string& id : spawned_after)
    EXPECT_EQ(get_pane(client, id)["live"]["state"], "live");
}

// Journal counts: opening replaces audit-retention.json (a write, two
// fsyncs, a rename); each group commit then writes audit.jsonl, fdatasyncs
// it, rewrites audit-retention.json in place and fdatasyncs that. The
// reservation is written at start and again after 4096 numbers; the
// snapshot at each save, the first one when the armed broker launches a pane.
std::vector<FaultCase> cases() {
  std::vector<FaultCase> out;
  for (std::string error : {"EIO", "ENOSPC"}) {
    for (std::string mode : {"once", "from"}) {
      const bool once = mode == "once";
      auto add = [&](std::string target, std::string op, int nth, Outcome outcome,
                     std::size_t renames) {
        // The reservation needs 4096 numbers: many renames in flight.
        const std::size_t window = target == "sequence" ? 64 : 1;
        out.push_back({target, op, nth, error, mode, outcome, renames, window});
      };
      // audit.jsonl's write and fdatasync once, audit-retention.json's when from N on.
      add("journal", "write", once ? 4 : 5, Outcome::StopsWhileServing, 40);
      add("journal", "fsync", once ? 5 : 6, Outcome::StopsWhileServing, 40);
      add("journal", "rename", 1, Outcome::RefusesToStart, 0);
      // The second reservation, 4096 numbers in; from N on, the first one at start.
      add("sequence", "write", once ? 2 : 1,
          once ? Outcome::StopsWhileServing : Outcome::RefusesToStart, 4200);
      add("sequence", "fsync", once ? 3 : 2,
          once ? Outcome::StopsWhileServing : Outcome::RefusesToStart, 4200);
      add("sequence", "rename", once ? 2 : 1,
          once ? Outcome::StopsWhileServing : Outcome::RefusesToStart, 4200);
      add("snapshot", "write", 1, Outcome::KeepsServing, 20);
      add("snapshot", "fsync", 1, Outcome::KeepsServing, 20);
      add("snapshot", "rename", 1, Outcome::KeepsServing, 20);
    }
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<FaultCase>& info) {
  const FaultCase& c = info.param;
  return c.target + "_" + c.op + "_" + std::to_string(c.nth) + "_" + c.error + "_" + c.mode;
}

INSTANTIATE_TEST_SUITE_P(EachFileOpErrorAndMode, IoFaults, ::testing::ValuesIn(cases()), case_name);

// The seam is parsed strictly: a value that does not parse refuses the start.
using IoFaultSeam = BrokerTest;

TEST_F(IoFaultSeam, MalformedSpecRefusesToStart) {
  const ExitStatus status =
      start_expecting_exit({.env = {"SIGNALTTY_TEST_IO_FAULT=journal:fsync:0:EIO:once"}});
  EXPECT_EQ(status.code, kExitRefusedToStart) << status.describe();
  EXPECT_NE(read_text_file(stderr_paths_.back()).find("SIGNALTTY_TEST_IO_FAULT"),
            std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
