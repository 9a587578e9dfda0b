// broker/sequence_reservation.cpp: event-sequence.json, a bare JSON integer
// written temp → fsync → rename → fsync(dir) before any number above the
// old ceiling is issued.
// Runs in: broker (io thread). Never: issues past the durable ceiling.
#include "broker/sequence_reservation.hpp"

#include <limits>

#include <nlohmann/json.hpp>

#include "common/fs.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

constexpr const char* kSequenceName = "event-sequence.json";
// A decimal uint64 and some whitespace; anything longer is not ours.
constexpr std::size_t kSequenceFileMaxBytes = 64;

Error refuse(const std::string& path, const std::string& why) {
  return Error{ErrorCode::IoError,
               path + ": " + why + "; refusing to start so no event number is reused"};
}

// The stored ceiling; missing → the journal's highest seq.
Result<std::uint64_t> read_ceiling(const std::string& path, std::uint64_t journal_max_seq) {
  if (!fs::exists(path)) return journal_max_seq;
  auto text = fs::read_file(path, kSequenceFileMaxBytes);
  if (!text.ok()) return refuse(path, text.error().message);
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_number_unsigned())
    return refuse(path, "not a non-negative JSON integer");
  auto stored = j.get<std::uint64_t>();
  if (stored < journal_max_seq)
    return refuse(path, "reserves up to " + std::to_string(stored) +
                            " but the journal already holds seq " +
                            std::to_string(journal_max_seq));
  return stored;
}

}  // namespace

Result<SequenceReservation> SequenceReservation::open(const std::string& state_dir,
                                                      std::uint64_t journal_max_seq) {
  const std::string path = fs::join(state_dir, kSequenceName);
  SIGNALTTY_TRY(std::uint64_t stored, read_ceiling(path, journal_max_seq));
  SequenceReservation seq(path, stored);
  seq.reserved_ = stored;
  SIGNALTTY_RETURN_IF_ERROR(seq.reserve_block());
  log::info("event sequence: continuing after " + std::to_string(stored) + ", reserved through " +
            std::to_string(seq.reserved_));
  return seq;
}

Result<std::uint64_t> SequenceReservation::next() {
  if (head_ == reserved_) SIGNALTTY_RETURN_IF_ERROR(reserve_block());
  return ++head_;
}

Status SequenceReservation::reserve_block() {
  if (reserved_ > std::numeric_limits<std::uint64_t>::max() - limits::kSeqReservationBlock)
    return Error{ErrorCode::Internal, path_ + ": event numbers exhausted"};
  const std::uint64_t ceiling = reserved_ + limits::kSeqReservationBlock;
  SIGNALTTY_RETURN_IF_ERROR(fs::write_file_durable(path_, std::to_string(ceiling) + "\n"));
  reserved_ = ceiling;
  return {};
}

}  // namespace signaltty::broker
