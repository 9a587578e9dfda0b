// common/check.hpp: check_invariant(), the one place a broken invariant of
// our own is reported (in the manner of mosh's fatal_assert): a Result that
// "cannot fail" failed, or a condition we rely on does not hold. It logs
// loudly with the caller's location and the error; the caller decides per
// call whether the process may go on (OnBreak::Log) or must stop
// (OnBreak::Abort).
// Runs in: every process. Never: used for a peer's bad input (that is an
// Error returned to the peer), or silently: every break is logged.
//
// Usage:
//   check_invariant(store.pane_without_process(txn, id), "pane of a lost ptyhost");
//   if (!check_invariant(saved, "snapshot after launch")) keep_pending();
//   check_invariant(fd >= 0, "listener fd", OnBreak::Abort);
#pragma once

#include <source_location>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty {

enum class OnBreak { Log, Abort };

// Logs "INVARIANT BROKEN at file:line: what: detail"; aborts if asked.
void report_broken_invariant(std::string_view what, std::string_view detail, OnBreak on_break,
                             const std::source_location& where);

// True when the invariant holds.
inline bool check_invariant(bool holds, std::string_view what, OnBreak on_break = OnBreak::Log,
                            std::source_location where = std::source_location::current()) {
  if (!holds) report_broken_invariant(what, "condition false", on_break, where);
  return holds;
}

// True when `result` is ok; otherwise reports its error.
template <class T>
bool check_invariant(const Result<T>& result, std::string_view what,
                     OnBreak on_break = OnBreak::Log,
                     std::source_location where = std::source_location::current()) {
  if (!result.ok()) report_broken_invariant(what, result.error().message, on_break, where);
  return result.ok();
}

}  // namespace signaltty
