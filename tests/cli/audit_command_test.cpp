// tests/cli/audit_command_test.cpp: `signaltty audit verify|head|show|tail`
// on journals written here in the broker's format (common/audit_chain):
// the report and exit status per outcome, anchors, the default state dir,
// the reader's filters and rows, and following the live file across a
// rotation.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/audit_command.hpp"
#include "cli/audit_reader.hpp"
#include "cli/exit_codes.hpp"
#include "common/audit_chain.hpp"
#include "tests/cli/cli_runner.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using audit::Json;
using testing::run;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// A state dir holding a journal written the way the broker writes one.
class Journal {
 public:
  Journal() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "signaltty-audit-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
    root_ = tmpl;
    dir_ = root_ + "/signaltty";
    std::filesystem::create_directory(dir_);
    retention_.known_complete = true;
    commit();
  }
  ~Journal() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::string& dir() const { return dir_; }
  const std::string& root() const { return root_; }
  std::string file(std::string_view name) const { return dir_ + "/" + std::string(name); }

  // Appends and commits one record; returns its line.
  std::string append(std::uint64_t seq, const std::string& event, Json payload,
                     const std::string& at = "2026-03-01T10:00:00.000Z") {
    const std::string body =
        "{\"seq\":" + std::to_string(seq) + ",\"event\":" + Json(event).dump() +
        ",\"payload\":" + payload.dump() + ",\"at\":" + Json(at).dump() + "}";
    const std::string line =
        audit::link_record(body, head_.empty() ? audit::genesis_hash() : head_.hash);
    std::ofstream(file(audit::kCurrentName), std::ios::binary | std::ios::app) << line << '\n';
    head_ = {seq, audit::sha256_hex(line)};
    retention_.current_bytes += line.size() + 1;
    commit();
    return line;
  }
  void rotate() {
    std::filesystem::rename(file(audit::kCurrentName), file(audit::kPredecessorName));
    retention_.predecessor = true;
    retention_.predecessor_bytes = retention_.current_bytes;
    retention_.current_bytes = 0;
    std::ofstream(file(audit::kCurrentName), std::ios::binary | std::ios::trunc);
    commit();
  }
  void commit() {
    retention_.set_head(head_);
    std::ofstream(file(audit::kRetentionName), std::ios::binary | std::ios::trunc)
        << audit::retention_text(retention_);
    std::ofstream(file(audit::kSequenceName), std::ios::binary | std::ios::trunc)
        << (head_.seq + 4096);
    std::ofstream(file(audit::kCurrentName), std::ios::binary | std::ios::app);
  }
  const audit::ChainHead& head() const { return head_; }

 private:
  std::string root_;
  std::string dir_;
  audit::ChainHead head_;
  audit::Retention retention_;
};

testing::Outcome audit_cmd(const Journal& j, std::vector<std::string> args) {
  args.insert(args.begin(), "audit");
  args.push_back("--state-dir");
  args.push_back(j.dir());
  return run(args);
}

void fill(Journal& j) {
  j.append(1, "workspace.created", {{"workspace", {{"id", "w1"}, {"name", "main"}}}},
           "2026-03-01T09:00:00.000Z");
  j.append(2, "pane.created", {{"pane", {{"id", "p1"}, {"workspace_id", "w1"}}}},
           "2026-03-01T10:00:00.000Z");
  j.append(4, "pane.title_changed", {{"pane_id", "p2"}, {"title", "vim"}},
           "2026-03-01T11:00:00.000Z");
}

TEST(AuditCommand, VerifyPrintsOkWithCountsAndExitsZero) {
  Journal j;
  fill(j);
  auto r = audit_cmd(j, {"verify"});
  EXPECT_EQ(r.status, kExitOk) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("OK: 3 records, seq 1 to 4", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(audit::format_head(j.head())), std::string::npos);
}

TEST(AuditCommand, VerifyNamesTheFirstBadSeqAndExitsTampered) {
  Journal j;
  fill(j);
  std::string text = slurp(j.file(audit::kCurrentName));
  text.replace(text.find("main"), 4, "evil");
  std::ofstream(j.file(audit::kCurrentName), std::ios::binary | std::ios::trunc) << text;
  auto r = audit_cmd(j, {"verify"});
  EXPECT_EQ(r.status, kExitAuditTampered);
  EXPECT_EQ(r.out.rfind("TAMPERED at seq 2: ", 0), 0u) << r.out;

  auto json = audit_cmd(j, {"verify", "--json"});
  auto report = Json::parse(json.out);
  EXPECT_EQ(report["outcome"], "tampered");
  EXPECT_EQ(report["bad_seq"], 2);
}

TEST(AuditCommand, VerifyWithoutAJournalExitsUnreadable) {
  Journal j;
  std::filesystem::remove(j.file(audit::kCurrentName));
  std::filesystem::remove(j.file(audit::kRetentionName));
  auto r = audit_cmd(j, {"verify"});
  EXPECT_EQ(r.status, kExitAuditUnreadable);
  EXPECT_EQ(r.out.rfind("UNREADABLE: ", 0), 0u) << r.out;
}

TEST(AuditCommand, HeadIsAnAnchorThatVerifyProvesExtended) {
  Journal j;
  fill(j);
  auto head = audit_cmd(j, {"head"});
  ASSERT_EQ(head.status, kExitOk) << head.err;
  EXPECT_EQ(head.out, audit::format_head(j.head()) + "\n");
  const std::string anchor = head.out.substr(0, head.out.size() - 1);
  j.append(7, "pane.closed", {{"pane_id", "p1"}});
  auto r = audit_cmd(j, {"verify", "--anchor", anchor});
  EXPECT_EQ(r.status, kExitOk) << r.out;
  EXPECT_NE(r.out.find("extends the anchor"), std::string::npos) << r.out;
  EXPECT_EQ(audit_cmd(j, {"verify", "--anchor", "4:nothex"}).status, kExitUsage);
  auto older = audit_cmd(j, {"verify", "--anchor", "0:" + audit::genesis_hash()});
  EXPECT_EQ(older.status, kExitAuditUnreadable) << older.out;
}

