// common/pane_size.hpp: the one clamp of a pane's PTY size (docs/rules.md (Panes and PTYs),
// "Resize and signals": clamp, no size is ever 0), for the broker's
// requests and the ptyhost's resize alike; the bounds are in limits.hpp.
// Runs in: every process. Never: holds a bound of its own.
#pragma once

#include <algorithm>

#include "common/limits.hpp"

namespace signaltty {

struct ClampedPaneSize {
  int cols = limits::kPaneColsDefault;
  int rows = limits::kPaneRowsDefault;
};

constexpr ClampedPaneSize clamp_pane_size(int cols, int rows) {
  return {std::clamp(cols, limits::kPaneColsMin, limits::kPaneColsMax),
          std::clamp(rows, limits::kPaneRowsMin, limits::kPaneRowsMax)};
}

}  // namespace signaltty
