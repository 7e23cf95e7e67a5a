#include "importance/fanova_tree.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

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

double Width(const std::pair<double, double>& side) { return side.second - side.first; }

// A leaf's box in the marginalised features, sparse: only the sides narrower than the
// search space's, as (position in the features, low, high), by position.
using Sides = std::vector<std::tuple<std::size_t, double, double>>;

// The share of the search space's box (in the same features) that two boxes have in
// common: the product, over the sides either narrows, of overlap / full width.
long double SharedFraction(const Sides& a, const Sides& b, const std::vector<double>& widths) {
  long double share = 1;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    std::size_t k;
    double low, high;
    if (j == b.size() || (i < a.size() && std::get<0>(a[i]) < std::get<0>(b[j]))) {
      std::tie(k, low, high) = a[i++];
    } else if (i == a.size() || std::get<0>(b[j]) < std::get<0>(a[i])) {
      std::tie(k, low, high) = b[j++];
    } else {
      k = std::get<0>(a[i]);
      low = std::max(std::get<1>(a[i]), std::get<1>(b[j]));
      high = std::min(std::get<2>(a[i++]), std::get<2>(b[j++]));
    }
    if (high <= low) return 0;
    share *= (high - low) / widths[k];
  }
  return share;
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

double FanovaTree::MarginalVariance(const std::vector<int>& features, MarginalMethod method) const {
  if (method == MarginalMethod::kAuto) {
    // A pair of leaves costs about as much as a leaf's pass over a cell.
    const double leaves = static_cast<double>(leaves_.size());
    const bool grid = GridCells(features) <= kMaxGridCells && GridCost(features) <= leaves * leaves;
    method = grid ? MarginalMethod::kGrid : MarginalMethod::kPairwise;
  }
  return method == MarginalMethod::kGrid ? GridMarginalVariance(features)
                                         : PairwiseMarginalVariance(features);
}

// As a double: 60 one-hot features make 2^60.
double FanovaTree::GridCells(const std::vector<int>& features) const {
  double cells = 1;
  for (int f : features) cells *= static_cast<double>(edges_[f].size() - 1);
  return cells;
}

// The cells the leaves cover in all (GridMarginalVariance's passes), plus the cells.
double FanovaTree::GridCost(const std::vector<int>& features) const {
  double cost = GridCells(features);
  if (features.size() == 1) return cost + static_cast<double>(leaves_.size());
  for (const Leaf& leaf : leaves_) {
    double covered = 1;
    for (int f : features) {
      const std::vector<double>& edges = edges_[f];
      const auto first = std::lower_bound(edges.begin(), edges.end(), leaf.box[f].first);
      const auto end = std::lower_bound(edges.begin(), edges.end(), leaf.box[f].second);
      covered *= static_cast<double>(std::max<std::ptrdiff_t>(end - first, 0));
    }
    cost += covered;
  }
  return cost;
}

// m(x) = Σ a_l over the leaves whose box holds x (in `features`), a_l = value x volume in
// the other features / their whole volume; E[m^2] = Σ_l Σ_l' a_l a_l' |B_l ∩ B_l'| / V.
// Leaves with the same box in `features` are summed first (a subtree that never splits
// on them is one box).
double FanovaTree::PairwiseMarginalVariance(const std::vector<int>& features) const {
  std::vector<bool> selected(bounds_.size(), false);
  for (int f : features) selected[f] = true;
  long double other_volume = 1;
  for (std::size_t f = 0; f < bounds_.size(); ++f)
    if (!selected[f]) other_volume *= Width(bounds_[f]);
  std::vector<double> widths;
  for (int f : features) widths.push_back(Width(bounds_[f]));
  std::map<Sides, long double> weights;
  for (const Leaf& leaf : leaves_) {
    long double u = 1;
    for (std::size_t f = 0; f < bounds_.size(); ++f)
      if (!selected[f]) u *= Width(leaf.box[f]);
    Sides sides;
    bool empty = u <= 0;  // a box without volume holds no point
    for (std::size_t k = 0; k < features.size() && !empty; ++k) {
      const auto& [low, high] = leaf.box[features[k]];
      empty = high <= low;
      if (low > bounds_[features[k]].first || high < bounds_[features[k]].second)
        sides.emplace_back(k, low, high);
    }
    if (!empty) weights[std::move(sides)] += leaf.value * u / other_volume;
  }
  const std::vector<std::pair<Sides, long double>> boxes(weights.begin(), weights.end());
  long double mean = 0, square = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const auto& [sides, a] = boxes[i];
    const long double own = SharedFraction(sides, sides, widths);
    mean += a * own;
    square += a * a * own;
    for (std::size_t j = i + 1; j < boxes.size(); ++j)
      square += 2 * a * boxes[j].second * SharedFraction(sides, boxes[j].first, widths);
  }
  return std::max(0.0, static_cast<double>(square - mean * mean));
}

// The marginal prediction of `features` is constant on each cell of the grid their split
// thresholds make: there it is the mean of the leaves that overlap the cell, each
// weighted by its volume in the other features (Hutter et al.'s marginal, which Optuna
// computes by walking the tree once per cell). Every leaf covers a block of cells, so
// one pass over the leaves fills every cell: O(leaves + cells) for one feature (prefix
// sums), O(leaves x cells covered) for several (one-hot groups, a handful of cells).
double FanovaTree::GridMarginalVariance(const std::vector<int>& features) const {
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
