// mo_runs_for_tests.h — the multi-objective samplers' tests run a sampler one trial
// after another and score the front: RunSequentially and FrontVolume, shared by the
// nsga2, tpe and gp tests.
#pragma once

#include <utility>
#include <vector>

#include "gpusweep/objective.h"
#include "gpusweep/pareto.h"
#include "gpusweep/sampler.h"

namespace gpusweep::test_support {

// Runs `trials` trials one after another, each completed before the next is suggested,
// with the metrics `evaluate` reports; a trial's `objective` is its "f1" when it
// reports one (the first objective of every problem these tests use), as a run records
// the first metric's value.
template <typename Evaluate>
std::vector<TrialRecord> RunSequentially(const Sampler& sampler, int trials, Evaluate evaluate) {
  std::vector<TrialRecord> history;
  for (int k = 0; k < trials; ++k) {
    TrialRecord t;
    t.number = k;
    t.params = sampler.Suggest(k, history).params;
    t.state = TrialState::kCompleted;
    t.last_metrics = evaluate(t.params);
    if (t.last_metrics.contains("f1")) t.objective = t.last_metrics["f1"].get<double>();
    history.push_back(std::move(t));
  }
  return history;
}

// The hypervolume of the feasible trials' losses from `reference`.
inline double FrontVolume(const std::vector<TrialRecord>& history, const Objective& objective,
                          const std::vector<double>& reference) {
  std::vector<LossPoint> points;
  for (const TrialRecord& t : history)
    if (objective.Feasible(t.last_metrics))
      points.push_back(objective.Losses(objective.Values(t.last_metrics)));
  return Hypervolume(points, reference);
}

}  // namespace gpusweep::test_support
