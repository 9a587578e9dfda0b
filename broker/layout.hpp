// broker/layout.hpp: the rules of a tab's layout tree (docs/rules.md, "Tab and
// layout": tab.set_layout, tab.set_ratio, pane.swap, pane.move). Pure
// functions: a Layout's children are shared and immutable, so every edit
// returns a new tree that shares the untouched subtrees.
// Runs in: broker (io thread). Never: knows the store; pane ids come in as
// plain strings and the caller resolves names first.
//
// Usage:
//   SIGNALTTY_RETURN_IF_ERROR(validate_layout_for_tab(layout, tab_pane_ids));
//   Layout grown = split_leaf(layout, "pane_a…", "pane_b…", SplitDir::Right);
//   std::optional<Layout> shrunk = remove_leaf(grown, "pane_a…");  // nullopt: empty tab
//   SIGNALTTY_TRY(Layout moved, set_ratio_at(grown, {0, 1}, 0.3));
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/protocol/model.hpp"

namespace signaltty::broker {

using protocol::Layout;
using protocol::SplitDir;

// The pane ids of the leaves, left to right (first before second).
std::vector<std::string> leaves(const Layout& layout);
bool contains_leaf(const Layout& layout, std::string_view pane_id);
// The leftmost leaf's pane id.
const std::string& first_leaf(const Layout& layout);

// BAD_PARAMS (details {pane_id}) when a leaf names a pane that is not in
// `tab_pane_ids` (foreign), names one twice (repeated), or a pane of the tab
// has no leaf (missing); BAD_PARAMS (details {field}) for a non-finite
// ratio. OK means every pane of the tab appears exactly once.
Status validate_layout_for_tab(const Layout& layout, const std::vector<std::string>& tab_pane_ids);

// The same tree with every ratio clamped to limits::kRatioMin..kRatioMax.
// Expects finite ratios (validate_layout_for_tab checks).
Layout clamp_ratios(const Layout& layout);

// Rewrites every leaf's pane id through `resolve` (e.g. pane name → id);
// the first error stops the walk and is returned.
using LeafResolver = std::function<Result<std::string>(const std::string& pane_id)>;
Result<Layout> map_leaves(const Layout& layout, const LeafResolver& resolve);

// The leaf `target_pane_id` becomes split(dir, 0.5, first=target,
// second=new), then the whole run of `dir` splits around it (up to the
// nearest ancestor of the other direction) is re-evened so every column
// (dir right) or row (dir down) gets an equal share; a nested subtree of
// the other direction counts as one. Ratios dragged inside that run reset.
// Precondition: contains_leaf(layout, target_pane_id); else the layout is
// returned unchanged.
Layout split_leaf(const Layout& layout, std::string_view target_pane_id,
                  const std::string& new_pane_id, SplitDir dir);

// Removes the leaf `pane_id`: its parent split collapses into the sibling.
// Removing the only leaf yields nullopt (the tab's layout becomes null).
// A pane id without a leaf leaves the layout unchanged.
std::optional<Layout> remove_leaf(const Layout& layout, std::string_view pane_id);

// Keeps only the leaves for which `keep` returns true (called once per leaf,
// left to right, so it may keep state), collapsing emptied splits. nullopt
// when no leaf is kept.
std::optional<Layout> retain_leaves(const Layout& layout,
                                    const std::function<bool(const std::string&)>& keep);

// Sets the ratio of the split at `path` (0 = first, 1 = second from the
// root; [] = the root). BAD_PARAMS with details {path} unless the path
// resolves to a split; BAD_PARAMS with details {field:"ratio"} for a
// non-finite ratio; a finite ratio is clamped to kRatioMin..kRatioMax.
Result<Layout> set_ratio_at(const Layout& layout, const std::vector<int>& path, double ratio);

// Exchanges the pane ids of leaves `a` and `b`; shape and ratios stay.
Layout swap_leaves(const Layout& layout, std::string_view a, std::string_view b);

// The leaf `old_pane_id` now holds `new_pane_id`; shape and ratios stay.
Layout replace_leaf(const Layout& layout, std::string_view old_pane_id,
                    const std::string& new_pane_id);

}  // namespace signaltty::broker
