// Pareto fronts, crowding and hypervolume (gpusweep/pareto.h).
#include "gpusweep/pareto.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

namespace gpusweep {
namespace pareto_detail {

constexpr double kParetoInf = std::numeric_limits<double>::infinity();

// NaN as +inf, so every comparison below is a total order.
double ParetoLoss(double loss) { return std::isnan(loss) ? kParetoInf : loss; }

std::size_t ParetoDimension(std::span<const LossPoint> points) {
  if (points.empty()) return 0;
  const std::size_t m = points.front().size();
  assert(m >= 1 && "a point has at least one loss");
  for ([[maybe_unused]] const LossPoint& p : points) assert(p.size() == m && "points of one size");
  return m;
}

// `points` with NaN as +inf: the points themselves when none is NaN (no copy, which of
// 100,000 trials' points is 100,000 allocations, issue 25), else a copy put in `storage`.
std::span<const LossPoint> ParetoCleanPoints(std::span<const LossPoint> points,
                                             std::vector<LossPoint>& storage) {
  const bool has_nan = std::any_of(points.begin(), points.end(), [](const LossPoint& p) {
    return std::any_of(p.begin(), p.end(), [](double v) { return std::isnan(v); });
  });
  if (!has_nan) return points;
  storage.assign(points.begin(), points.end());
  for (LossPoint& p : storage)
    for (double& v : p) v = ParetoLoss(v);
  return storage;
}

// a dominates b: no worse in every loss, better in one (NaN-free input).
bool ParetoDominates(const LossPoint& a, const LossPoint& b) {
  bool better = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    better |= a[i] < b[i];
  }
  return better;
}

std::vector<int> RanksOneLoss(std::span<const LossPoint> p) {
  std::vector<int> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a][0] < p[b][0]; });
  std::vector<int> ranks(p.size());
  int rank = -1;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || p[order[i]][0] != p[order[i - 1]][0]) ++rank;
    ranks[order[i]] = rank;
  }
  return ranks;
}

// Jensen 2003: in order of (loss 0, loss 1), a point goes to the first front whose last
// member does not dominate it. That last member has the front's smallest loss 1 so far
// and fronts' last loss 1 grow with the front, so the first such front is found by
// binary search.
std::vector<int> RanksTwoLosses(std::span<const LossPoint> p) {
  std::vector<int> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return p[a][0] != p[b][0] ? p[a][0] < p[b][0] : p[a][1] < p[b][1];
  });
  std::vector<int> ranks(p.size());
  std::vector<int> last;  // per front, the index of its latest member
  for (int i : order) {
    const auto dominated_by_front = [&](int front) {
      const LossPoint& q = p[last[front]];
      return q[1] < p[i][1] || (q[1] == p[i][1] && q[0] < p[i][0]);
    };
    int lo = 0, hi = static_cast<int>(last.size());
    while (lo < hi) {  // first front that does not dominate p[i]
      const int mid = lo + (hi - lo) / 2;
      if (dominated_by_front(mid)) lo = mid + 1;
      else hi = mid;
    }
    ranks[i] = lo;
    if (lo == static_cast<int>(last.size())) last.push_back(i);
    else last[lo] = i;
  }
  return ranks;
}

// Deb 2002's fast non-dominated sort: how many points dominate each, and whom each
// dominates; fronts peel off as the counts reach 0.
std::vector<int> RanksManyLosses(std::span<const LossPoint> p) {
  const std::size_t n = p.size();
  std::vector<int> dominated_count(n, 0);
  std::vector<std::vector<int>> dominates(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      if (ParetoDominates(p[a], p[b])) {
        dominates[a].push_back(static_cast<int>(b));
        ++dominated_count[b];
      } else if (ParetoDominates(p[b], p[a])) {
        dominates[b].push_back(static_cast<int>(a));
        ++dominated_count[a];
      }
    }
  std::vector<int> ranks(n, -1), current;
  for (std::size_t i = 0; i < n; ++i)
    if (dominated_count[i] == 0) current.push_back(static_cast<int>(i));
  for (int rank = 0; !current.empty(); ++rank) {
    std::vector<int> next;
    for (int i : current) {
      ranks[i] = rank;
      for (int j : dominates[i])
        if (--dominated_count[j] == 0) next.push_back(j);
    }
    current = std::move(next);
  }
  return ranks;
}

// Volume of the union of boxes [p, ref], every p strictly below ref (the callers filter).
double HypervolumeOf(std::vector<LossPoint> p, std::span<const double> ref);

double HypervolumeTwo(std::vector<LossPoint> p, std::span<const double> ref) {
  std::sort(p.begin(), p.end());
  double area = 0, ceiling = ref[1];
  for (const LossPoint& q : p)
    if (q[1] < ceiling) {
      area += (ref[0] - q[0]) * (ceiling - q[1]);
      ceiling = q[1];
    }
  return area;
}

