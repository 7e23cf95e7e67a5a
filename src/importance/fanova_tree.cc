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
  CollectLeaves();
  PrecomputeSplitCells();
  std::vector<double> values, weights;
  for (const Leaf& leaf : leaves_) {
    values.push_back(leaf.value);
    weights.push_back(Volume(leaf.box));
  }
  variance_ = WeightedMoments(values, weights).second;
}

// Children come after their parent in `nodes` (any order of a depth-first or
// breadth-first layout), so one pass from the root gives every node its box.
void FanovaTree::CollectLeaves() {
  leaves_.clear();
  if (tree_.nodes.empty()) return;
  std::vector<std::pair<int, Bounds>> stack{{0, bounds_}};
  while (!stack.empty()) {
    auto [i, box] = std::move(stack.back());
    stack.pop_back();
    const RegressionTree::Node& node = tree_.nodes[i];
    if (node.feature < 0) {
      leaves_.push_back({node.value, std::move(box)});
      continue;
    }
    Bounds right = box;
    box[node.feature].second = node.threshold;
    right[node.feature].first = node.threshold;
    stack.emplace_back(node.left, std::move(box));
    stack.emplace_back(node.right, std::move(right));
  }
}

void FanovaTree::PrecomputeSplitCells() {
  std::vector<std::set<double>> splits(bounds_.size());
  for (const RegressionTree::Node& node : tree_.nodes)
    if (node.feature >= 0) splits[node.feature].insert(node.threshold);
  edges_.assign(bounds_.size(), {});
  for (std::size_t f = 0; f < bounds_.size(); ++f) {
    edges_[f].push_back(bounds_[f].first);
    edges_[f].insert(edges_[f].end(), splits[f].begin(), splits[f].end());
    edges_[f].push_back(bounds_[f].second);
  }
}

// The marginal prediction of `features` is constant on each cell of the grid their split
// thresholds make: there it is the mean of the leaves that overlap the cell, each
// weighted by its volume in the other features (Hutter et al.'s marginal, which Optuna
// computes by walking the tree once per cell). Every leaf covers a block of cells, so
// one pass over the leaves fills every cell: O(leaves + cells) for one feature (prefix
// sums), O(leaves x cells covered) for several (one-hot groups, a handful of cells).
double FanovaTree::MarginalVariance(const std::vector<int>& features) const {
  std::vector<std::size_t> stride(features.size());
  std::size_t cells = 1;
  for (std::size_t k = 0; k < features.size(); ++k) {
    stride[k] = cells;
    cells *= edges_[features[k]].size() - 1;
  }
  std::vector<bool> selected(bounds_.size(), false);
  for (int f : features) selected[f] = true;
  // Σ value·u and Σ u over the leaves covering each cell, u = the leaf's volume in the
  // other features. One feature: as differences, summed up after the pass.
  std::vector<long double> sum(cells + 1, 0), weight(cells + 1, 0);
  std::vector<std::size_t> first(features.size()), last(features.size()), at(features.size());
  for (const Leaf& leaf : leaves_) {
    long double u = 1;
    for (std::size_t f = 0; f < bounds_.size(); ++f)
      if (!selected[f]) u *= leaf.box[f].second - leaf.box[f].first;
    bool empty = false;  // a box without volume in `features` covers no cell
    for (std::size_t k = 0; k < features.size(); ++k) {
      const std::vector<double>& edges = edges_[features[k]];
      const auto& [low, high] = leaf.box[features[k]];
      first[k] = std::lower_bound(edges.begin(), edges.end(), low) - edges.begin();
      const std::size_t end = std::lower_bound(edges.begin(), edges.end(), high) - edges.begin();
      empty = empty || end <= first[k] || end >= edges.size();
      last[k] = end - 1;
    }
    if (empty) continue;
    if (features.size() == 1) {
      sum[first[0]] += leaf.value * u, sum[last[0] + 1] -= leaf.value * u;
      weight[first[0]] += u, weight[last[0] + 1] -= u;
      continue;
    }
    at = first;
    while (true) {
      std::size_t cell = 0;
      for (std::size_t k = 0; k < features.size(); ++k) cell += at[k] * stride[k];
      sum[cell] += leaf.value * u;
      weight[cell] += u;
      std::size_t k = 0;
      while (k < features.size() && at[k] == last[k]) at[k] = first[k], ++k;
      if (k == features.size()) break;
      ++at[k];
    }
  }
  if (features.size() == 1)
    for (std::size_t c = 1; c < cells; ++c) sum[c] += sum[c - 1], weight[c] += weight[c - 1];
  std::vector<double> values(cells), weights(cells);
  for (std::size_t c = 0; c < cells; ++c) {
    double size = 1;  // the cell's volume in `features`
    for (std::size_t k = 0, rest = c; k < features.size(); ++k) {
      const std::size_t i = rest % (edges_[features[k]].size() - 1);
      rest /= edges_[features[k]].size() - 1;
      size *= edges_[features[k]][i + 1] - edges_[features[k]][i];
    }
    values[c] = weight[c] > 0 ? static_cast<double>(sum[c] / weight[c]) : 0;
    weights[c] = static_cast<double>(weight[c]) * size;
  }
  return std::max(0.0, WeightedMoments(values, weights).second);
}

}  // namespace gpusweep::importance