TEST(AuditCommand, DefaultStateDirIsTheBrokersOwn) {
  Journal j;
  fill(j);
  auto r = run({"audit", "verify"}, {{"XDG_STATE_HOME", j.root()}});
  EXPECT_EQ(r.status, kExitOk) << r.out << r.err;
  EXPECT_EQ(default_state_dir(testing::env_of({{"HOME", "/home/u"}})),
            "/home/u/.local/state/signaltty");
}

TEST(AuditCommand, ShowPrintsOneRowPerRecordAndFilters) {
  Journal j;
  fill(j);
  auto all = audit_cmd(j, {"show"});
  ASSERT_EQ(all.status, kExitOk) << all.err;
  auto rows = lines_of(all.out);
  ASSERT_EQ(rows.size(), 3u) << all.out;
  EXPECT_EQ(rows[0].rfind("2026-03-01T09:00:00.000Z  1  workspace.created", 0), 0u) << rows[0];
  EXPECT_NE(rows[0].find("ws w1"), std::string::npos) << rows[0];
  EXPECT_NE(rows[0].find("workspace={main}"), std::string::npos) << rows[0];
  EXPECT_NE(rows[2].find("pane p2"), std::string::npos) << rows[2];
  EXPECT_NE(rows[2].find("title=vim"), std::string::npos) << rows[2];

  EXPECT_EQ(lines_of(audit_cmd(j, {"show", "--pane", "p2"}).out).size(), 1u);
  EXPECT_EQ(lines_of(audit_cmd(j, {"show", "--workspace", "w1"}).out).size(), 2u);
  EXPECT_EQ(lines_of(audit_cmd(j, {"show", "--event", "pane.*"}).out).size(), 2u);
  EXPECT_EQ(lines_of(audit_cmd(j, {"show", "--from-seq", "2"}).out).size(), 2u);
  EXPECT_EQ(lines_of(audit_cmd(j, {"show", "--since", "2026-03-01T10:00Z"}).out).size(), 2u);
  EXPECT_EQ(audit_cmd(j, {"show", "--since", "yesterday"}).status, kExitUsage);
  EXPECT_EQ(audit_cmd(j, {"show", "--since", "1h", "--from-seq", "2"}).status, kExitUsage);
}

TEST(AuditCommand, ShowJsonPrintsTheExactLinesAndTailTheLastOnes) {
  Journal j;
  fill(j);
  auto json = audit_cmd(j, {"show", "--json"});
  EXPECT_EQ(json.out, slurp(j.file(audit::kCurrentName)));
  auto tail = audit_cmd(j, {"tail", "-n", "2", "--json"});
  auto lines = lines_of(slurp(j.file(audit::kCurrentName)));
  EXPECT_EQ(tail.out, lines[1] + "\n" + lines[2] + "\n");
}

TEST(AuditCommand, RowsEscapeControlCharacters) {
  audit::RecordLine rec;
  rec.seq = 9;
  rec.event = "pane.title_changed";
  rec.payload = {{"pane_id", "p1"}, {"title", "\x1b]0;owned\x07"}};
  rec.at = "2026-03-01T10:00:00.000Z";
  const std::string row = format_row(rec);
  EXPECT_EQ(row.find('\x1b'), std::string::npos) << row;
  EXPECT_EQ(row.find('\x07'), std::string::npos) << row;
}

TEST(AuditCommand, SinceTakesATimePrefixOrASpanBack) {
  const auto now = std::chrono::system_clock::from_time_t(1772359200);  // 2026-03-01T10:00:00Z
  EXPECT_EQ(*since_bound("15m", now), "2026-03-01T09:45:00");
  EXPECT_EQ(*since_bound("2d", now), "2026-02-27T10:00:00");
  EXPECT_EQ(*since_bound("2026-03-01", now), "2026-03-01");
  EXPECT_EQ(*since_bound("2026-03-01T10:00:00.5Z", now), "2026-03-01T10:00:00.5");
  EXPECT_FALSE(since_bound("2026-3-1", now).ok());
  EXPECT_FALSE(since_bound("10x", now).ok());
}

TEST(AuditCommand, FollowerReadsAppendsAndCrossesARotation) {
  Journal j;
  AuditFollower follower(j.dir());
  j.append(1, "workspace.created", {{"workspace", {{"id", "w1"}}}});
  auto first = follower.read_new_lines();
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);

  std::ofstream(j.file(audit::kCurrentName), std::ios::binary | std::ios::app) << "{\"seq\":";
  auto partial = follower.read_new_lines();
  ASSERT_TRUE(partial.ok());
  EXPECT_TRUE(partial->empty()) << "a line still being written waits for its newline";
  // The writer's line completes (a record the chain does not cover, seq 2).
  std::ofstream(j.file(audit::kCurrentName), std::ios::binary | std::ios::app)
      << "2,\"event\":\"x\",\"payload\":{}}\n";
  j.append(3, "pane.created", {{"pane_id", "p1"}});
  j.rotate();
  j.append(4, "pane.closed", {{"pane_id", "p1"}});
  auto after = follower.read_new_lines();
  ASSERT_TRUE(after.ok());
  std::vector<std::uint64_t> seqs;
  for (const auto& line : *after) seqs.push_back(line.record.seq);
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{2, 3, 4}));

  AuditFollower fresh(j.dir());
  auto all = fresh.read_new_lines();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 4u) << ".1 first, then the live file";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
