// tpe_mo_history.h — TPE's good/bad split when the objective has several metrics or
// constraints: multi-objective TPE (Ozaki, Tanigaki, Watanabe, Nomura & Onishi,
// "Multiobjective Tree-Structured Parzen Estimator", JAIR 75, 2022) with the constraint
// handling of Optuna 3.1's TPESampler(constraints_func=...), the reference for behaviour.
//
// Ranking of the usable trials (those tpe_history.h's TpeTier keeps, whose params fit the
// space), best first:
//   1. feasible trials (violation 0; always, without constraints), tier by tier as in
//      tpe_history.h (completed, then pruned/paused by budget, then running with the
//      constant liar); within a tier by non-dominated front (pareto.h) of their losses;
//   2. infeasible trials by total violation (objective.h), ties by trial number.
// The best gamma(n) (TpeGamma, n = scored trials) are `below`: whole fronts while they
// fit; from the front that does not fit, a subset chosen by greedy hypervolume subset
// selection (GreedyHypervolumeSubset) when it is feasible and there are >= 2 metrics, else
// its lowest trial numbers (Optuna's stable sort). With >= 2 metrics each good trial's
// kernel weight is its hypervolume contribution among the feasible good trials
// (HypervolumeContributionWeights); with one metric (constraints only) the weights are
// Optuna's default_weights. Losses are the metrics' last reported values (last_metrics)
// as losses, +inf where missing; running trials have +inf losses and violation.
//
// Differences from Optuna 3.1, which drops pruned and running trials when there are
// several metrics: here they rank as single-objective TPE ranks them (after every
// completed trial), so pruning and the constant liar behave the same in both modes.
// Pure and deterministic: the result does not depend on the order of `history`.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "gpusweep/objective.h"
#include "gpusweep/pareto.h"
#include "search/tpe_history.h"

namespace gpusweep::search {

// Optuna 3.1's reference point for the split and the weights: per loss, the worst finite
// value w of `points` moved outwards, max(1.1 w, 0.9 w), and 1e-12 where that is 0 (so
// every point has a box); a loss with no finite value gets 1e-12.
std::vector<double> MoTpeReference(std::span<const LossPoint> points);

// Greedy hypervolume subset selection (Guerreiro, Fonseca & Paquete, "Greedy hypervolume
// subset selection in low dimensions", Evolutionary Computation 24(3), 2016; a
// (1 - 1/e)-approximation): `k` indices into `points`, in the order chosen, each the one
// adding the most hypervolume (reference MoTpeReference(points)) to those chosen before,
// ties to the lowest index. Exact hypervolumes from pareto.h at every step.
std::vector<std::size_t> GreedyHypervolumeSubset(std::span<const LossPoint> points, std::size_t k);

// The weights of the good trials (JAIR 2022, sec. 4.2; Optuna 3.1): for the feasible ones,
// (contribution + 1e-12) / max(contribution + 1e-12) clipped to [0, 1], the contribution
// of a point being the hypervolume of all feasible points minus that without it
// (reference MoTpeReference of the feasible points; a single feasible point gets 1);
// infeasible ones get 1e-12 -- unless no point is feasible: then every point gets 1 (not
// Optuna 3.1, whose 1e-12 there leaves l(x) to the prior; docs/samplers.md). `feasible`
// has one entry per point.
std::vector<double> HypervolumeContributionWeights(std::span<const LossPoint> points,
                                                   const std::vector<bool>& feasible);

// The split described above; trials numbered `before` or later are left out (as in
// SplitHistory).
TpeGroups SplitMoHistory(const std::vector<TrialRecord>& history, int before, const TpeSpace& space,
                         const Objective& objective, RunningTrials running);

}  // namespace gpusweep::search
