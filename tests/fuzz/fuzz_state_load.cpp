// tests/fuzz/fuzz_state_load.cpp: libFuzzer target for the broker's
// startup read of its state dir: arbitrary snapshot.json, audit.jsonl,
// audit.jsonl.1, audit-retention.json and event-sequence.json files go
// through the same steps as the broker's open_state(): the journal opened
// (provability verdict, torn-line repair), the sequence reservation, the
// snapshot loaded (a corrupt one set aside) and restored into the store,
// the journal's state images replayed over it, and the records read back
// as a subscribe replay reads them. The store that results must make a
// snapshot that restores again.
// Runs in: a fuzzer build (-fsanitize=fuzzer) or fuzz_replay_main.cpp,
// with its state dir under /dev/shm or $TMPDIR.
// Never: expects a file to be accepted; it looks for exceptions, crashes,
// sanitizer reports and a restored store whose own snapshot it refuses.
//
// Input layout: the five files' contents in the order above, separated by
// NUL bytes; an empty (or missing) part leaves its file out.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "broker/audit_journal.hpp"
#include "broker/journal_replay.hpp"
#include "broker/sequence_reservation.hpp"
#include "broker/snapshot_store.hpp"
#include "broker/store.hpp"
#include "common/log.hpp"

namespace {

namespace broker = signaltty::broker;
namespace stdfs = std::filesystem;

constexpr const char* kFiles[] = {"snapshot.json", "audit.jsonl", "audit.jsonl.1",
                                  "audit-retention.json", "event-sequence.json"};

broker::Clock fixed_clock() {
  return [] { return std::string("2026-01-01T00:00:00.000Z"); };
}

// A private dir made once per process; emptied before every input.
const std::string& state_dir() {
  // Never freed: the exit-time cleanup below still reads it.
  static const std::string& dir = *new std::string([] {
    std::string base = stdfs::exists("/dev/shm") ? "/dev/shm" : stdfs::temp_directory_path().string();
    std::string templ = base + "/signaltty-fuzz-state-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    signaltty::log::init("fuzz_state_load", signaltty::log::Level::Error);
    return templ;
  }());
  return dir;
}

struct RemoveAtExit {
  ~RemoveAtExit() {
    std::error_code ec;
    stdfs::remove_all(state_dir(), ec);
  }
} remove_at_exit;

void open_state(const std::string& dir) {
  auto journal = broker::AuditJournal::open(dir);
  if (!journal.ok()) return;
  auto reservation = broker::SequenceReservation::open(dir, (*journal)->max_seq());
  if (!reservation.ok()) return;
  auto doc = broker::load_snapshot(dir);
  if (!doc.ok()) return;
  std::optional<broker::Store> store;
  std::optional<std::uint64_t> replay_after = 0;
  if (*doc) {
    replay_after = (*doc)->journal_seq;
    auto restored = broker::Store::from_snapshot(std::move(**doc), fixed_clock());
    if (!restored.ok()) return;
    store.emplace(std::move(restored).value());
  } else {
    store.emplace(fixed_clock());
  }
  if (replay_after) (void)broker::replay_journal((*journal)->capture(), *replay_after, *store);
  broker::JournalCapture capture = (*journal)->capture();
  (void)broker::AuditJournal::read_records(capture, 0, std::numeric_limits<std::uint64_t>::max());
  // What the broker would save next must load at its next start.
  if (!broker::Store::from_snapshot(store->to_snapshot(), fixed_clock()).ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& dir = state_dir();
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(dir, ec)) stdfs::remove_all(entry.path(), ec);
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const char* name : kFiles) {
    const std::size_t nul = input.find('\0');
    const std::string_view part = input.substr(0, nul);
    // A plain write: how the file got there is not what is tested, and an
    // atomic write's fsyncs would cost more than the load itself.
    if (!part.empty()) {
      std::ofstream file(dir + "/" + name, std::ios::binary);
      file.write(part.data(), static_cast<std::streamsize>(part.size()));
      if (!file.flush()) std::abort();
    }
    input = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  }
  open_state(dir);
  return 0;
}
