// pareto_json.h — an experiment with several objectives as the dashboard draws it: the
// summary's "pareto" section (docs/config.md, "Several objectives and constraints").
//
// Contract: pure; ranks through report/pareto_views.h (RankParetoTrials,
// ComputeFrontHypervolume) and pareto.h, never by an ordering of its own, so the page
// marks the same front `status` and `best` print.
//
// {objectives: [{name, mode}], constraints: [{metric, min|null, max|null}],
//  trials: [{trial, values[] (objective order; null where missing), rank (0-based
//            front), front (the feasible front), feasible, violation}], Pareto order,
//  counts: {completed, front, infeasible},
//  reference: [metric values, objective order]|null, reference_derived,
//  hypervolume: [{trial, completed, value}]}
// - Only completed trials are ranked.
// - `reference`: the config's hypervolume_reference, else derived from every feasible
//   trial (ComputeFrontHypervolume); null without a feasible trial. The history uses
//   this one reference throughout, so its values compare: entry i is the hypervolume of
//   the feasible trials among the first i+1 to complete (by end time, then number;
//   `completed` = i+1, `trial` the one that completed then). Empty without a reference.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/objective.h"
#include "gpusweep/trial.h"

namespace gpusweep::web {

// With `keep` (ChartedTrials::Holds: the trials a page is sent of a large experiment),
// `trials` lists only the kept ones; `counts` {completed, front, infeasible} always
// counts every completed trial. A hypervolume history of more than kMaxHypervolumeHistory
// completions keeps only the entries where the value changed, and the last: drawn as the
// step line it is, the same line, without 100,000 points.
Json ParetoJson(const std::vector<TrialRecord>& trials, const Objective& objective,
                const std::optional<std::vector<double>>& reference,
                const std::function<bool(int trial)>& keep = {});

inline constexpr std::size_t kMaxHypervolumeHistory = 2000;

}  // namespace gpusweep::web
