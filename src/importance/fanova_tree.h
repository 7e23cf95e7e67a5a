// fanova_tree.h — functional ANOVA of one regression tree: how much of the variance of
// the tree's prediction, over a box-shaped search space, one group of features explains
// on its own, the others marginalised out.
//
// Source: F. Hutter, H. Hoos, K. Leyton-Brown, "An Efficient Approach for Assessing
// Hyperparameter Importance", ICML 2014 (the linear-time marginal over a tree's leaves),
// as Optuna's FanovaImportanceEvaluator computes it (optuna/importance/_fanova/_tree.py):
// per-node statistics weighted by subspace volume, marginal predictions at the
// midpoints between each feature's split thresholds, weighted by the gaps' widths.
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
  struct Statistic {
    double value = 0;   // volume-weighted mean prediction below the node
    double weight = 0;  // volume of the node's subspace
  };
  void PrecomputeStatistics();
  void PrecomputeSplitCells();
  // Mean prediction and weight with `active` features fixed at `point`, others
  // marginalised out (NaN in `point` = marginalised).
  std::pair<double, double> MarginalizedStatistic(const std::vector<double>& point) const;

  RegressionTree tree_;
  Bounds bounds_;
  std::vector<Statistic> statistics_;
  std::vector<std::vector<bool>> subtree_features_;  // per node: features split on below
  std::vector<std::vector<double>> midpoints_, sizes_;  // per feature: cells between splits
  double variance_ = 0;
};

}  // namespace gpusweep::importance
