#include "importance/fanova_tree.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gpusweep::importance {
namespace {

double Volume(const Bounds& box) {
  double volume = 1;
  for (const auto& [low, high] : box) volume *= high - low;
  return volume;
}

// Weighted mean and variance of `values`.
std::pair<double, double> WeightedMoments(const std::vector<double>& values,
                                          const std::vector<double>& weights) {
  double total = 0, mean = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    total += weights[i];
    mean += weights[i] * values[i];
  }
  if (total <= 0) return {0, 0};
  mean /= total;
  double variance = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    variance += weights[i] * (values[i] - mean) * (values[i] - mean);
  return {mean, variance / total};
}

}  // namespace

FanovaTree::FanovaTree(RegressionTree tree, Bounds bounds)
    : tree_(std::move(tree)), bounds_(std::move(bounds)) {
  PrecomputeStatistics();
  PrecomputeSplitCells();
  std::vector<double> values, weights;
  for (std::size_t i = 0; i < tree_.nodes.size(); ++i) {
    if (tree_.nodes[i].feature >= 0) continue;
    values.push_back(statistics_[i].value);
    weights.push_back(statistics_[i].weight);
  }
  variance_ = WeightedMoments(values, weights).second;
}

// Children come after their parent in `nodes` (any order of a depth-first or
// breadth-first layout), so one backward pass settles every internal node.
void FanovaTree::PrecomputeStatistics() {
  const std::size_t n = tree_.nodes.size();
  std::vector<Bounds> boxes(n);
  std::vector<int> order;  // parents before children
  statistics_.assign(n, {});
  subtree_features_.assign(n, std::vector<bool>(bounds_.size(), false));
  if (n == 0) return;
  boxes[0] = bounds_;
  order.push_back(0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    const RegressionTree::Node& node = tree_.nodes[i];
    if (node.feature < 0) {
      statistics_[i] = {node.value, Volume(boxes[i])};
      continue;
    }
    boxes[node.left] = boxes[node.right] = boxes[i];
    boxes[node.left][node.feature].second = node.threshold;
    boxes[node.right][node.feature].first = node.threshold;
    order.push_back(node.left);
    order.push_back(node.right);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const RegressionTree::Node& node = tree_.nodes[*it];
    if (node.feature < 0) continue;
    const Statistic& l = statistics_[node.left];
    const Statistic& r = statistics_[node.right];
    const double weight = l.weight + r.weight;
    statistics_[*it] = {weight > 0 ? (l.value * l.weight + r.value * r.weight) / weight
                                   : (l.value + r.value) / 2,
                        weight};
    std::vector<bool>& features = subtree_features_[*it];
    features[node.feature] = true;
    for (std::size_t f = 0; f < features.size(); ++f)
      features[f] = features[f] || subtree_features_[node.left][f] || subtree_features_[node.right][f];
  }
}

void FanovaTree::PrecomputeSplitCells() {
  std::vector<std::set<double>> splits(bounds_.size());
  for (const RegressionTree::Node& node : tree_.nodes)
    if (node.feature >= 0) splits[node.feature].insert(node.threshold);
  midpoints_.assign(bounds_.size(), {});
  sizes_.assign(bounds_.size(), {});
  for (std::size_t f = 0; f < bounds_.size(); ++f) {
    std::vector<double> edges{bounds_[f].first};
    edges.insert(edges.end(), splits[f].begin(), splits[f].end());
    edges.push_back(bounds_[f].second);
    for (std::size_t k = 1; k < edges.size(); ++k) {
      midpoints_[f].push_back(0.5 * (edges[k] + edges[k - 1]));
      sizes_[f].push_back(edges[k] - edges[k - 1]);
    }
  }
}

std::pair<double, double> FanovaTree::MarginalizedStatistic(const std::vector<double>& point) const {
  std::vector<bool> active(point.size());
  for (std::size_t f = 0; f < point.size(); ++f) active[f] = !std::isnan(point[f]);
  Bounds start = bounds_;
  for (std::size_t f = 0; f < point.size(); ++f)
    if (!active[f]) start[f] = {0.0, 1.0};  // marginalised: counts 1 in the volume
  std::vector<std::pair<int, Bounds>> stack{{0, start}};
  std::vector<double> values, weights;
  while (!stack.empty()) {
    auto [i, box] = std::move(stack.back());
    stack.pop_back();
    const RegressionTree::Node& node = tree_.nodes[i];
    if (node.feature >= 0) {
      if (active[node.feature]) {  // follow the side the point lies on
        const bool left = point[node.feature] <= node.threshold;
        (left ? box[node.feature].second : box[node.feature].first) = node.threshold;
        stack.emplace_back(left ? node.left : node.right, std::move(box));
        continue;
      }
      const std::vector<bool>& below = subtree_features_[i];
      bool splits_active = false;
      for (std::size_t f = 0; f < active.size() && !splits_active; ++f)
        splits_active = active[f] && below[f];
      if (splits_active) {
        stack.emplace_back(node.left, box);
        stack.emplace_back(node.right, std::move(box));
        continue;
      }
    }
    values.push_back(statistics_[i].value);
    weights.push_back(statistics_[i].weight / Volume(box));
  }
  double weight = 0;
  for (double w : weights) weight += w;
  return {WeightedMoments(values, weights).first, weight};
}

double FanovaTree::MarginalVariance(const std::vector<int>& features) const {
  // Every combination of the features' cells (one feature: its cells).
  std::vector<std::size_t> index(features.size(), 0);
  std::vector<double> values, weights;
  std::vector<double> point(bounds_.size(), std::nan(""));
  while (true) {
    double size = 1;
    for (std::size_t k = 0; k < features.size(); ++k) {
      point[features[k]] = midpoints_[features[k]][index[k]];
      size *= sizes_[features[k]][index[k]];
    }
    auto [value, weight] = MarginalizedStatistic(point);
    values.push_back(value);
    weights.push_back(weight * size);
    std::size_t k = 0;
    while (k < features.size() && ++index[k] == midpoints_[features[k]].size()) index[k++] = 0;
    if (k == features.size()) break;
  }
  return std::max(0.0, WeightedMoments(values, weights).second);
}

}  // namespace gpusweep::importance
