// fanova_tree.h — functional ANOVA of one regression tree: how much of the variance of
// the tree's prediction, over a box-shaped search space, one group of features explains
// on its own, the others marginalised out.
//
// Source: F. Hutter, H. Hoos, K. Leyton-Brown, "An Efficient Approach for Assessing
// Hyperparameter Importance", ICML 2014 (the linear-time marginal over a tree's leaves),
// as Optuna's FanovaImportanceEvaluator computes it (optuna/importance/_fanova/_tree.py):
// marginal predictions on the cells between each feature's split thresholds, weighted
// by the cells' widths, each the volume-weighted mean of the leaves overlapping it.
// That grid has the product of the features' cell counts: a one-hot group of 60
// categories could need 2^60 cells (Optuna's walk over them never ends). Such groups
// are computed instead from the leaves' pairwise overlaps, exactly and in memory linear
// in the leaves: Var m = E[m^2] - (E m)^2 with m(x) = sum over leaves of value x (volume
// in the other features) / (the other features' volume), so E[m^2] sums over pairs of
// leaves the volume their boxes share in `features`.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gpusweep::importance {

// A fitted regression tree. nodes[0] is the root; a leaf has feature -1. A sample goes
// left when x[feature] <= threshold.
struct RegressionTree {
  struct Node {
    int feature = -1;
    double threshold = 0;
    int left = -1, right = -1;
    double value = 0;  // the prediction at a leaf
  };
  std::vector<Node> nodes;
};

using Bounds = std::vector<std::pair<double, double>>;  // [low, high] per feature

// How MarginalVariance computes: kAuto picks the cheaper of the two exact methods (the
// grid only while it fits in kMaxGridCells); the others are for tests.
enum class MarginalMethod { kAuto, kGrid, kPairwise };

class FanovaTree {
 public:
  // `bounds` has one box side per feature the tree may split on; every high > low.
  FanovaTree(RegressionTree tree, Bounds bounds);

  // Variance of the prediction over the whole box (uniform measure).
  double Variance() const { return variance_; }
  // Variance of the marginal prediction of `features` (indices into bounds, distinct),
  // >= 0. Memory: at most kMaxGridCells cells or O(leaves x depth).
  double MarginalVariance(const std::vector<int>& features,
                          MarginalMethod method = MarginalMethod::kAuto) const;

  static constexpr double kMaxGridCells = 1 << 20;  // 32 MiB of sums

 private:
  struct Leaf {
    double value = 0;
    Bounds box;  // the leaf's part of the search space
  };
  void CollectLeaves();
  void PrecomputeSplitCells();
  double GridCells(const std::vector<int>& features) const;
  double GridCost(const std::vector<int>& features) const;
  double GridMarginalVariance(const std::vector<int>& features) const;
  double PairwiseMarginalVariance(const std::vector<int>& features) const;

  RegressionTree tree_;
  Bounds bounds_;
  std::vector<Leaf> leaves_;
  std::vector<std::vector<double>> edges_;  // per feature: low, its split thresholds, high
  double variance_ = 0;
};

}  // namespace gpusweep::importance
