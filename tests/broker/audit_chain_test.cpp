// tests/broker/audit_chain_test.cpp: the audit journal's hash chain as the
// broker writes it, checked by the offline verifier (common/audit_verify):
// links, rotation, the committed head, recovery of a torn tail, the head
// anchor, and 10,000 seeded mutations of a real journal, every one caught.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/audit_anchor.hpp"
#include "broker/audit_journal.hpp"
#include "common/audit_verify.hpp"
#include "common/protocol/events.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using audit::ChainHead;
using audit::Outcome;

struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("signaltty-chain") {}
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spew(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// What the anchor sink received, in order; safe across the timer thread.
class Anchors {
 public:
  AnchorSink sink() {
    return [this](const ChainHead& head, std::string_view why) {
      std::lock_guard lock(mutex_);
      got_.emplace_back(head, std::string(why));
      changed_.notify_all();
    };
  }
  // Waits until an anchor of `head` arrives (true) or 10 s pass.
  bool wait_for(const ChainHead& head) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] {
      return std::any_of(got_.begin(), got_.end(), [&](const auto& a) { return a.first == head; });
    });
  }
  std::vector<std::pair<ChainHead, std::string>> got() {
    std::lock_guard lock(mutex_);
    return got_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<ChainHead, std::string>> got_;
};

JournalOptions options(Anchors* anchors = nullptr,
                       std::uint64_t rotate_bytes = limits::kJournalRotateBytes,
                       std::chrono::milliseconds interval = kAnchorInterval) {
  JournalOptions o;
  o.rotate_bytes = rotate_bytes;
  o.anchor_sink = anchors ? anchors->sink() : AnchorSink([](const ChainHead&, std::string_view) {});
  o.anchor_interval = interval;
  return o;
}

std::unique_ptr<AuditJournal> open_ok(const TempDir& dir, JournalOptions o = options()) {
  auto j = AuditJournal::open(dir.path(), std::move(o));
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  return j.ok() ? std::move(j).value() : nullptr;
}

StateEvent event(std::uint64_t seq, std::size_t filler = 0) {
  StateEvent ev;
  ev.seq = seq;
  ev.name = std::string(protocol::ev::NotificationCreated::name);
  ev.payload = {{"n", seq}, {"filler", std::string(filler, 'x')}};
  ev.at = "2026-01-01T00:00:00.000Z";
  return ev;
}

void write(AuditJournal& journal, std::uint64_t first, std::uint64_t last, std::size_t filler = 0) {
  std::vector<StateEvent> evs;
  for (auto s = first; s <= last; ++s) evs.push_back(event(s, filler));
  ASSERT_TRUE(journal.write_batch(evs).ok());
  ASSERT_TRUE(journal.sync().ok());
}

// The broker reserves numbers before it journals any (docs/rules.md).
void reserve(const TempDir& dir) { spew(dir.file("event-sequence.json"), "100000"); }

audit::VerifyReport verify(const TempDir& dir, std::optional<ChainHead> anchor = std::nullopt) {
  auto files = audit::load_journal_files(dir.path());
  EXPECT_TRUE(files.ok());
  return audit::verify_journal(files.ok() ? *files : audit::JournalFiles{}, anchor);
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += n + "\n";
  return out;
}

ChainHead head_of(const std::string& line) {
  return {protocol::Json::parse(line)["seq"].get<std::uint64_t>(), audit::sha256_hex(line)};
}

TEST(AuditChain, EachRecordLinksTheExactBytesOfTheOneBefore) {
  TempDir dir;
  reserve(dir);
  auto journal = open_ok(dir);
  write(*journal, 1, 3);
  write(*journal, 5, 6);
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(protocol::Json::parse(lines[0])["prev"], audit::genesis_hash());
  for (std::size_t i = 1; i < lines.size(); ++i)
    EXPECT_EQ(protocol::Json::parse(lines[i])["prev"], audit::sha256_hex(lines[i - 1])) << i;
  EXPECT_EQ(lines[0].rfind("{\"seq\":1,\"event\":\"notification.created\",\"payload\":{", 0), 0u)
      << "the seed's fields come first, `prev` last";
  auto retention = audit::parse_retention(slurp(dir.file("audit-retention.json")));
  ASSERT_TRUE(retention);
  EXPECT_EQ(retention->head(), head_of(lines.back()));
  EXPECT_EQ(journal->head(), head_of(lines.back()));
  auto report = verify(dir);
  EXPECT_EQ(report.outcome, Outcome::Clean) << report.reason;
  EXPECT_EQ(report.current_records, 5u);
  EXPECT_EQ(report.head, head_of(lines.back()));
}

