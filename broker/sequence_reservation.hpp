// broker/sequence_reservation.hpp: owns event-sequence.json, the highest
// event number reserved so far (docs/rules.md, Sequence reservation).
// Numbers are reserved durably in blocks of 4096 before any is issued, so
// a crash never reuses one; a restart skips what the last run left unused.
// Runs in: broker (io thread; the file write is small and rare).
// Never: issues a number that is not durably reserved; never starts from a
// reservation it cannot read.
//
// Usage:
//   SIGNALTTY_TRY(auto seq, SequenceReservation::open(state_dir, journal->max_seq()));
//   SIGNALTTY_TRY(std::uint64_t n, seq.next());   // a write failure is fatal
#pragma once

#include <cstdint>
#include <string>

#include "common/errors.hpp"

namespace signaltty::broker {

class SequenceReservation {
 public:
  // Reads the stored ceiling (missing → journal_max_seq; unparsable or
  // below journal_max_seq → IO_ERROR: startup fails), then durably
  // reserves one block above it. The head is the stored value.
  static Result<SequenceReservation> open(const std::string& state_dir,
                                          std::uint64_t journal_max_seq);

  // The next number; reserves another block durably first when the current
  // one is used up. An error means nothing was issued.
  Result<std::uint64_t> next();
  // The last number issued (the stored ceiling right after open()).
  std::uint64_t head() const { return head_; }
  // The highest number durably reserved.
  std::uint64_t reserved() const { return reserved_; }

 private:
  SequenceReservation(std::string path, std::uint64_t head) : path_(std::move(path)), head_(head) {}
  Status reserve_block();

  std::string path_;
  std::uint64_t head_ = 0;
  std::uint64_t reserved_ = 0;
};

}  // namespace signaltty::broker
