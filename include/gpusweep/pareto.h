// pareto.h — Pareto fronts, crowding and hypervolume over loss vectors: the algorithms
// every multi-objective ranking (status, best, export, NSGA-II, the view) calls.
//
// Contract: a point is a vector of m >= 1 losses, lower is better in every entry (an
// Objective's `Losses` turns reported values into them); every point of one call has the
// same m (asserted). NaN is treated as +inf (a missing value is worse than any number,
// as objective.h says). Everything is pure and deterministic: ties are broken by the
// points' order in the input, never by addresses or hashing.
//
// - `NonDominatedRanks`: each point's front, 0 = non-dominated; front k+1 is what is
//   non-dominated once fronts 0..k are removed (Deb, Pratap, Agarwal & Meyarivan,
//   "A fast and elitist multiobjective genetic algorithm: NSGA-II", IEEE TEC 6(2), 2002,
//   section III-A). Equal points share a front. Cost: m = 1 a sort, O(n log n); m = 2
//   O(n log n) (sort by the first loss, then each point's front by binary search over the
//   fronts' last second loss: Jensen, "Reducing the run-time complexity of multiobjective
//   EAs", IEEE TEC 7(5), 2003); m >= 3 Deb's fast non-dominated sort, O(m n^2) time and
//   O(n^2) memory for the dominated sets.
// - `ConstrainedRanks`: the same under constraint-domination (objective.h): feasible
//   points (violation 0) take fronts 0..F-1 as above; infeasible ones follow, grouped by
//   violation, smaller first (+inf last), each group's points in fronts of their own by
//   non-dominated sorting (equal violations compare by the objectives). Violations are
//   >= 0.
// - `CrowdingDistances`: Deb 2002 section III-B, within each front: for each loss, the
//   front sorted by it (ties by input order), its two ends get +inf and every other
//   member adds (next - previous) / (max - min) of that loss; a loss whose range in the
//   front is 0 or not finite adds nothing. A front of one or two points is all +inf.
// - `ParetoOrder`: indices sorted by (front, crowding descending, index) — the order of
//   status and the selection order of NSGA-II.
// - `Hypervolume`: the Lebesgue measure of the union of the boxes [p, reference] (the
//   region the points dominate, bounded by the reference point), counting only points
//   strictly below the reference in every loss. Exact for every m: m = 1 and 2 by a sort
//   and sweep, O(n log n); m = 3 by slicing along the third loss, O(n^2); m >= 4 the WFG
//   algorithm (While, Bradstreet & Barone, "A fast way of calculating exact
//   hypervolumes", IEEE TEC 16(1), 2012): the sum over points, taken in decreasing order
//   of the last loss, of each one's volume exclusive of those after it, whose limit set
//   lies in one slice of the last loss and so is measured in m-1 dimensions (worst case
//   exponential in m, as for every exact algorithm).
// - `HypervolumeReference`: a reference point when the config gives none: per loss, the
//   worst value of the points plus 10% of their range (plus 1 when the range is 0), so
//   every point's box has volume; non-finite losses are left out of it, and a loss with
//   no finite value gets 1. Empty input gives an empty result.
#pragma once

#include <span>
#include <vector>

namespace gpusweep {

using LossPoint = std::vector<double>;

std::vector<int> NonDominatedRanks(std::span<const LossPoint> points);
std::vector<int> ConstrainedRanks(std::span<const LossPoint> points, std::span<const double> violations);
// ranks: a front per point (from either function above); returns a distance per point.
std::vector<double> CrowdingDistances(std::span<const LossPoint> points, std::span<const int> ranks);
std::vector<int> ParetoOrder(std::span<const int> ranks, std::span<const double> crowding);

double Hypervolume(std::span<const LossPoint> points, std::span<const double> reference);
std::vector<double> HypervolumeReference(std::span<const LossPoint> points);

}  // namespace gpusweep