TEST(AuditChain, RotationCarriesTheChainIntoTheNewFileAndAnchorsTheHead) {
  TempDir dir;
  reserve(dir);
  Anchors anchors;
  auto journal = open_ok(dir, options(&anchors, 2048));
  for (std::uint64_t s = 1; s <= 40; ++s) write(*journal, s, s, 100);
  const auto pred = lines_of(slurp(dir.file("audit.jsonl.1")));
  const auto cur = lines_of(slurp(dir.file("audit.jsonl")));
  ASSERT_FALSE(pred.empty());
  ASSERT_FALSE(cur.empty());
  EXPECT_EQ(protocol::Json::parse(cur.front())["prev"], audit::sha256_hex(pred.back()));
  auto got = anchors.got();
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back().second, "rotation");
  EXPECT_EQ(got.back().first, head_of(pred.back())) << "the head the rotated file ends with";
  auto report = verify(dir);
  EXPECT_EQ(report.outcome, Outcome::Clean) << report.reason;
  EXPECT_EQ(report.head.seq, 40u);
}

TEST(AuditChain, ReopenContinuesTheChainAndAnchorsAtStartAndStop) {
  TempDir dir;
  reserve(dir);
  Anchors anchors;
  {
    auto journal = open_ok(dir, options(&anchors));
    write(*journal, 1, 3);
  }
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  auto got = anchors.got();
  ASSERT_EQ(got.size(), 1u) << "an empty journal has no head to anchor at start";
  EXPECT_EQ(got[0], std::make_pair(head_of(lines[2]), std::string("stop")));
  auto journal = open_ok(dir, options(&anchors));
  EXPECT_EQ(anchors.got().back(), std::make_pair(head_of(lines[2]), std::string("start")));
  write(*journal, 4, 4);
  lines = lines_of(slurp(dir.file("audit.jsonl")));
  EXPECT_EQ(protocol::Json::parse(lines[3])["prev"], audit::sha256_hex(lines[2]));
  EXPECT_EQ(verify(dir).outcome, Outcome::Clean);
}

TEST(AuditChain, HeadIsAnchoredPeriodicallyWhileRecordsAreWritten) {
  TempDir dir;
  reserve(dir);
  Anchors anchors;
  auto journal = open_ok(dir, options(&anchors, limits::kJournalRotateBytes,
                                      std::chrono::milliseconds(20)));
  write(*journal, 1, 2);
  EXPECT_TRUE(anchors.wait_for(journal->head()));
  write(*journal, 3, 3);
  EXPECT_TRUE(anchors.wait_for(journal->head()));
  for (const auto& [head, why] : anchors.got()) EXPECT_EQ(why, "periodic");
}

TEST(AuditChain, AnchorLineCarriesOnlySeqAndHash) {
  const ChainHead head{42, audit::sha256_hex("{\"secret\":\"hunter2\"}")};
  const std::string line = anchor_message(head, "rotation");
  EXPECT_EQ(line, "signaltty audit head 42:" + head.hash + " (rotation)");
  EXPECT_EQ(line.find("hunter2"), std::string::npos);
  EXPECT_EQ(audit::parse_head(audit::format_head(head)), head);
}

TEST(AuditChain, LegacyRecordsWithoutLinksStayOutsideTheChain) {
  TempDir dir;
  reserve(dir);
  spew(dir.file("audit.jsonl"), AuditJournal::encode_record(event(1)) + "\n" +
                                    AuditJournal::encode_record(event(2)) + "\n");
  auto journal = open_ok(dir);
  write(*journal, 3, 3);
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  EXPECT_EQ(protocol::Json::parse(lines[2])["prev"], audit::sha256_hex(lines[1]));
  auto report = verify(dir);
  EXPECT_EQ(report.outcome, Outcome::Clean) << report.reason;
  EXPECT_EQ(report.unchained_records, 2u);
  EXPECT_NE(joined(report.notes).find("before the chain"), std::string::npos);
}

