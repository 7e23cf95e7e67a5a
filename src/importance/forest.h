// forest.h — a random forest of regression trees, fitted by OpenCV's ml module
// (cv::ml::RTrees, Debian's libopencv-ml-dev), returned as plain trees for fANOVA.
//
// Why OpenCV and not mlpack: Debian 12 ships no mlpack (the package left bookworm;
// only R's bundled copy remains), and OpenCV's RTrees is a regression forest whose
// fitted trees can be read back node by node (getRoots/getNodes/getSplits), which
// fANOVA needs. Settings follow Optuna's fANOVA forest (scikit-learn's
// RandomForestRegressor with bootstrap, every feature considered at every split,
// min_samples_split 2, min_samples_leaf 1).
#pragma once

#include <vector>

#include "gpusweep/status.h"
#include "importance/fanova_tree.h"

namespace gpusweep::importance {

struct ForestOptions {
  int trees = 64;      // Optuna's default n_trees
  int max_depth = 64;  // Optuna's default max_depth
};

// rows: one feature vector per sample (all the same length >= 1), y: one target each,
// at least 2 samples. Deterministic: the same input gives the same trees.
// Error{kInvalidArgument} on ragged or too few rows.
Expected<std::vector<RegressionTree>> FitRandomForest(const std::vector<std::vector<double>>& rows,
                                                      const std::vector<double>& y,
                                                      const ForestOptions& options);

}  // namespace gpusweep::importance
