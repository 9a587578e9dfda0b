// broker/output_budget.cpp: see output_budget.hpp. Runs in: broker (io thread).
#include "broker/output_budget.hpp"

namespace signaltty::broker {

void OutputBudget::moved(std::size_t before, std::size_t after) {
  total_bytes_ = total_bytes_ - before + after;
  if (shedding_ || total_bytes_ <= budget_bytes_) return;
  // Shedding calls back into moved() as each queue empties.
  shedding_ = true;
  while (total_bytes_ > budget_bytes_) {
    Member* member = largest();
    if (member == nullptr) break;
    member->shed(total_bytes_, budget_bytes_);
    // A connection withdraws itself as it closes; this one is for a member
    // that does not, so that it is never chosen twice and the loop ends.
    withdraw(*member);
  }
  shedding_ = false;
}

OutputBudget::Member* OutputBudget::largest() const {
  Member* found = nullptr;
  std::size_t most = 0;
  for (Member* member : members_) {
    const std::size_t queued = member->queued_bytes();
    if (queued > most) {
      most = queued;
      found = member;
    }
  }
  return found;
}

}  // namespace signaltty::broker