// A crash mid-append leaves a torn last line past the committed length:
// verify says so and is clean; the next start ends the line with '\n' and
// links the next record to the last whole record, so the fragment stays
// outside the chain and verify notes it.
TEST(AuditChain, TornTailIsReportedThenEndedAtStartOutsideTheChain) {
  TempDir dir;
  reserve(dir);
  write(*open_ok(dir), 1, 3);
  const auto before = lines_of(slurp(dir.file("audit.jsonl")));
  std::ofstream(dir.file("audit.jsonl"), std::ios::binary | std::ios::app) << "{\"seq\":4,\"ev";
  auto torn = verify(dir);
  EXPECT_EQ(torn.outcome, Outcome::Clean) << torn.reason;
  EXPECT_NE(joined(torn.notes).find("interrupted"), std::string::npos) << joined(torn.notes);

  auto journal = open_ok(dir);
  write(*journal, 4, 4);
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3], "{\"seq\":4,\"ev");
  EXPECT_EQ(protocol::Json::parse(lines[4])["prev"], audit::sha256_hex(before[2]));
  auto repaired = verify(dir);
  EXPECT_EQ(repaired.outcome, Outcome::Clean) << repaired.reason;
  EXPECT_NE(joined(repaired.notes).find("no record"), std::string::npos);
}

// An attacker who cuts the last records and fixes the lengths still leaves
// the committed head behind.
TEST(AuditChain, CutAtTheEndWithMatchingLengthsIsCaughtByTheCommittedHead) {
  TempDir dir;
  reserve(dir);
  write(*open_ok(dir), 1, 5);
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  std::string cut;
  for (std::size_t i = 0; i < 4; ++i) cut += lines[i] + "\n";
  spew(dir.file("audit.jsonl"), cut);
  auto r = audit::parse_retention(slurp(dir.file("audit-retention.json")));
  r->current_bytes = cut.size();
  spew(dir.file("audit-retention.json"), audit::retention_text(*r));
  auto report = verify(dir);
  EXPECT_EQ(report.outcome, Outcome::Tampered);
  EXPECT_EQ(report.bad_seq, 5u) << report.reason;
}

// A cut made while no broker ran is recorded at the next start for good,
// although the broker then vouches for the files as they are.
TEST(AuditChain, HeadMissingAtStartIsRecordedForGood) {
  TempDir dir;
  reserve(dir);
  write(*open_ok(dir), 1, 5);
  auto lines = lines_of(slurp(dir.file("audit.jsonl")));
  spew(dir.file("audit.jsonl"), lines[0] + "\n" + lines[1] + "\n");
  write(*open_ok(dir), 6, 6);
  for (int restart = 0; restart < 2; ++restart) {
    auto report = verify(dir);
    EXPECT_EQ(report.outcome, Outcome::Tampered);
    EXPECT_EQ(report.bad_seq, 5u);
    EXPECT_NE(report.reason.find("no longer held"), std::string::npos) << report.reason;
    open_ok(dir);
  }
}

TEST(AuditChain, VerifyProvesTheJournalExtendsAnAnchor) {
  TempDir dir;
  reserve(dir);
  auto journal = open_ok(dir);
  write(*journal, 1, 3);
  const ChainHead anchor = journal->head();
  write(*journal, 4, 6);
  auto extended = verify(dir, anchor);
  EXPECT_EQ(extended.outcome, Outcome::Clean) << extended.reason;
  EXPECT_TRUE(extended.anchor_extended);
  ChainHead forged = anchor;
  forged.hash[0] = forged.hash[0] == 'a' ? 'b' : 'a';
  EXPECT_EQ(verify(dir, forged).outcome, Outcome::Tampered);
  auto beyond = verify(dir, ChainHead{9, anchor.hash});
  EXPECT_EQ(beyond.outcome, Outcome::Tampered);
  EXPECT_EQ(beyond.bad_seq, 9u);
}

TEST(AuditChain, ReservationBelowTheJournalIsTampering) {
  TempDir dir;
  spew(dir.file("event-sequence.json"), "2");
  write(*open_ok(dir), 1, 3);
  auto report = verify(dir);
  EXPECT_EQ(report.outcome, Outcome::Tampered);
  EXPECT_NE(report.reason.find("event-sequence.json"), std::string::npos) << report.reason;
}

