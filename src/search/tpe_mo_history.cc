// Multi-objective / constrained TPE split (contract in tpe_mo_history.h).
#include "search/tpe_mo_history.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace gpusweep::search {
namespace {

constexpr double kMoInf = std::numeric_limits<double>::infinity();
constexpr double kMoEps = 1e-12;  // Optuna's EPS: a box of zero width, a weight of "nothing"

// A usable trial; its model values are row `row` of the table in SplitMoHistory.
struct MoRanked {
  int number = 0;
  double tier = 0;
  LossPoint loss;
  double violation = 0;
  std::size_t row = 0;
};

// Groups of equally good trials (indices into `trials`, which is in trial-number order),
// best group first: per tier the feasible trials' fronts, then the infeasible trials one
// group per violation. `feasible[g]`: whether group g is feasible.
std::vector<std::vector<std::size_t>> RankGroups(const std::vector<MoRanked>& trials,
                                                 std::vector<bool>& feasible) {
  std::vector<double> tiers;
  for (const MoRanked& t : trials)
    if (t.violation == 0) tiers.push_back(t.tier);
  std::sort(tiers.begin(), tiers.end());
  tiers.erase(std::unique(tiers.begin(), tiers.end()), tiers.end());
  std::vector<std::vector<std::size_t>> groups;
  for (const double tier : tiers) {
    std::vector<std::size_t> members;
    std::vector<LossPoint> losses;
    for (std::size_t i = 0; i < trials.size(); ++i)
      if (trials[i].violation == 0 && trials[i].tier == tier) {
        members.push_back(i);
        losses.push_back(trials[i].loss);
      }
    const std::vector<int> ranks = NonDominatedRanks(losses);
    const int fronts = *std::max_element(ranks.begin(), ranks.end()) + 1;
    const std::size_t first = groups.size();
    groups.resize(first + static_cast<std::size_t>(fronts));
    for (std::size_t k = 0; k < members.size(); ++k)
      groups[first + static_cast<std::size_t>(ranks[k])].push_back(members[k]);
  }
  feasible.assign(groups.size(), true);
  std::vector<std::size_t> infeasible;
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].violation != 0) infeasible.push_back(i);
  std::stable_sort(infeasible.begin(), infeasible.end(), [&](std::size_t a, std::size_t b) {
    return trials[a].violation < trials[b].violation;
  });
  for (std::size_t k = 0; k < infeasible.size(); ++k) {
    if (k == 0 || trials[infeasible[k]].violation != trials[infeasible[k - 1]].violation) {
      groups.emplace_back();
      feasible.push_back(false);
    }
    groups.back().push_back(infeasible[k]);
  }
  return groups;
}

// Which trials are good: whole groups while they fit, then part of the next one.
std::vector<bool> ChooseBelow(const std::vector<MoRanked>& trials, std::size_t n_below,
                              std::size_t metrics) {
  std::vector<bool> feasible;
  const std::vector<std::vector<std::size_t>> groups = RankGroups(trials, feasible);
  std::vector<bool> below(trials.size(), false);
  std::size_t taken = 0;
  for (std::size_t g = 0; g < groups.size() && taken < n_below; ++g) {
    const std::vector<std::size_t>& group = groups[g];
    const std::size_t room = n_below - taken;
    if (group.size() <= room) {
      for (const std::size_t i : group) below[i] = true;
      taken += group.size();
      continue;
    }
    std::vector<std::size_t> chosen(room);  // positions in `group`
    if (feasible[g] && metrics >= 2) {
      std::vector<LossPoint> losses;
      for (const std::size_t i : group) losses.push_back(trials[i].loss);
      chosen = GreedyHypervolumeSubset(losses, room);
    } else {
      for (std::size_t k = 0; k < room; ++k) chosen[k] = k;  // lowest trial numbers
    }
    for (const std::size_t k : chosen) below[group[k]] = true;
    taken = n_below;
  }
  return below;
}

}  // namespace

std::vector<double> MoTpeReference(std::span<const LossPoint> points) {
  const std::size_t m = points.empty() ? 0 : points.front().size();
  std::vector<double> reference(m, kMoEps);
  for (std::size_t j = 0; j < m; ++j) {
    std::optional<double> worst;
    for (const LossPoint& p : points)
      if (std::isfinite(p[j])) worst = worst ? std::max(*worst, p[j]) : p[j];
    if (!worst) continue;
    const double moved = std::max(1.1 * *worst, 0.9 * *worst);
    reference[j] = moved == 0 ? kMoEps : moved;
  }
  return reference;
}

