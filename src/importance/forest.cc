#include "importance/forest.h"

#include <opencv2/ml.hpp>

namespace gpusweep::importance {
namespace {

// One tree of the fitted forest, renumbered from its root so children follow parents.
RegressionTree ReadTree(const cv::ml::RTrees& forest, int root) {
  const std::vector<cv::ml::DTrees::Node>& nodes = forest.getNodes();
  const std::vector<cv::ml::DTrees::Split>& splits = forest.getSplits();
  RegressionTree tree;
  std::vector<std::pair<int, int>> queue{{root, 0}};  // (OpenCV index, our index)
  tree.nodes.emplace_back();
  for (std::size_t k = 0; k < queue.size(); ++k) {
    auto [cv_index, index] = queue[k];
    const cv::ml::DTrees::Node& node = nodes[cv_index];
    if (node.split < 0 || node.left < 0 || node.right < 0) {
      tree.nodes[index].value = node.value;
      continue;
    }
    const cv::ml::DTrees::Split& split = splits[node.split];
    // An inversed split sends x <= c right: swap the children to keep "<= goes left".
    const int left = split.inversed ? node.right : node.left;
    const int right = split.inversed ? node.left : node.right;
    const int left_index = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    tree.nodes.emplace_back();
    tree.nodes[index] = {split.varIdx, split.c, left_index, left_index + 1, node.value};
    queue.emplace_back(left, left_index);
    queue.emplace_back(right, left_index + 1);
  }
  return tree;
}

}  // namespace

Expected<std::vector<RegressionTree>> FitRandomForest(const std::vector<std::vector<double>>& rows,
                                                      const std::vector<double>& y,
                                                      const ForestOptions& options) {
  if (rows.size() < 2 || rows.size() != y.size() || rows[0].empty())
    return Fail(ErrorCode::kInvalidArgument, "a forest needs >= 2 samples with >= 1 feature");
  const int n = static_cast<int>(rows.size());
  const int features = static_cast<int>(rows[0].size());
  cv::Mat samples(n, features, CV_32F), targets(n, 1, CV_32F);
  for (int i = 0; i < n; ++i) {
    if (static_cast<int>(rows[i].size()) != features)
      return Fail(ErrorCode::kInvalidArgument, "every sample needs the same features");
    for (int f = 0; f < features; ++f) samples.at<float>(i, f) = static_cast<float>(rows[i][f]);
    targets.at<float>(i, 0) = static_cast<float>(y[i]);
  }
  cv::Ptr<cv::ml::RTrees> forest = cv::ml::RTrees::create();
  forest->setMaxDepth(options.max_depth);
  forest->setMinSampleCount(2);
  forest->setRegressionAccuracy(0);
  forest->setActiveVarCount(features);
  forest->setUseSurrogates(false);
  forest->setCVFolds(0);
  forest->setCalculateVarImportance(false);
  forest->setTermCriteria(cv::TermCriteria(cv::TermCriteria::MAX_ITER, options.trees, 0));
  // Every column is an ordered (numeric) variable; the response too: regression.
  cv::Mat types(features + 1, 1, CV_8U, cv::Scalar(cv::ml::VAR_ORDERED));
  cv::Ptr<cv::ml::TrainData> data =
      cv::ml::TrainData::create(samples, cv::ml::ROW_SAMPLE, targets, cv::noArray(), cv::noArray(),
                                cv::noArray(), types);
  try {
    forest->train(data);
  } catch (const cv::Exception& e) {
    return Fail(ErrorCode::kInvalidArgument, std::string("random forest training failed: ") + e.what());
  }
  std::vector<RegressionTree> trees;
  for (int root : forest->getRoots()) trees.push_back(ReadTree(*forest, root));
  return trees;
}

}  // namespace gpusweep::importance
