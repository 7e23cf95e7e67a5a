// fanova_tree.h — functional ANOVA of one regression tree: how much of the variance of
// the tree's prediction, over a box-shaped search space, one group of features explains
// on its own, the others marginalised out.
//
// Source: F. Hutter, H. Hoos, K. Leyton-Brown, "An Efficient Approach for Assessing
// Hyperparameter Importance", ICML 2014 (the linear-time marginal over a tree's leaves),
// as Optuna's FanovaImportanceEvaluator computes it (optuna/importance/_fanova/_tree.py):
// marginal predictions on the cells between each feature's split thresholds, weighted
// by the cells' widths, each the volume-weighted mean of the leaves overlapping it.
#pragma once

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

class FanovaTree {
 public:
  // `bounds` has one box side per feature the tree may split on; every high > low.
  FanovaTree(RegressionTree tree, Bounds bounds);

  // Variance of the prediction over the whole box (uniform measure).
  double Variance() const { return variance_; }
  // Variance of the marginal prediction of `features` (indices into bounds), >= 0.
  double MarginalVariance(const std::vector<int>& features) const;

 private:
  struct Leaf {
    double value = 0;
    Bounds box;  // the leaf's part of the search space
  };
  void CollectLeaves();
  void PrecomputeSplitCells();

  RegressionTree tree_;
  Bounds bounds_;
  std::vector<Leaf> leaves_;
  std::vector<std::vector<double>> edges_;  // per feature: low, its split thresholds, high
  double variance_ = 0;
};

}  // namespace gpusweep::importance