std::vector<std::size_t> GreedyHypervolumeSubset(std::span<const LossPoint> points, std::size_t k) {
  const std::vector<double> reference = MoTpeReference(points);
  std::vector<bool> taken(points.size(), false);
  std::vector<LossPoint> chosen_points;
  std::vector<std::size_t> chosen;
  double volume = 0;
  while (chosen.size() < std::min(k, points.size())) {
    std::size_t best = points.size();
    double best_gain = -kMoInf, best_volume = 0;
    chosen_points.emplace_back();
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (taken[i]) continue;
      chosen_points.back() = points[i];
      const double with = Hypervolume(chosen_points, reference);
      if (with - volume > best_gain) {
        best = i;
        best_gain = with - volume;
        best_volume = with;
      }
    }
    chosen_points.back() = points[best];
    taken[best] = true;
    chosen.push_back(best);
    volume = best_volume;
  }
  return chosen;
}

std::vector<double> HypervolumeContributionWeights(std::span<const LossPoint> points,
                                                   const std::vector<bool>& feasible) {
  std::vector<LossPoint> kept;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (feasible[i]) kept.push_back(points[i]);
  std::vector<double> contribution(kept.size(), 1.0);
  if (kept.size() >= 2) {
    const std::vector<double> reference = MoTpeReference(kept);
    const double all = Hypervolume(kept, reference);
    std::vector<LossPoint> others;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      others.assign(kept.begin(), kept.end());
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
      contribution[i] = all - Hypervolume(others, reference) + kMoEps;
    }
    const double largest = *std::max_element(contribution.begin(), contribution.end());
    for (double& c : contribution) c = std::clamp(c / largest, 0.0, 1.0);
  }
  // No feasible good trial: they are the least violating, chosen to lead l(x) towards
  // the feasible region, so they weigh 1 each, as single-objective TPE weighs them.
  // (Optuna 3.1 gives them 1e-12, which leaves l(x) to its prior: random search
  // until a feasible trial turns up by chance.)
  if (kept.empty()) return std::vector<double>(points.size(), 1.0);
  std::vector<double> weights(points.size(), kMoEps);
  for (std::size_t i = 0, k = 0; i < points.size(); ++i)
    if (feasible[i]) weights[i] = contribution[k++];
  return weights;
}

TpeGroups SplitMoHistory(const std::vector<TrialRecord>& history, int before, const TpeSpace& space,
                         const Objective& objective, RunningTrials running) {
  const std::size_t dims = space.dims().size();
  std::vector<MoRanked> trials;
  std::vector<double> table;  // row r: the model values of trials[r], dims in order
  for (const TrialRecord& t : history) {
    if (t.number >= before) continue;
    const std::optional<double> tier = TpeTier(t, running);
    if (!tier || !AppendModelValues(t, space, table)) continue;
    const bool is_running = t.state == TrialState::kRunning;
    MoRanked r{t.number, *tier, LossPoint(objective.size(), kMoInf), 0, trials.size()};
    if (!is_running) r.loss = objective.Losses(objective.Values(t.last_metrics));
    if (objective.constrained()) r.violation = is_running ? kMoInf : objective.Violation(t.last_metrics);
    trials.push_back(std::move(r));
  }
  std::stable_sort(trials.begin(), trials.end(),
                   [](const MoRanked& a, const MoRanked& b) { return a.number < b.number; });

  TpeGroups groups;
  for (const MoRanked& r : trials) groups.scored += r.tier < kMoInf ? 1 : 0;
  const std::size_t n_below = std::min<std::size_t>(TpeGamma(groups.scored), trials.size());
  const std::vector<bool> chosen = ChooseBelow(trials, n_below, objective.size());
  std::vector<bool> is_below(trials.size(), false);  // by row
  std::vector<std::size_t> rows;
  std::vector<LossPoint> below_losses;
  std::vector<bool> below_feasible;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    rows.push_back(trials[i].row);
    is_below[trials[i].row] = chosen[i];
    if (!chosen[i]) continue;
    below_losses.push_back(trials[i].loss);
    below_feasible.push_back(trials[i].violation == 0);
  }
  GroupColumns(rows, is_below, table, dims, groups);
  if (objective.multi()) groups.below_weights = HypervolumeContributionWeights(below_losses, below_feasible);
  return groups;
}

}  // namespace gpusweep::search