// ---- 10,000 seeded mutations ------------------------------------------------

enum class Mutation { ByteFlip, Delete, Reorder, Duplicate, Truncate, FileSwap, kCount };

std::vector<std::string> split_keep(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < text.size();) {
    auto nl = text.find('\n', pos);
    auto end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string join_all(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

// Applies one mutation chosen by `rng`; describes it in `what`.
audit::JournalFiles mutate(const audit::JournalFiles& in, Mutation kind, std::mt19937_64& rng,
                           std::string& what) {
  audit::JournalFiles f = in;
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const bool in_pred = pick(2) == 0;
  std::string& text = in_pred ? *f.predecessor : *f.current;
  const std::string file = in_pred ? "audit.jsonl.1" : "audit.jsonl";
  auto lines = split_keep(text);
  switch (kind) {
    case Mutation::ByteFlip: {
      const std::size_t at = pick(text.size());
      const auto mask = static_cast<char>(1 + pick(255));
      text[at] = static_cast<char>(text[at] ^ mask);
      what = "flip byte " + std::to_string(at) + " of " + file;
      break;
    }
    case Mutation::Delete: {
      const std::size_t i = pick(lines.size());
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
      text = join_all(lines);
      what = "delete line " + std::to_string(i) + " of " + file;
      break;
    }
    case Mutation::Reorder: {
      const std::size_t i = pick(lines.size());
      std::size_t j = pick(lines.size() - 1);
      if (j >= i) ++j;
      std::swap(lines[i], lines[j]);
      text = join_all(lines);
      what = "swap lines " + std::to_string(i) + " and " + std::to_string(j) + " of " + file;
      break;
    }
    case Mutation::Duplicate: {
      const std::size_t i = pick(lines.size());
      const std::size_t to = pick(lines.size() + 1);
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(to), lines[i]);
      text = join_all(lines);
      what = "copy line " + std::to_string(i) + " to " + std::to_string(to) + " of " + file;
      break;
    }
    case Mutation::Truncate: {
      const std::size_t keep = pick(lines.size());
      lines.resize(keep);
      text = join_all(lines);
      what = "keep " + std::to_string(keep) + " lines of " + file;
      break;
    }
    case Mutation::FileSwap:
    case Mutation::kCount: {
      switch (pick(3)) {
        case 0: std::swap(f.predecessor, f.current); what = "swap .1 and current"; break;
        case 1: f.current = f.predecessor; f.predecessor.reset(); what = ".1 renamed over current"; break;
        default: f.predecessor = f.current; f.current = std::string(); what = "current renamed over .1"; break;
      }
      break;
    }
  }
  return f;
}

TEST(AuditChain, TenThousandSeededMutationsAreAllCaught) {
  TempDir dir;
  reserve(dir);
  {
    auto journal = open_ok(dir, options(nullptr, 1500));
    for (std::uint64_t s = 1; s <= 30; ++s) write(*journal, 2 * s, 2 * s, 20);  // holes are legitimate
  }
  auto files = audit::load_journal_files(dir.path());
  ASSERT_TRUE(files.ok());
  ASSERT_TRUE(files->predecessor && files->current);
  ASSERT_GE(split_keep(*files->predecessor).size(), 3u);
  ASSERT_GE(split_keep(*files->current).size(), 3u);
  ASSERT_EQ(audit::verify_journal(*files).outcome, Outcome::Clean);

  std::mt19937_64 rng(20261202);
  constexpr int kMutations = 10000;
  int caught[static_cast<int>(Mutation::kCount)] = {};
  for (int i = 0; i < kMutations; ++i) {
    const auto kind = static_cast<Mutation>(i % static_cast<int>(Mutation::kCount));
    std::string what;
    const audit::JournalFiles mutated = mutate(*files, kind, rng, what);
    if (mutated.predecessor == files->predecessor && mutated.current == files->current) continue;
    const auto report = audit::verify_journal(mutated);
    ASSERT_EQ(report.outcome, Outcome::Tampered) << "mutation " << i << " missed: " << what;
    ++caught[static_cast<int>(kind)];
  }
  for (int k = 0; k < static_cast<int>(Mutation::kCount); ++k)
    EXPECT_GT(caught[k], kMutations / 7) << "mutation kind " << k;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
