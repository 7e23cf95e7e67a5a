// bohb_policy.h — BOHB: Hyperband's brackets with model-based configurations (Falkner,
// Klein & Hutter, "BOHB: Robust and Efficient Hyperparameter Optimization at Scale",
// ICML 2018, Algorithm 2).
//
// Contract. Jobs, budgets, rung decisions and stops are Hyperband's (schedule/
// hyperband.h, unchanged): this is a ScheduledPolicy whose scheduler is Hyperband and
// whose sampler is tpe. What BOHB adds is where a new configuration comes from:
//  - Every result at a budget is kept as an observation (budget, trial, value): in the
//    budgeted style the value a job ended with at its budget (a rung); in the iterative
//    style each report at one of the trial's rung resources or at max_resource. A failed
//    evaluation (no value) is not modelled, as tpe ignores failed trials.
//  - Suggest(k): with probability random_fraction (a draw of its own, a function of the
//    seed and k), or while no budget has min_points_in_model + 2 observations, trial k
//    is tpe's prior draw for k (the random sampler's trial k). Otherwise the budget b is
//    the largest with at least min_points_in_model + 2 observations, and tpe suggests
//    from a history made of those observations only (each as a completed trial whose
//    objective is its value at b), plus trials now running towards b (constant liar,
//    when tpe has it on). Warm-start trials (numbers < 0) count as observations at their
//    recorded budget, else at max_resource.
// The observations are a function of the journaled calls, so a resumed run replays them
// and suggests the same configurations. N_min (min_points_in_model) defaults to the
// number of varying parameters + 1, as in the paper and HpBandSter.
//
// Where it differs from the paper: the density model is gpusweep's tpe (Optuna 3.1's
// Parzen estimators, its gamma split, its prior and magic clip; multivariate by
// default under bohb), not HpBandSter's statsmodels KDE over the best 15% with bandwidth
// factor 3; docs/samplers.md, "bohb", says so.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "gpusweep/config.h"
#include "policy/scheduled_policy.h"

namespace gpusweep {

class BohbPolicy final : public ScheduledPolicy {
 public:
  // `sampler`: tpe with n_startup_trials 1 (so an empty history is its random draw; this
  // policy says when there is a model);
  // `scheduler`: Hyperband over the same config; min_points >= 1.
  BohbPolicy(std::unique_ptr<Sampler> sampler, std::unique_ptr<Scheduler> scheduler,
             TrialStyle style, double max_resource, const BohbConfig& config, int min_points,
             std::uint64_t seed);

  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;

  std::optional<Decision> OnReport(int trial, double resource,
                                   std::optional<double> value) override;
  Decision OnJobFinished(const Job& job, std::optional<double> value) override;
  std::optional<Decision> OnEvaluatedReport(int trial, double resource,
                                            const Evaluation& evaluation) override;
  Decision OnJobEvaluated(const Job& job, const Evaluation& evaluation) override;

  // The budget Suggest would model from, given `history` (it holds the warm-start
  // trials); nullopt: none has min_points + 2 results yet.
  std::optional<double> ModelBudget(const std::vector<TrialRecord>& history) const;

 private:
  void ObserveReport(int trial, double resource, std::optional<double> value);
  void ObserveJob(const Job& job, std::optional<double> value);
  bool DrawsAtRandom(int number) const;
  std::vector<TrialRecord> HistoryAt(double budget, const std::vector<TrialRecord>& history) const;

  TrialStyle style_;
  double max_resource_;
  BohbConfig config_;
  int min_points_;
  std::uint64_t seed_;
  // budget -> trial -> its value there (a later result for the same pair replaces it).
  std::map<double, std::map<int, double>> observations_;
};

// N_min: `config.min_points_in_model`, or the number of varying parameters + 1.
int BohbMinPoints(const BohbConfig& config, const SearchSpace& space);

}  // namespace gpusweep
