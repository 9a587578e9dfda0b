// tests/broker/layout_test.cpp: layout tree rules (docs/rules.md, "Tab and
// layout"): validation, split with re-evening, removal, ratios, swaps.
#include "broker/layout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "common/limits.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using Dir = SplitDir;

Layout L(const std::string& id) { return Layout::leaf(id); }
Layout S(Dir dir, double ratio, Layout first, Layout second) {
  return Layout::split(dir, ratio, std::move(first), std::move(second));
}

// Each leaf's share of the tab along `dir` (its width for Right, its height
// for Down), multiplying the ratios of the `dir` splits above it.
void collect_shares(const Layout& l, Dir dir, double share, std::map<std::string, double>& out) {
  if (l.type == Layout::Type::Pane) {
    out[l.pane_id] = share;
    return;
  }
  const double first = l.dir == dir ? share * l.ratio : share;
  const double second = l.dir == dir ? share * (1 - l.ratio) : share;
  collect_shares(*l.first, dir, first, out);
  collect_shares(*l.second, dir, second, out);
}
std::map<std::string, double> shares(const Layout& l, Dir dir) {
  std::map<std::string, double> out;
  collect_shares(l, dir, 1.0, out);
  return out;
}

TEST(Leaves, ListsPaneIdsFirstBeforeSecond) {
  Layout l = S(Dir::Right, .5, L("a"), S(Dir::Down, .5, L("b"), L("c")));
  EXPECT_EQ(leaves(l), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(first_leaf(l), "a");
  EXPECT_TRUE(contains_leaf(l, "c"));
  EXPECT_FALSE(contains_leaf(l, "d"));
}

TEST(ValidateLayout, AcceptsEveryPaneOfTheTabExactlyOnce) {
  Layout l = S(Dir::Right, .5, L("a"), S(Dir::Down, .5, L("b"), L("c")));
  EXPECT_TRUE(validate_layout_for_tab(l, {"c", "a", "b"}).ok());
}

TEST(ValidateLayout, ForeignPaneIsBadParamsNamingIt) {
  Status s = validate_layout_for_tab(S(Dir::Right, .5, L("a"), L("x")), {"a"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::BadParams);
  EXPECT_EQ(s.error().details["pane_id"], "x");
  EXPECT_NE(s.error().message.find("not in this tab"), std::string::npos);
}

TEST(ValidateLayout, RepeatedPaneIsBadParamsNamingIt) {
  Status s = validate_layout_for_tab(S(Dir::Right, .5, L("a"), L("a")), {"a"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().details["pane_id"], "a");
  EXPECT_NE(s.error().message.find("more than once"), std::string::npos);
}

TEST(ValidateLayout, MissingPaneIsBadParamsNamingIt) {
  Status s = validate_layout_for_tab(L("a"), {"a", "b"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().details["pane_id"], "b");
  EXPECT_NE(s.error().message.find("missing"), std::string::npos);
}

TEST(ValidateLayout, AnyLeafOfATabWithoutPanesIsForeign) {
  EXPECT_FALSE(validate_layout_for_tab(L("a"), {}).ok());
}

TEST(ValidateLayout, NonFiniteRatioIsBadParams) {
  Status s = validate_layout_for_tab(
      S(Dir::Right, std::numeric_limits<double>::quiet_NaN(), L("a"), L("b")), {"a", "b"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().details["field"], "ratio");
}

TEST(ClampRatios, ClampsEverySplitIntoRange) {
  Layout l = clamp_ratios(S(Dir::Right, 0.0, L("a"), S(Dir::Down, 1.0, L("b"), L("c"))));
  EXPECT_EQ(l.ratio, limits::kRatioMin);
  EXPECT_EQ(l.second->ratio, limits::kRatioMax);
}

TEST(SplitLeaf, LoneLeafBecomesAnEvenSplitWithTheNewPaneSecond) {
  EXPECT_EQ(split_leaf(L("a"), "a", "b", Dir::Right), S(Dir::Right, .5, L("a"), L("b")));
}

TEST(SplitLeaf, ThreeColumnsEachGetOneThird) {
  Layout two = split_leaf(L("a"), "a", "b", Dir::Right);
  Layout three = split_leaf(two, "b", "c", Dir::Right);
  auto w = shares(three, Dir::Right);
  EXPECT_NEAR(w["a"], 1.0 / 3, 1e-9);
  EXPECT_NEAR(w["b"], 1.0 / 3, 1e-9);
  EXPECT_NEAR(w["c"], 1.0 / 3, 1e-9);
  EXPECT_EQ(leaves(three), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(SplitLeaf, SplittingTheFirstColumnAlsoEvensTheRun) {
  Layout three = split_leaf(S(Dir::Right, .5, L("a"), L("b")), "a", "c", Dir::Right);
  EXPECT_EQ(leaves(three), (std::vector<std::string>{"a", "c", "b"}));
  for (const auto& [id, width] : shares(three, Dir::Right)) EXPECT_NEAR(width, 1.0 / 3, 1e-9) << id;
}

TEST(SplitLeaf, DraggedRatiosInTheRunReset) {
  Layout dragged = S(Dir::Right, .8, L("a"), S(Dir::Right, .2, L("b"), L("c")));
  Layout four = split_leaf(dragged, "c", "d", Dir::Right);
  for (const auto& [id, width] : shares(four, Dir::Right)) EXPECT_NEAR(width, 0.25, 1e-9) << id;
}

TEST(SplitLeaf, NestedOtherDirectionSubtreeCountsAsOneColumn) {
  Layout l = S(Dir::Right, .5, L("a"), S(Dir::Down, .3, L("b"), L("c")));
  Layout out = split_leaf(l, "a", "d", Dir::Right);
  auto w = shares(out, Dir::Right);
  EXPECT_NEAR(w["a"], 1.0 / 3, 1e-9);
  EXPECT_NEAR(w["d"], 1.0 / 3, 1e-9);
  EXPECT_NEAR(w["b"], 1.0 / 3, 1e-9);  // the stacked pair shares one column
  EXPECT_NEAR(w["c"], 1.0 / 3, 1e-9);
  EXPECT_EQ(out.second->ratio, .3);  // the other direction keeps its ratio
}

TEST(SplitLeaf, RunStopsAtTheNearestOtherDirectionAncestor) {
  Layout l = S(Dir::Down, .7, S(Dir::Right, .9, L("a"), L("b")), L("c"));
  Layout out = split_leaf(l, "a", "d", Dir::Right);
  EXPECT_EQ(out.ratio, .7);
  auto w = shares(*out.first, Dir::Right);
  EXPECT_NEAR(w["a"], 1.0 / 3, 1e-9);
  EXPECT_NEAR(w["d"], 1.0 / 3, 1e-9);
  EXPECT_NEAR(w["b"], 1.0 / 3, 1e-9);
}

TEST(SplitLeaf, SplittingAcrossTheRunLeavesSurroundingRatiosAlone) {
  Layout l = S(Dir::Right, .3, L("a"), L("b"));
  EXPECT_EQ(split_leaf(l, "b", "c", Dir::Down),
            S(Dir::Right, .3, L("a"), S(Dir::Down, .5, L("b"), L("c"))));
}

TEST(SplitLeaf, ManyColumnsKeepRatiosInRange) {
  Layout l = L("p0");
  for (int i = 1; i < 30; ++i)
    l = split_leaf(l, "p" + std::to_string(i - 1), "p" + std::to_string(i), Dir::Right);
  EXPECT_EQ(leaves(l).size(), 30u);
  EXPECT_TRUE(validate_layout_for_tab(l, leaves(l)).ok());
  EXPECT_GE(l.ratio, limits::kRatioMin);
}

TEST(SplitLeaf, UnknownTargetReturnsTheLayoutUnchanged) {
  Layout l = S(Dir::Right, .4, L("a"), L("b"));
  EXPECT_EQ(split_leaf(l, "zz", "c", Dir::Right), l);
}

TEST(SplitLeaf, InputTreeIsNeverMutatedAndUntouchedSubtreesAreShared) {
  Layout l = S(Dir::Down, .6, S(Dir::Right, .5, L("a"), L("b")), S(Dir::Right, .5, L("c"), L("d")));
  const Layout before = l;
  Layout out = split_leaf(l, "a", "e", Dir::Down);
  EXPECT_EQ(l, before);
  EXPECT_EQ(out.second.get(), l.second.get());
}

TEST(RemoveLeaf, ParentCollapsesIntoTheSibling) {
  Layout l = S(Dir::Right, .5, L("a"), S(Dir::Down, .3, L("b"), L("c")));
  EXPECT_EQ(remove_leaf(l, "b"), S(Dir::Right, .5, L("a"), L("c")));
  EXPECT_EQ(remove_leaf(l, "a"), S(Dir::Down, .3, L("b"), L("c")));
}

TEST(RemoveLeaf, RemovingTheLastLeafYieldsNull) { EXPECT_EQ(remove_leaf(L("a"), "a"), std::nullopt); }

TEST(RemoveLeaf, UnknownPaneLeavesTheLayoutUnchanged) {
  Layout l = S(Dir::Right, .5, L("a"), L("b"));
  EXPECT_EQ(remove_leaf(l, "zz"), l);
}

TEST(RetainLeaves, DropsRejectedLeavesAndCollapsesTheirSplits) {
  Layout l = S(Dir::Right, .5, L("a"), S(Dir::Down, .3, L("b"), L("a")));
  std::set<std::string> seen;
  auto kept = retain_leaves(l, [&](const std::string& id) { return seen.insert(id).second; });
  EXPECT_EQ(kept, S(Dir::Right, .5, L("a"), L("b")));
  EXPECT_EQ(retain_leaves(l, [](const std::string&) { return false; }), std::nullopt);
}

TEST(SetRatioAt, EmptyPathMovesTheRootDivider) {
  auto r = set_ratio_at(S(Dir::Right, .5, L("a"), L("b")), {}, .3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, S(Dir::Right, .3, L("a"), L("b")));
}

TEST(SetRatioAt, PathWalksFirstAndSecondChoices) {
  Layout l = S(Dir::Right, .5, L("a"), S(Dir::Down, .5, S(Dir::Right, .5, L("b"), L("c")), L("d")));
  auto r = set_ratio_at(l, {1, 0}, .25);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->second->first->ratio, .25);
  EXPECT_EQ(r->ratio, .5);
  EXPECT_EQ(r->second->ratio, .5);
}

TEST(SetRatioAt, RatioIsClampedSoNoPaneCollapses) {
  Layout l = S(Dir::Right, .5, L("a"), L("b"));
  EXPECT_EQ(set_ratio_at(l, {}, 0.0)->ratio, limits::kRatioMin);
  EXPECT_EQ(set_ratio_at(l, {}, 7.0)->ratio, limits::kRatioMax);
}

TEST(SetRatioAt, PathEndingOnAPaneIsBadParamsWithThePath) {
  auto r = set_ratio_at(S(Dir::Right, .5, L("a"), L("b")), {0}, .3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadParams);
  EXPECT_EQ(r.error().details["path"], nlohmann::json::array({0}));
}

TEST(SetRatioAt, PathThroughAPaneIsBadParams) {
  auto r = set_ratio_at(S(Dir::Right, .5, L("a"), L("b")), {0, 1}, .3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().details["path"], nlohmann::json::array({0, 1}));
}

TEST(SetRatioAt, StepOtherThanZeroOrOneIsBadParams) {
  EXPECT_FALSE(set_ratio_at(S(Dir::Right, .5, L("a"), L("b")), {2}, .3).ok());
  EXPECT_FALSE(set_ratio_at(S(Dir::Right, .5, L("a"), L("b")), {-1}, .3).ok());
}

TEST(SetRatioAt, LoneLeafHasNoDivider) { EXPECT_FALSE(set_ratio_at(L("a"), {}, .3).ok()); }

TEST(SetRatioAt, NonFiniteRatioIsBadParams) {
  auto r = set_ratio_at(S(Dir::Right, .5, L("a"), L("b")), {},
                        std::numeric_limits<double>::infinity());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().details["field"], "ratio");
}

TEST(SwapLeaves, ExchangesPanesKeepingShapeAndRatios) {
  Layout l = S(Dir::Right, .3, L("a"), S(Dir::Down, .6, L("b"), L("c")));
  EXPECT_EQ(swap_leaves(l, "a", "c"), S(Dir::Right, .3, L("c"), S(Dir::Down, .6, L("b"), L("a"))));
}

TEST(ReplaceLeaf, PutsAnotherPaneInTheSameSlot) {
  Layout l = S(Dir::Right, .3, L("a"), L("b"));
  EXPECT_EQ(replace_leaf(l, "b", "z"), S(Dir::Right, .3, L("a"), L("z")));
}

TEST(MapLeaves, RewritesEveryLeafAndStopsAtTheFirstError) {
  Layout l = S(Dir::Right, .3, L("a"), L("b"));
  auto upper = map_leaves(l, [](const std::string& id) -> Result<std::string> { return id + "!"; });
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(leaves(*upper), (std::vector<std::string>{"a!", "b!"}));
  auto failed = map_leaves(l, [](const std::string& id) -> Result<std::string> {
    if (id == "b") return Error{ErrorCode::NoSuchPane, "no pane 'b'"};
    return id;
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::NoSuchPane);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
