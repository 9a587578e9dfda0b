// broker/layout.cpp: layout tree edits and checks (docs/rules.md, "Tab and
// layout"). Trees are immutable: edits copy the path from the root to the
// change and share every other subtree.
// Runs in: broker (io thread). Never: mutates a node reachable from its input.
#include "broker/layout.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <span>

#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

using Node = std::shared_ptr<const Layout>;
using Path = std::vector<int>;

bool is_split(const Layout& l) { return l.type == Layout::Type::Split; }

Node share(Layout l) { return std::make_shared<const Layout>(std::move(l)); }

Layout make_split(SplitDir dir, double ratio, Node first, Node second) {
  Layout l;
  l.type = Layout::Type::Split;
  l.dir = dir;
  l.ratio = ratio;
  l.first = std::move(first);
  l.second = std::move(second);
  return l;
}

double clamp_ratio(double ratio) { return std::clamp(ratio, limits::kRatioMin, limits::kRatioMax); }

void collect_leaves(const Layout& l, std::vector<std::string>& out) {
  if (!is_split(l)) {
    out.push_back(l.pane_id);
    return;
  }
  collect_leaves(*l.first, out);
  collect_leaves(*l.second, out);
}

// Fills `path` with the 0/1 choices leading to the first leaf `pane_id`.
bool find_leaf_path(const Layout& l, std::string_view pane_id, Path& path) {
  if (!is_split(l)) return l.pane_id == pane_id;
  path.push_back(0);
  if (find_leaf_path(*l.first, pane_id, path)) return true;
  path.back() = 1;
  if (find_leaf_path(*l.second, pane_id, path)) return true;
  path.pop_back();
  return false;
}

// The node at `path`; every step must go through a split (checked by callers).
const Layout& node_at(const Layout& root, std::span<const int> path) {
  const Layout* node = &root;
  for (int step : path) node = (step == 0 ? node->first : node->second).get();
  return *node;
}

Layout replace_at(const Layout& node, std::span<const int> path, Layout replacement) {
  if (path.empty()) return replacement;
  Layout copy = node;
  Node& child = path.front() == 0 ? copy.first : copy.second;
  child = share(replace_at(*child, path.subspan(1), std::move(replacement)));
  return copy;
}

// Columns (or rows) of a `dir` run: a nested subtree of the other
// direction, or a leaf, counts as one.
std::size_t run_items(const Layout& l, SplitDir dir) {
  if (!is_split(l) || l.dir != dir) return 1;
  return run_items(*l.first, dir) + run_items(*l.second, dir);
}

Layout even_run(const Layout& l, SplitDir dir) {
  if (!is_split(l) || l.dir != dir) return l;
  const auto in_first = static_cast<double>(run_items(*l.first, dir));
  const auto in_second = static_cast<double>(run_items(*l.second, dir));
  return make_split(dir, clamp_ratio(in_first / (in_first + in_second)),
                    share(even_run(*l.first, dir)), share(even_run(*l.second, dir)));
}

// The prefix length of `split_path` where the `dir` run around the split at
// `split_path` begins: the highest ancestor reachable through `dir` splits.
std::size_t run_top(const Layout& root, const Path& split_path, SplitDir dir) {
  std::size_t top = split_path.size();
  while (top > 0) {
    const Layout& parent = node_at(root, std::span<const int>(split_path).first(top - 1));
    if (parent.dir != dir) break;
    --top;
  }
  return top;
}

Layout rename_leaves(const Layout& l, const std::function<std::string(const std::string&)>& f) {
  if (!is_split(l)) return Layout::leaf(f(l.pane_id));
  return make_split(l.dir, l.ratio, share(rename_leaves(*l.first, f)),
                    share(rename_leaves(*l.second, f)));
}

Error pane_error(std::string message, const std::string& pane_id) {
  Error e = bad_params("layout: " + std::move(message));
  e.details = {{"pane_id", pane_id}};
  return e;
}

Error path_error(const Path& path, std::string message) {
  Error e = bad_params("path: " + std::move(message));
  e.details = {{"path", path}};
  return e;
}

Status check_ratios_finite(const Layout& l) {
  if (!is_split(l)) return {};
  if (!std::isfinite(l.ratio)) {
    Error e = bad_params("layout: split ratio must be finite");
    e.details = {{"field", "ratio"}};
    return e;
  }
  SIGNALTTY_RETURN_IF_ERROR(check_ratios_finite(*l.first));
  return check_ratios_finite(*l.second);
}

std::optional<Layout> retain(const Layout& l, const std::function<bool(const std::string&)>& keep) {
  if (!is_split(l)) return keep(l.pane_id) ? std::optional<Layout>(l) : std::nullopt;
  std::optional<Layout> first = retain(*l.first, keep);
  std::optional<Layout> second = retain(*l.second, keep);
  if (!first) return second;
  if (!second) return first;
  return make_split(l.dir, l.ratio, share(std::move(*first)), share(std::move(*second)));
}

}  // namespace

