#include "importance/fanova_tree.h"

#include <cmath>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

namespace gpusweep::importance {
namespace {

using Node = RegressionTree::Node;

TEST(FanovaTreeTest, OneSplitExplainsAllOfTheVariance) {
  RegressionTree tree{{Node{0, 0.5, 1, 2, 0}, Node{-1, 0, -1, -1, 0.0}, Node{-1, 0, -1, -1, 1.0}}};
  FanovaTree fanova(tree, {{0, 1}, {0, 1}});
  EXPECT_DOUBLE_EQ(fanova.Variance(), 0.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({0}), 0.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({1}), 0.0);
}

// f(a, b) = 2 [a > 0.5] + [b > 0.5] on the unit square: additive, so the variance
// splits exactly: Var = 1 (a) + 0.25 (b).
TEST(FanovaTreeTest, AnAdditiveTreeSplitsItsVarianceByFeature) {
  RegressionTree tree{{Node{0, 0.5, 1, 2, 0},
                       Node{1, 0.5, 3, 4, 0}, Node{1, 0.5, 5, 6, 0},
                       Node{-1, 0, -1, -1, 0}, Node{-1, 0, -1, -1, 1},
                       Node{-1, 0, -1, -1, 2}, Node{-1, 0, -1, -1, 3}}};
  FanovaTree fanova(tree, {{0, 1}, {0, 1}});
  EXPECT_DOUBLE_EQ(fanova.Variance(), 1.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({0}), 1.0);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({1}), 0.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({0, 1}), 1.25);
}

// Cells are weighted by their width: a split at 0.9 leaves 90% of the box on one side.
TEST(FanovaTreeTest, UnevenCellsAreWeightedByVolume) {
  RegressionTree tree{{Node{0, 0.9, 1, 2, 0}, Node{-1, 0, -1, -1, 0.0}, Node{-1, 0, -1, -1, 1.0}}};
  FanovaTree fanova(tree, {{0, 1}});
  EXPECT_NEAR(fanova.Variance(), 0.9 * 0.1, 1e-12);
  EXPECT_NEAR(fanova.MarginalVariance({0}), 0.09, 1e-12);
}

// The exact marginal variance by brute force: the tree is constant on every cell of the
// grid all its thresholds make, so average it over each cell of `features`' grid.
double BruteMarginalVariance(const RegressionTree& tree, const Bounds& bounds,
                             const std::vector<int>& features) {
  std::vector<std::vector<double>> edges(bounds.size());
  for (std::size_t f = 0; f < bounds.size(); ++f) {
    std::set<double> cuts{bounds[f].first, bounds[f].second};
    for (const Node& node : tree.nodes)
      if (node.feature == static_cast<int>(f)) cuts.insert(node.threshold);
    edges[f].assign(cuts.begin(), cuts.end());
  }
  std::map<std::vector<std::size_t>, std::pair<double, double>> marginal;  // Σ f·vol, Σ vol
  std::vector<std::size_t> at(bounds.size(), 0);
  while (true) {
    std::vector<double> mid(bounds.size());
    double volume = 1;
    for (std::size_t f = 0; f < bounds.size(); ++f) {
      mid[f] = 0.5 * (edges[f][at[f]] + edges[f][at[f] + 1]);
      volume *= edges[f][at[f] + 1] - edges[f][at[f]];
    }
    int i = 0;
    while (tree.nodes[i].feature >= 0)
      i = mid[tree.nodes[i].feature] <= tree.nodes[i].threshold ? tree.nodes[i].left : tree.nodes[i].right;
    std::vector<std::size_t> key;
    for (int f : features) key.push_back(at[f]);
    marginal[key].first += tree.nodes[i].value * volume;
    marginal[key].second += volume;
    std::size_t f = 0;
    while (f < bounds.size() && ++at[f] == edges[f].size() - 1) at[f++] = 0;
    if (f == bounds.size()) break;
  }
  double total = 0, mean = 0, square = 0;
  for (const auto& [key, sums] : marginal) {
    const double value = sums.first / sums.second;
    total += sums.second, mean += value * sums.second, square += value * value * sums.second;
  }
  mean /= total;
  return square / total - mean * mean;
}

// A random tree over `features` features: random splits inside the node's box.
RegressionTree RandomTree(std::mt19937& rng, const Bounds& bounds, int depth) {
  RegressionTree tree;
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::pair<int, Bounds>> open{{0, bounds}};
  tree.nodes.push_back({});
  std::vector<int> depths{0};
  for (std::size_t k = 0; k < open.size(); ++k) {
    auto [i, box] = open[k];
    if (depths[i] == depth || unit(rng) < 0.2) {
      tree.nodes[i].value = std::round(unit(rng) * 8) / 4;
      continue;
    }
    const int f = static_cast<int>(rng() % bounds.size());
    const double t = box[f].first + (0.2 + 0.6 * unit(rng)) * (box[f].second - box[f].first);
    const int left = static_cast<int>(tree.nodes.size());
    tree.nodes.push_back({});
    tree.nodes.push_back({});
    depths.push_back(depths[i] + 1);
    depths.push_back(depths[i] + 1);
    tree.nodes[i] = Node{f, t, left, left + 1, 0};
    Bounds l = box, r = box;
    l[f].second = t;
    r[f].first = t;
    open.push_back({left, l});
    open.push_back({left + 1, r});
  }
  return tree;
}

TEST(FanovaTreeTest, MarginalsMatchBruteForceOnRandomTrees) {
  std::mt19937 rng(7);
  const Bounds bounds{{0, 1}, {-2, 3}, {0, 1}, {10, 10.5}};
  for (int round = 0; round < 40; ++round) {
    const RegressionTree tree = RandomTree(rng, bounds, 6);
    const FanovaTree fanova(tree, bounds);
    for (const std::vector<int>& features :
         {std::vector<int>{0}, {1}, {3}, {0, 2}, {1, 2, 3}, {0, 1, 2, 3}}) {
      const double expected = BruteMarginalVariance(tree, bounds, features);
      for (MarginalMethod method : {MarginalMethod::kGrid, MarginalMethod::kPairwise})
        EXPECT_NEAR(fanova.MarginalVariance(features, method), expected, 1e-9 * (1 + expected))
            << "round " << round << ", " << features.size() << " features, method "
            << static_cast<int>(method);
    }
  }
}

// One-hot groups as the importance encodes categoricals: 0/1 features split at 0.5. The
// two methods agree, and the automatic choice never builds a grid past its limit.
TEST(FanovaTreeTest, WideOneHotGroupsUseThePairwiseMethodAndAgreeWithTheGrid) {
  std::mt19937 rng(11);
  for (int width : {3, 8, 12}) {
    const Bounds bounds(width + 1, {0.0, 1.0});
    RegressionTree tree = RandomTree(rng, bounds, 9);
    for (auto& node : tree.nodes)
      if (node.feature > 0) node.threshold = 0.5;  // feature 0 stays numeric
    const FanovaTree fanova(tree, bounds);
    std::vector<int> group;
    for (int f = 1; f <= width; ++f) group.push_back(f);
    const double grid = fanova.MarginalVariance(group, MarginalMethod::kGrid);
    EXPECT_NEAR(fanova.MarginalVariance(group, MarginalMethod::kPairwise), grid, 1e-9 * (1 + grid));
    EXPECT_NEAR(fanova.MarginalVariance(group), grid, 1e-9 * (1 + grid));
  }
  const Bounds wide(64, {0.0, 1.0});
  RegressionTree tree = RandomTree(rng, wide, 12);
  for (auto& node : tree.nodes) node.threshold = 0.5;
  std::vector<int> all(64);
  for (int f = 0; f < 64; ++f) all[f] = f;
  const double variance = FanovaTree(tree, wide).MarginalVariance(all);  // 2^64 cells: pairwise
  EXPECT_NEAR(variance, FanovaTree(tree, wide).Variance(), 1e-9);  // all features: all of it
}

}  // namespace
}  // namespace gpusweep::importance
