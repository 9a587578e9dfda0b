// broker/output_budget.hpp: the bytes queued to all clients together,
// against one budget (docs/architecture.md, "Closing a connection").
// Runs in: broker (io thread). Never: lets clients that stopped reading hold
// more than the budget between them. Each connection's own cap bounds one
// client; without this, ten viewers of a busy pane that never read held
// 640 MiB, a hundred of them 6.4 GiB.
//
// Usage (a connection): enroll() when it opens, moved(before, after) each
// time its queue changes size, withdraw() when it closes. Past the budget,
// moved() sheds the members that hold the most until the budget holds;
// shedding a member must empty its queue (and report that through moved()).
#pragma once

#include <cstddef>
#include <unordered_set>

namespace signaltty::broker {

class OutputBudget {
 public:
  class Member {
   public:
    virtual std::size_t queued_bytes() const = 0;
    // Drop this client now: its queue is emptied.
    virtual void shed(std::size_t total_bytes, std::size_t budget_bytes) = 0;

   protected:
    ~Member() = default;
  };

  explicit OutputBudget(std::size_t budget_bytes) : budget_bytes_(budget_bytes) {}

  void enroll(Member& member) { members_.insert(&member); }
  void withdraw(Member& member) { members_.erase(&member); }
  void moved(std::size_t before, std::size_t after);

  std::size_t total_bytes() const { return total_bytes_; }
  std::size_t budget_bytes() const { return budget_bytes_; }

 private:
  Member* largest() const;

  std::size_t budget_bytes_;
  std::size_t total_bytes_ = 0;
  bool shedding_ = false;
  std::unordered_set<Member*> members_;
};

}  // namespace signaltty::broker