std::vector<std::string> leaves(const Layout& layout) {
  std::vector<std::string> out;
  collect_leaves(layout, out);
  return out;
}

bool contains_leaf(const Layout& layout, std::string_view pane_id) {
  Path path;
  return find_leaf_path(layout, pane_id, path);
}

const std::string& first_leaf(const Layout& layout) {
  const Layout* node = &layout;
  while (is_split(*node)) node = node->first.get();
  return node->pane_id;
}

Status validate_layout_for_tab(const Layout& layout,
                               const std::vector<std::string>& tab_pane_ids) {
  const std::set<std::string> owned(tab_pane_ids.begin(), tab_pane_ids.end());
  std::set<std::string> seen;
  for (const std::string& id : leaves(layout)) {
    if (!owned.contains(id)) return pane_error("pane '" + id + "' is not in this tab", id);
    if (!seen.insert(id).second) return pane_error("pane '" + id + "' appears more than once", id);
  }
  for (const std::string& id : tab_pane_ids) {
    if (!seen.contains(id)) return pane_error("pane '" + id + "' of this tab is missing", id);
  }
  return check_ratios_finite(layout);
}

Layout clamp_ratios(const Layout& layout) {
  if (!is_split(layout)) return layout;
  return make_split(layout.dir, clamp_ratio(layout.ratio), share(clamp_ratios(*layout.first)),
                    share(clamp_ratios(*layout.second)));
}

Result<Layout> map_leaves(const Layout& layout, const LeafResolver& resolve) {
  if (!is_split(layout)) {
    SIGNALTTY_TRY(std::string id, resolve(layout.pane_id));
    return Layout::leaf(std::move(id));
  }
  SIGNALTTY_TRY(Layout first, map_leaves(*layout.first, resolve));
  SIGNALTTY_TRY(Layout second, map_leaves(*layout.second, resolve));
  return make_split(layout.dir, layout.ratio, share(std::move(first)), share(std::move(second)));
}

Layout split_leaf(const Layout& layout, std::string_view target_pane_id,
                  const std::string& new_pane_id, SplitDir dir) {
  Path path;
  if (!find_leaf_path(layout, target_pane_id, path)) return layout;
  Layout fresh = Layout::split(dir, 0.5, Layout::leaf(std::string(target_pane_id)),
                               Layout::leaf(new_pane_id));
  const Layout grown = replace_at(layout, path, std::move(fresh));
  const std::span<const int> top(path.data(), run_top(grown, path, dir));
  return replace_at(grown, top, even_run(node_at(grown, top), dir));
}

std::optional<Layout> remove_leaf(const Layout& layout, std::string_view pane_id) {
  Path path;
  if (!find_leaf_path(layout, pane_id, path)) return layout;
  if (path.empty()) return std::nullopt;
  const std::span<const int> parent_path(path.data(), path.size() - 1);
  const Layout& parent = node_at(layout, parent_path);
  const Layout& sibling = path.back() == 0 ? *parent.second : *parent.first;
  return replace_at(layout, parent_path, sibling);
}

std::optional<Layout> retain_leaves(const Layout& layout,
                                    const std::function<bool(const std::string&)>& keep) {
  return retain(layout, keep);
}

Result<Layout> set_ratio_at(const Layout& layout, const std::vector<int>& path, double ratio) {
  const Layout* node = &layout;
  for (int step : path) {
    if (step != 0 && step != 1) return path_error(path, "steps must be 0 (first) or 1 (second)");
    if (!is_split(*node)) return path_error(path, "passes through a pane, not a split");
    node = (step == 0 ? node->first : node->second).get();
  }
  if (!is_split(*node)) return path_error(path, "names a pane, not a split");
  if (!std::isfinite(ratio)) {
    Error e = bad_params("ratio: must be finite");
    e.details = {{"field", "ratio"}};
    return e;
  }
  return replace_at(layout, path,
                    make_split(node->dir, clamp_ratio(ratio), node->first, node->second));
}

Layout swap_leaves(const Layout& layout, std::string_view a, std::string_view b) {
  return rename_leaves(layout, [&](const std::string& id) {
    if (id == a) return std::string(b);
    if (id == b) return std::string(a);
    return id;
  });
}

Layout replace_leaf(const Layout& layout, std::string_view old_pane_id,
                    const std::string& new_pane_id) {
  return rename_leaves(layout, [&](const std::string& id) {
    return id == old_pane_id ? new_pane_id : id;
  });
}

}  // namespace signaltty::broker