// Slices along loss 2: between consecutive values of it, the union's cross-section is the
// 2-D hypervolume of the points at or below the slice.
double HypervolumeThree(std::vector<LossPoint> p, std::span<const double> ref) {
  std::sort(p.begin(), p.end(), [](const LossPoint& a, const LossPoint& b) { return a[2] < b[2]; });
  double volume = 0;
  std::vector<LossPoint> below;  // points of the slices so far, in 2-D
  for (std::size_t i = 0; i < p.size(); ++i) {
    below.push_back({p[i][0], p[i][1]});
    const double top = i + 1 < p.size() ? p[i + 1][2] : ref[2];
    if (top > p[i][2]) volume += HypervolumeTwo(below, ref.first(2)) * (top - p[i][2]);
  }
  return volume;
}

// Removes dominated and repeated points (in place), keeping input order.
void KeepNonDominated(std::vector<LossPoint>& p) {
  std::vector<LossPoint> kept;
  for (std::size_t i = 0; i < p.size(); ++i) {
    bool drop = false;
    for (std::size_t j = 0; j < p.size() && !drop; ++j)
      drop = j != i && (ParetoDominates(p[j], p[i]) || (j < i && p[j] == p[i]));
    if (!drop) kept.push_back(std::move(p[i]));
  }
  p = std::move(kept);
}

// WFG (While et al. 2012) with the last loss sliced: in decreasing order of it, point k's
// volume exclusive of the points after it is its box minus the union of its limit set
// (each later point made no better than it), whose last loss is all p_k's.
double HypervolumeWfg(std::vector<LossPoint> p, std::span<const double> ref) {
  const std::size_t m = ref.size();
  std::sort(p.begin(), p.end(), [m](const LossPoint& a, const LossPoint& b) { return a[m - 1] > b[m - 1]; });
  const std::span<const double> ref_lower = ref.first(m - 1);
  double volume = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double height = ref[m - 1] - p[k][m - 1];
    double box = 1;
    for (std::size_t i = 0; i + 1 < m; ++i) box *= ref[i] - p[k][i];
    std::vector<LossPoint> limit;
    limit.reserve(p.size() - k - 1);
    for (std::size_t j = k + 1; j < p.size(); ++j) {
      LossPoint q(m - 1);
      for (std::size_t i = 0; i + 1 < m; ++i) q[i] = std::max(p[k][i], p[j][i]);
      limit.push_back(std::move(q));
    }
    KeepNonDominated(limit);
    volume += height * (box - (limit.empty() ? 0 : HypervolumeOf(std::move(limit), ref_lower)));
  }
  return volume;
}

double HypervolumeOf(std::vector<LossPoint> p, std::span<const double> ref) {
  switch (ref.size()) {
    case 1: {
      double best = ref[0];
      for (const LossPoint& q : p) best = std::min(best, q[0]);
      return ref[0] - best;
    }
    case 2: return HypervolumeTwo(std::move(p), ref);
    case 3: return HypervolumeThree(std::move(p), ref);
    default: return HypervolumeWfg(std::move(p), ref);
  }
}

}  // namespace pareto_detail


std::vector<int> NonDominatedRanks(std::span<const LossPoint> points) {
  const std::size_t m = pareto_detail::ParetoDimension(points);
  if (m == 0) return {};
  std::vector<LossPoint> storage;
  const std::span<const LossPoint> p = pareto_detail::ParetoCleanPoints(points, storage);
  if (m == 1) return pareto_detail::RanksOneLoss(p);
  if (m == 2) return pareto_detail::RanksTwoLosses(p);
  return pareto_detail::RanksManyLosses(p);
}

