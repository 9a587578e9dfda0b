// common/check.cpp: how a broken invariant is reported (common/check.hpp).
// Runs in: every process. Never: returns after OnBreak::Abort.
#include "common/check.hpp"

#include <cstdlib>
#include <string>

#include "common/log.hpp"

namespace signaltty {

void report_broken_invariant(std::string_view what, std::string_view detail, OnBreak on_break,
                             const std::source_location& where) {
  std::string line = "INVARIANT BROKEN at ";
  line += where.file_name();
  line += ':';
  line += std::to_string(where.line());
  line += ": ";
  line += what;
  line += ": ";
  line += detail;
  if (on_break == OnBreak::Abort) line += "; aborting";
  log::error(line);
  if (on_break == OnBreak::Abort) std::abort();
}

}  // namespace signaltty