std::vector<int> ConstrainedRanks(std::span<const LossPoint> points, std::span<const double> violations) {
  assert(points.size() == violations.size());
  std::vector<int> feasible_index, infeasible_index;
  for (std::size_t i = 0; i < points.size(); ++i) {
    assert(!(violations[i] < 0) && "a violation is >= 0");
    (violations[i] == 0 ? feasible_index : infeasible_index).push_back(static_cast<int>(i));
  }
  // Every point feasible (no constraints, the usual case): ranked in place, not copied,
  // which at 100,000 points is 100,000 allocations fewer (issue 25).
  if (infeasible_index.empty()) return NonDominatedRanks(points);
  std::vector<LossPoint> feasible;
  feasible.reserve(feasible_index.size());
  for (int i : feasible_index) feasible.push_back(points[i]);
  std::vector<int> ranks(points.size(), 0);
  const std::vector<int> feasible_ranks = NonDominatedRanks(feasible);
  int fronts = 0;
  for (std::size_t j = 0; j < feasible_index.size(); ++j) {
    ranks[feasible_index[j]] = feasible_ranks[j];
    fronts = std::max(fronts, feasible_ranks[j] + 1);
  }
  const auto violation = [&](int i) { return std::isnan(violations[i]) ? pareto_detail::kParetoInf : violations[i]; };
  std::stable_sort(infeasible_index.begin(), infeasible_index.end(),
                   [&](int a, int b) { return violation(a) < violation(b); });
  // Each run of equal violations: its own non-dominated fronts, after those before it.
  std::vector<LossPoint> tied;
  for (std::size_t begin = 0, end = 0; begin < infeasible_index.size(); begin = end) {
    end = begin;
    while (end < infeasible_index.size() && violation(infeasible_index[end]) == violation(infeasible_index[begin]))
      ++end;
    tied.clear();
    for (std::size_t j = begin; j < end; ++j) tied.push_back(points[infeasible_index[j]]);
    const std::vector<int> tied_ranks = NonDominatedRanks(tied);
    int group_fronts = 0;
    for (std::size_t j = begin; j < end; ++j) {
      ranks[infeasible_index[j]] = fronts + tied_ranks[j - begin];
      group_fronts = std::max(group_fronts, tied_ranks[j - begin] + 1);
    }
    fronts += group_fronts;
  }
  return ranks;
}

std::vector<double> CrowdingDistances(std::span<const LossPoint> points, std::span<const int> ranks) {
  assert(points.size() == ranks.size());
  const std::size_t m = pareto_detail::ParetoDimension(points);
  std::vector<double> distance(points.size(), 0);
  if (m == 0) return distance;
  std::vector<LossPoint> storage;
  const std::span<const LossPoint> p = pareto_detail::ParetoCleanPoints(points, storage);
  std::vector<std::vector<int>> fronts;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    assert(ranks[i] >= 0);
    if (static_cast<std::size_t>(ranks[i]) >= fronts.size()) fronts.resize(ranks[i] + 1);
    fronts[ranks[i]].push_back(static_cast<int>(i));
  }
  for (std::vector<int>& front : fronts) {
    if (front.size() <= 2) {
      for (int i : front) distance[i] = pareto_detail::kParetoInf;
      continue;
    }
    for (std::size_t loss = 0; loss < m; ++loss) {
      std::vector<int> sorted = front;
      std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) { return p[a][loss] < p[b][loss]; });
      distance[sorted.front()] = distance[sorted.back()] = pareto_detail::kParetoInf;
      const double range = p[sorted.back()][loss] - p[sorted.front()][loss];
      if (!(range > 0) || !std::isfinite(range)) continue;
      for (std::size_t j = 1; j + 1 < sorted.size(); ++j)
        distance[sorted[j]] += (p[sorted[j + 1]][loss] - p[sorted[j - 1]][loss]) / range;
    }
  }
  return distance;
}

std::vector<int> ParetoOrder(std::span<const int> ranks, std::span<const double> crowding) {
  assert(ranks.size() == crowding.size());
  std::vector<int> order(ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (ranks[a] != ranks[b]) return ranks[a] < ranks[b];
    return crowding[a] > crowding[b];
  });
  return order;
}

double Hypervolume(std::span<const LossPoint> points, std::span<const double> reference) {
  [[maybe_unused]] const std::size_t m = pareto_detail::ParetoDimension(points);
  assert(m == 0 || m == reference.size());
  std::vector<LossPoint> inside;
  for (const LossPoint& point : points) {
    bool below = true;
    for (std::size_t i = 0; i < reference.size() && below; ++i) below = point[i] < reference[i];
    if (below) inside.push_back(point);  // NaN compares false: never inside
  }
  if (inside.empty()) return 0;
  if (reference.size() >= 4) pareto_detail::KeepNonDominated(inside);
  return pareto_detail::HypervolumeOf(std::move(inside), reference);
}

std::vector<double> HypervolumeReference(std::span<const LossPoint> points) {
  const std::size_t m = pareto_detail::ParetoDimension(points);
  std::vector<double> reference(m, 1);
  for (std::size_t loss = 0; loss < m; ++loss) {
    double lo = pareto_detail::kParetoInf, hi = -pareto_detail::kParetoInf;
    for (const LossPoint& p : points)
      if (std::isfinite(p[loss])) {
        lo = std::min(lo, p[loss]);
        hi = std::max(hi, p[loss]);
      }
    if (hi < lo) continue;  // no finite value
    reference[loss] = hi > lo ? hi + 0.1 * (hi - lo) : hi + 1;
  }
  return reference;
}

}  // namespace gpusweep
